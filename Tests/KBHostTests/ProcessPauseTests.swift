import Foundation
import Glibc
import KBSystem
import Testing

/// The governor reads a keyboard's descriptors and mappings with it stopped (neither listing is a
/// snapshot): here a real process, stopped for the reading and going on after it.
@Suite("A process held still while it is read")
struct ProcessPauseTests {
    func state(_ pid: pid_t) -> UInt8? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text.utf8[text.utf8.index(close, offsetBy: 2)]
    }

    @Test func aProcessIsStoppedWhileReadAndGoesOnAfter() throws {
        let child = try ChildProcess("while :; do :; done")
        let pid = child.pid
        var stop = try #require(ProcessPause.Stop.begin(pid: pid, pidfd: child.pidfd, within: 1_000_000_000))
        while !stop.check() && !stop.expired(at: Sys.monotonicNanoseconds()) {
            usleep(ProcessPause.backoff(waited: Sys.monotonicNanoseconds() - stop.asked))
        }
        let during = state(pid)
        stop.end(pidfd: child.pidfd)
        #expect(stop.stopped, "it stopped within the second")
        #expect(during == UInt8(ascii: "T"), "stopped while read")
        var after = state(pid)
        for _ in 0..<2000 where after == UInt8(ascii: "T") { usleep(1000); after = state(pid) }
        #expect(after != nil && after != UInt8(ascii: "T"), "and going on after: \(after.map { String(UnicodeScalar($0)) } ?? "gone")")
        withExtendedLifetime(child) {}
    }

    /// A thread asleep in a call the stop cannot interrupt (state D: here reads of a file with O_DIRECT
    /// from the disk) keeps the stop from coming while it uses no CPU: that wait is charged all the same (a
    /// review: charged by CPU alone, a keyboard reading its bundle that way was never ended for keeping its
    /// counts waiting). The control: the stop really waited, and the process used little CPU meanwhile.
    @Test func aStopKeptWaitingByADiskReadIsCharged() throws {
        let file = "/var/tmp/kbhost-dstate-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(file) }
        let out = try #require(FileHandle(forWritingAtPath: { _ = FileManager.default.createFile(atPath: file, contents: nil); return file }()))
        let chunk = Data(repeating: 0x5A, count: 16 << 20)
        for _ in 0..<32 { out.write(chunk) }  // 512 MiB, written: O_DIRECT reads go to the disk
        try out.synchronize()
        try out.close()
        let child = try ChildProcess("exec dd if=\(file) of=/dev/null bs=256M iflag=direct 2>/dev/null")
        let pid = child.pid
        var seen = false
        for _ in 0..<5000 where !seen { seen = state(pid) == UInt8(ascii: "D"); if !seen { usleep(200) } }
        try #require(seen, "the scene: dd asleep in a read (state D)")
        let cpuBefore = try #require(Sys.cpuNanoseconds(of: pid))
        var stop = try #require(ProcessPause.Stop.begin(pid: pid, pidfd: child.pidfd, within: 300_000_000))
        while !stop.check() && !stop.expired(at: Sys.monotonicNanoseconds()) {
            usleep(ProcessPause.backoff(waited: Sys.monotonicNanoseconds() - stop.asked))
        }
        let charged = stop.resisted()
        let cpu = (Sys.cpuNanoseconds(of: pid) ?? cpuBefore) - cpuBefore
        let waited = stop.lastSeenRunning - stop.asked
        stop.end(pidfd: child.pidfd)
        #expect(waited > 20_000_000, "the control: the stop waited \(waited / 1_000_000) ms")
        #expect(cpu * 2 < waited, "the control: it used \(cpu / 1_000_000) ms of CPU meanwhile")
        #expect(charged * 2 >= waited, "charged \(charged / 1_000_000) ms of \(waited / 1_000_000)")
        withExtendedLifetime(child) {}
    }
}
