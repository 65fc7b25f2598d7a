import Glibc
import KBSystem

/// A real child process for a test (`sh -c script`) and a pidfd of it; killed and reaped when let go.
final class ChildProcess {
    let pid: pid_t
    let pidfd: Int32

    init(_ script: String) throws {
        pid = try Spawn.spawn(path: "/bin/sh", arguments: ["/bin/sh", "-c", script], environment: [], files: [])
        pidfd = try Sys.pidfdOpen(pid)
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(pidfd)
    }
}
