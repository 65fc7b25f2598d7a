import Glibc
import KBHost
import KBSystem

/// A real process for a governor test (`sleep 30`) and a pidfd of it; killed, reaped and no longer
/// watched when let go.
final class WatchedProcess {
    let pid: pid_t
    let pidfd: Int32

    init() throws {
        pid = try Spawn.spawn(path: "/bin/sleep", arguments: ["sleep", "30"], environment: [], files: [])
        pidfd = try Sys.pidfdOpen(pid)
    }

    deinit {
        _ = try? Sys.pidfdSendSignal(pidfd, SIGKILL)
        _ = try? Sys.reap(pidfd: pidfd, wait: true)
        Governor.shared.unwatch(pid: pid)
        Sys.close(pidfd)
    }
}
