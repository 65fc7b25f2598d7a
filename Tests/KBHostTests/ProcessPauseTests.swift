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
        // dd after dd (each reads the file with O_DIRECT, asleep in D for most of it); each try stops the dd
        // found asleep, until one's stop really waited (a read may end just as it is asked, on a busy machine).
        let child = try ChildProcess("while :; do dd if=\(file) of=/dev/null bs=256M iflag=direct 2>/dev/null; done")
        var scene: (waited: Int64, cpu: Int64, charged: Int64)?
        let until = Date(timeIntervalSinceNow: 20)
        while scene == nil && Date() < until {
            let children = (try? String(contentsOfFile: "/proc/\(child.pid)/task/\(child.pid)/children", encoding: .utf8)) ?? ""
            guard let dd = children.split(separator: " ").compactMap({ Int32($0) }).first, state(dd) == UInt8(ascii: "D"),
                  let pidfd = try? Sys.pidfdOpen(dd), let cpuBefore = Sys.cpuNanoseconds(of: dd) else {
                usleep(200)
                continue
            }
            defer { close(pidfd) }
            guard var stop = ProcessPause.Stop.begin(pid: dd, pidfd: pidfd, within: 300_000_000) else { continue }
            while !stop.check() && !stop.expired(at: Sys.monotonicNanoseconds()) {
                usleep(ProcessPause.backoff(waited: Sys.monotonicNanoseconds() - stop.asked))
            }
            let charged = stop.resisted()
            let cpu = (Sys.cpuNanoseconds(of: dd) ?? cpuBefore) - cpuBefore
            let waited = stop.lastSeenRunning - stop.asked
            stop.end(pidfd: pidfd)
            if waited > 20_000_000 && cpu * 2 < waited { scene = (waited, cpu, charged) }  // the control: it waited, using little CPU
        }
        let (waited, _, charged) = try #require(scene, "the scene: no dd kept its stop waiting over 20 ms asleep in a read within 20 s")
        #expect(charged * 2 >= waited, "charged \(charged / 1_000_000) ms of \(waited / 1_000_000)")
        withExtendedLifetime(child) {}
    }
}
