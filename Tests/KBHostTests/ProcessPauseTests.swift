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
}
