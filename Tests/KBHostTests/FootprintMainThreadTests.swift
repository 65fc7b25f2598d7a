import Foundation
import Glibc
import KBSystem
import Testing

/// A process whose main thread has ended while another runs on (seventh red team, F6): the
/// kernel shows no memory for it in /proc/PID/status, so the footprint read there is 0 while
/// the live thread holds memory. The reader says so (`mainThreadEnded`), and the governor
/// ends such a keyboard. The scene is a real process built here from C; its live thread's own
/// status is the control that the memory is really held.
@Suite("Footprint: a process whose main thread ended")
struct FootprintMainThreadTests {
    static let program = """
        #include <pthread.h>
        #include <stdlib.h>
        #include <string.h>
        #include <unistd.h>
        static void *hold(void *arg) {
            volatile char *p = malloc(48 << 20);
            for (int i = 0; i < (48 << 20); i += 4096) p[i] = 1;
            write(1, "held\\n", 5);
            pause();
            return (void *)p;
        }
        int main(void) {
            pthread_t t;
            pthread_create(&t, 0, hold, 0);
            pthread_exit(0);
        }
        """

    func spawn(_ path: String) throws -> (pid: pid_t, out: Int32) {
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
        defer { argv.forEach { free($0) } }
        #expect(posix_spawn(&pid, path, &actions, nil, argv, environ) == 0)
        close(pipe[1])
        return (pid, pipe[0])
    }

    @Test func aLiveProcessWithItsMainThreadEndedIsToldApartFromOneThatEnded() throws {
        let dir = NSTemporaryDirectory() + "kbhost-leader-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.program.write(toFile: dir + "/leader.c", atomically: true, encoding: .utf8)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        cc.arguments = ["cc", "-O1", "-pthread", dir + "/leader.c", "-o", dir + "/leader"]
        try cc.run()
        cc.waitUntilExit()
        try #require(cc.terminationStatus == 0, "cc built the scene")

        let (pid, out) = try spawn(dir + "/leader")
        defer { close(out); kill(pid, SIGKILL); var s: Int32 = 0; waitpid(pid, &s, 0) }
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(out, &buffer, buffer.count) > 0, "the thread holds its memory")
        let reader = try #require(FootprintReader(pid: pid))
        var footprint = reader.read()
        for _ in 0..<200 where footprint?.mainThreadEnded != true { usleep(10_000); footprint = reader.read() }
        #expect(footprint?.mainThreadEnded == true, "\(String(describing: footprint))")
        #expect(footprint?.total == 0, "the blind spot: the process's status shows no memory")
        // The control: the live thread's own status shows what the process holds.
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").filter { $0 != "\(pid)" }
        let thread = try #require(tasks.first.flatMap { try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/status", encoding: .utf8) })
        let anon = thread.split(separator: "\n").first { $0.hasPrefix("RssAnon:") }
        let kib = anon.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        #expect(kib >= 40 << 10, "the live thread's status: \(anon ?? "no RssAnon")")

        // A process that has ended entirely (a zombie of one thread, not yet reaped) is not that.
        let (ended, endedOut) = try spawn("/bin/true")
        defer { close(endedOut); var s: Int32 = 0; waitpid(ended, &s, 0) }
        let endedReader = try #require(FootprintReader(pid: ended))
        var state = ""
        for _ in 0..<200 where !state.contains("State:\tZ") {
            usleep(10_000)
            state = (try? String(contentsOfFile: "/proc/\(ended)/status", encoding: .utf8)) ?? ""
        }
        #expect(state.contains("State:\tZ"), "the ended process is a zombie")
        #expect(endedReader.read()?.mainThreadEnded == false)
    }
}
