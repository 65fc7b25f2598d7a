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
        let pid = try Spawn.spawn(path: "/bin/sh", arguments: ["/bin/sh", "-c", "while :; do :; done"], environment: [], files: [])
        let pidfd = try Sys.pidfdOpen(pid)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            close(pidfd)
        }
        var waited: Int64 = 0
        let seen = ProcessPause.whileStopped(pid: pid, pidfd: pidfd, within: 1_000_000_000, waited: &waited) { state(pid) }
        #expect(waited >= 0 && waited < 1_000_000_000)
        guard case .read(let during) = seen else {
            Issue.record("it did not stop")
            return
        }
        #expect(during == UInt8(ascii: "T"), "stopped while read")
        var after = state(pid)
        for _ in 0..<2000 where after == UInt8(ascii: "T") { usleep(1000); after = state(pid) }
        #expect(after != nil && after != UInt8(ascii: "T"), "and going on after: \(after.map { String(UnicodeScalar($0)) } ?? "gone")")
    }
}
