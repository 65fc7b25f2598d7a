public import Glibc

// The C calls this file makes, each by one private name (swift-nio's System.swift habit):
// every call goes through Sys.check, which retries EINTR and throws the call's name and errno.
private let sysKill: @convention(c) (pid_t, CInt) -> CInt = kill
private let sysWaitpid: @convention(c) (pid_t, UnsafeMutablePointer<CInt>?, CInt) -> pid_t = waitpid
private let sysSetenv: @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>, CInt) -> CInt = setenv
private let sysGetrlimit: @convention(c) (__rlimit_resource_t, UnsafeMutablePointer<rlimit>) -> CInt = getrlimit

extension Sys {
    /// kill(2): `signal` to a process, or to a process group when `pid` is negative
    /// (`-pgid`). ESRCH (it is gone) and EPERM are thrown; callers that only clean up ignore them.
    public static func kill(_ pid: pid_t, _ signal: CInt) throws(SystemError) {
        _ = try check("kill") { sysKill(pid, signal) }
    }

    /// Whether `pid` exists and may be signalled by this process (kill(pid, 0) succeeds).
    public static func canSignal(_ pid: pid_t) -> Bool { sysKill(pid, 0) == 0 }

    /// waitpid(2) for one child: blocks until it ends, reaps it, and returns its wait status.
    @discardableResult
    public static func waitForChild(_ pid: pid_t) throws(SystemError) -> CInt {
        var status: CInt = 0
        _ = try check("waitpid") { sysWaitpid(pid, &status, 0) }
        return status
    }

    /// setenv(3), replacing a value already there.
    public static func setEnvironment(_ name: String, _ value: String) throws(SystemError) {
        _ = try check("setenv") { sysSetenv(name, value, 1) }
    }

    /// getrlimit(2): a resource's soft and hard limits (`RLIM_INFINITY` is `UInt64.max`).
    public static func resourceLimit(_ resource: Int32) throws(SystemError) -> (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        _ = try check("getrlimit") { sysGetrlimit(__rlimit_resource_t(UInt32(resource)), &limit) }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }
}
