import Foundation
import Glibc
@testable import KBHost
import KBSystem
import Synchronization
import Testing

/// The counting thread takes a keyboard's pidfd under the governor's lock and uses it for a whole
/// count: stopping the keyboard, taking its sockets. The keyboard may end meanwhile and its owner
/// close that pidfd; were the count using the owner's number, a number reused by then (the next
/// keyboard's pidfd) would have it stop and continue another process.
@Suite("The governor's hold on a process it counts", .serialized)
struct GovernorDescriptorTests {
    /// Its state changes as its parent sees them (stopped, continued), or nil if none.
    func stateChange(_ pid: pid_t) -> String? {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG | WUNTRACED | WCONTINUED) == pid else { return nil }
        if status == 0xffff { return "continued" }
        if status & 0xff == 0x7f { return "stopped" }
        return "ended"
    }

    @Test(.enabled(if: TmpfsUsage.isTmpfs("/dev/shm"), "needs /dev/shm on a tmpfs"))
    func aCountOfAnEndedKeyboardNeverReachesTheProcessItsNumberNowNames() throws {
        let folder = try GovernorWatchdogTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loop = ["/bin/sh", "-c", "while :; do sleep 1; done"]
        let keyboard = try Spawn.spawn(path: "/bin/sh", arguments: loop, environment: [], files: [])
        let number = try Sys.pidfdOpen(keyboard)
        // The victim notes every SIGCONT it gets (a stop it may not have had time to take).
        let mark = folder + "-continued"
        defer { unlink(mark) }
        let victim = try Spawn.spawn(path: "/bin/sh", arguments: ["/bin/sh", "-c", "trap 'echo > \(mark)' CONT; while :; do sleep 0.05; done"],
                                     environment: [], files: [])
        defer {
            kill(victim, SIGKILL)
            var status: Int32 = 0
            waitpid(victim, &status, 0)
        }
        // The control: the same count of a live process stops it and lets it go on.
        let controlProcess = try ChildProcess("while :; do sleep 1; done")
        let (control, controlfd) = (controlProcess.pid, controlProcess.pidfd)
        Governor.shared.watch(pid: control, pidfd: controlfd, budget: 64 << 20)
        defer { Governor.shared.unwatch(pid: control) }
        Governor.shared.countHeld(of: control, folders: [folder], sockets: true)
        var seen: String?
        for _ in 0..<2000 where seen == nil { usleep(5_000); seen = stateChange(control) }
        #expect(seen == "stopped" || seen == "continued", "the control: a count stops a live keyboard (\(seen ?? "no change"))")

        // The keyboard: its count held back once it has begun (a test hook), then the keyboard ends,
        // its owner closes its pidfd, and the number comes to name the victim.
        Governor.stallCounts(of: keyboard, true)
        Governor.shared.watch(pid: keyboard, pidfd: number, budget: 64 << 20)
        Governor.shared.countHeld(of: keyboard, folders: [folder], sockets: true)
        var waited = 0
        while Governor.shared.counting.withLock({ $0.pid }) != keyboard && waited < 2000 { usleep(5_000); waited += 1 }
        #expect(Governor.shared.counting.withLock { $0.pid } == keyboard, "its count began")
        kill(keyboard, SIGKILL)
        var status: Int32 = 0
        waitpid(keyboard, &status, 0)
        Governor.shared.unwatch(pid: keyboard)
        close(number)
        let victimfd = try Sys.pidfdOpen(victim)
        if victimfd != number {
            #expect(dup2(victimfd, number) == number)
            close(victimfd)
        }
        defer { close(number) }
        _ = stateChange(victim)
        Governor.stallCounts(of: keyboard, false)
        waited = 0
        while Governor.shared.counting.withLock({ $0.pid }) == keyboard && waited < 2000 { usleep(5_000); waited += 1 }
        usleep(100_000)
        #expect(stateChange(victim) == nil, "the victim was never stopped")
        #expect(access(mark, F_OK) != 0, "nor sent SIGCONT")
        withExtendedLifetime(controlProcess) {}
    }
}
