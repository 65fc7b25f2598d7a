import Foundation
import Glibc
import KBHost
import KBSystem
import Testing

/// The governor fails closed when its counting thread stops finishing counts. The ninth red team
/// made a count block for good (a lingering close); that call is closed now, and no other is
/// known, so the stall here is the test hook's (`Governor.stallCounts`): a count of the process
/// that never returns, as such a call would. Everything else is real: two processes, their pidfds,
/// files on a tmpfs that the counts find.
@Suite("Governor: a count that never finishes")
struct GovernorWatchdogTests {
    /// A real process that sleeps, and a pidfd of it.
    static func sleeper() throws -> (pid: Int32, pidfd: Int32) {
        let pid = try Spawn.spawn(path: "/bin/sleep", arguments: ["sleep", "60"], environment: [], files: [])
        return (pid, try Sys.pidfdOpen(pid))
    }

    static func folder() throws -> String {
        let path = "/dev/shm/kbhost-watchdog-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    static func waitFor(seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    @Test(.enabled(if: TmpfsUsage.isTmpfs("/dev/shm"), "needs /dev/shm on a tmpfs"))
    func aStalledCountEndsItsProcessAndCountingGoesOnForTheOthers() throws {
        let stuck = try Self.sleeper(), other = try Self.sleeper()
        let stuckFolder = try Self.folder(), otherFolder = try Self.folder()
        defer {
            Governor.stallCounts(of: stuck.pid, false)
            for p in [stuck, other] {
                _ = try? Sys.pidfdSendSignal(p.pidfd, SIGKILL)
                _ = try? Sys.reap(pidfd: p.pidfd, wait: true)
                Governor.shared.unwatch(pid: p.pid)
                Sys.close(p.pidfd)
            }
            try? FileManager.default.removeItem(atPath: stuckFolder)
            try? FileManager.default.removeItem(atPath: otherFolder)
        }
        let budget = 64 << 20
        Governor.shared.watch(pid: stuck.pid, pidfd: stuck.pidfd, budget: budget)
        Governor.shared.watch(pid: other.pid, pidfd: other.pidfd, budget: budget)
        Governor.stallCounts(of: stuck.pid, true)
        Governor.shared.countHeld(of: stuck.pid, folders: [stuckFolder], sockets: false)
        Governor.shared.countHeld(of: other.pid, folders: [otherFolder], sockets: false)

        // The stalled process is ended, and the kill says why.
        #expect(Self.waitFor(seconds: 8) { Governor.shared.kill(of: stuck.pid) != nil }, "ended within the stall limit and a little")
        let kill = try #require(Governor.shared.kill(of: stuck.pid))
        #expect(kill.countStalled)
        #expect("\(kill)".contains("from finishing for 2.0 s"), "\(kill)")
        #expect(try Sys.reap(pidfd: stuck.pidfd, wait: true) == .signaled(SIGKILL))

        // The other is still counted, by a new thread, while the old one is still stuck.
        try Data(repeating: 7, count: 4 << 20).write(to: URL(fileURLWithPath: otherFolder + "/held"))
        #expect(Self.waitFor(seconds: 5) { (Governor.shared.footprint(of: other.pid) ?? 0) >= 4 << 20 },
                "a file on a tmpfs made after the stall counts in the other's footprint: \(Governor.shared.footprint(of: other.pid) ?? -1)")
        #expect(Governor.shared.kill(of: other.pid) == nil)
    }
}
