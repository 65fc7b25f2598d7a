public import CKBShims
public import Glibc

// The C calls Sys makes, each by one private name (swift-nio's System.swift habit), so that a
// raw call is easy to tell from a wrapped one; the wrappers in CKBShims are called as kbs_….
// Sys+Processes.swift and Sys+Files.swift name theirs alike.
private let sysRead: @convention(c) (CInt, UnsafeMutableRawPointer?, Int) -> Int = read
private let sysWrite: @convention(c) (CInt, UnsafeRawPointer?, Int) -> Int = write
private let sysPoll: @convention(c) (UnsafeMutablePointer<pollfd>?, nfds_t, CInt) -> CInt = poll
private let sysClose: @convention(c) (CInt) -> CInt = close
private let sysShutdown: @convention(c) (CInt, CInt) -> CInt = shutdown
private let sysSetrlimit: @convention(c) (__rlimit_resource_t, UnsafePointer<rlimit>) -> CInt = setrlimit

/// A failed system call: its name and errno. Programmer errors (EBADF, EFAULT)
/// trap instead, as swift-nio's System.swift does.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    public let call: String
    public let errno: Int32

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(Sys.errorString(errno)) (errno \(errno))" }
}

/// The system calls kbhost makes, as throwing static functions. EINTR is retried.
public enum Sys {
    public static func errorString(_ code: Int32) -> String {
        guard let s = strerror(code) else { return "error \(code)" }
        return String(cString: s)
    }

    @inline(__always)
    public static func check<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemError) -> T {
        while true {
            let r = body()
            if r >= 0 { return r }
            let e = Glibc.errno
            if e == EINTR { continue }
            precondition(e != EBADF && e != EFAULT, "\(name): programmer error, errno \(e)")
            throw SystemError(name, errno: e)
        }
    }

    /// A connected pair of stream sockets, close-on-exec.
    public static func socketPair() throws(SystemError) -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        _ = try check("socketpair") { socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) }
        return (fds[0], fds[1])
    }

    /// Refuses descriptors sent to this Unix socket (SO_PASSRIGHTS off, Linux 6.16): the sender's
    /// SCM_RIGHTS fails with EPERM. False where the kernel has no such option.
    public static func refuseDescriptorPassing(_ fd: Int32) -> Bool {
        var off: Int32 = 0
        return setsockopt(fd, SOL_SOCKET, 83 /* SO_PASSRIGHTS */, &off, socklen_t(MemoryLayout<Int32>.size)) == 0
    }

    /// A pipe, close-on-exec: (read end, write end).
    public static func pipe() throws(SystemError) -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        _ = try check("pipe2") { kbs_pipe_cloexec(&fds) }
        return (fds[0], fds[1])
    }

    public static func close(_ fd: Int32) {
        guard fd >= 0 else { return }
        _ = sysClose(fd)  // EINTR on close: the fd is gone anyway on Linux.
    }

    /// shutdown(2) both ways: whoever waits on the socket wakes at once. Best effort, for a
    /// channel whose peer is gone (the fd may be shut already).
    public static func shutdown(_ fd: Int32) {
        _ = sysShutdown(fd, Int32(SHUT_RDWR))
    }

    /// Writes all of `bytes`, retrying short writes.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let n = try check("write") { sysWrite(fd, bytes.baseAddress! + offset, bytes.count - offset) }
            offset += n
        }
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var failure: SystemError?
        bytes.withUnsafeBytes { b in
            do throws(SystemError) { try writeAll(fd, b) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// One read; 0 means end of file.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try check("read") { sysRead(fd, buffer.baseAddress, buffer.count) }
    }

    /// Reads what is available without blocking (the fd must be non-blocking); nil at end of file.
    public static func readAvailable(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        let n = sysRead(fd, buffer.baseAddress, buffer.count)
        if n > 0 { return n }
        if n == 0 { return nil }
        let e = Glibc.errno
        if e == EAGAIN || e == EWOULDBLOCK || e == EINTR { return 0 }
        throw SystemError("read", errno: e)
    }

    /// Writes what the fd takes now without blocking (the fd must be non-blocking): the
    /// bytes written, 0 when it takes none now (EAGAIN, or EINTR).
    public static func writeAvailable(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        let n = sysWrite(fd, bytes.baseAddress, bytes.count)
        if n >= 0 { return n }
        let e = Glibc.errno
        if e == EAGAIN || e == EWOULDBLOCK || e == EINTR { return 0 }
        throw SystemError("write", errno: e)
    }

    /// poll(2); returns the revents of each fd in order. A timeout below 0 waits forever.
    public static func poll(_ fds: inout [pollfd], timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        let count = nfds_t(fds.count)
        return Int(try check("poll") { sysPoll(&fds, count, timeoutMilliseconds) })
    }

    public static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        _ = try check("fcntl(O_NONBLOCK)") { kbs_set_nonblocking(fd) }
    }

    /// Duplicates an fd to a number at or above `minimum`, close-on-exec.
    public static func duplicate(_ fd: Int32, atLeast minimum: Int32) throws(SystemError) -> Int32 {
        try check("fcntl(F_DUPFD_CLOEXEC)") { kbs_dup_cloexec_above(fd, minimum) }
    }

    public static func setPipeSize(_ fd: Int32, _ bytes: Int32) {
        _ = kbs_set_pipe_size(fd, bytes)  // best effort: the default 64 KiB also works
    }

    // MARK: Processes

    public static func pidfdOpen(_ pid: pid_t) throws(SystemError) -> Int32 {
        try check("pidfd_open") { kbs_pidfd_open(pid) }
    }

    /// A copy of descriptor `fd` of the process `pidfd` names (pidfd_getfd; close-on-exec) if it is a
    /// sock_diag socket, with a receive timeout of a second; nil otherwise.
    public static func takeDiagnosticsSocket(_ fd: Int32, of pidfd: Int32) -> Int32? {
        let copy = kbs_pidfd_getfd(pidfd, fd)
        guard copy >= 0 else { return nil }
        var domain: Int32 = 0, protocolNumber: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(copy, SOL_SOCKET, SO_DOMAIN, &domain, &length) == 0, domain == AF_NETLINK,
              getsockopt(copy, SOL_SOCKET, SO_PROTOCOL, &protocolNumber, &length) == 0, protocolNumber == 4 /* NETLINK_SOCK_DIAG */,
              (try? setReceiveTimeout(copy, milliseconds: 1000)) != nil else {
            close(copy)
            return nil
        }
        return copy
    }

    /// Moves the calling thread (it alone) into the network namespace `fd` names: what it reads of
    /// /proc/thread-self/net is then that network's.
    public static func joinNetwork(_ fd: Int32) throws(SystemError) {
        _ = try check("setns(CLONE_NEWNET)") { kbs_join_network(fd) }
    }

    /// Sends a signal through a pidfd; ESRCH (already gone) is not an error.
    public static func pidfdSendSignal(_ pidfd: Int32, _ signal: Int32) throws(SystemError) {
        let r = kbs_pidfd_send_signal(pidfd, signal)
        if r < 0 && Glibc.errno != ESRCH { throw SystemError("pidfd_send_signal", errno: Glibc.errno) }
    }

    public enum Termination: Hashable, Sendable {
        case exited(Int32)
        case signaled(Int32)
    }

    /// Reaps the child behind a pidfd; nil if it is still running and `wait` is false.
    public static func reap(pidfd: Int32, wait: Bool) throws(SystemError) -> Termination? {
        var code: Int32 = 0, status: Int32 = 0
        _ = try check("waitid(P_PIDFD)") { kbs_waitid_pidfd(pidfd, wait ? 0 : 1, &code, &status) }
        switch code {
        case 0: return nil
        case Int32(CLD_EXITED): return .exited(status)
        default: return .signaled(status)
        }
    }

    public static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [SIGABRT: "SIGABRT", SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL",
                                      SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGFPE: "SIGFPE", SIGTRAP: "SIGTRAP",
                                      SIGSYS: "SIGSYS", SIGPIPE: "SIGPIPE", SIGXCPU: "SIGXCPU", SIGINT: "SIGINT"]
        return names[signal] ?? "signal \(signal)"
    }

    // MARK: Limits and process attributes (the worker applies these to itself)

    public static func setResourceLimit(_ resource: Int32, soft: UInt64, hard: UInt64) throws(SystemError) {
        var limit = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(hard))
        _ = try check("setrlimit") { sysSetrlimit(__rlimit_resource_t(UInt32(resource)), &limit) }
    }

    public static func setParentDeathSignal(_ signal: Int32) throws(SystemError) {
        _ = try check("prctl(PR_SET_PDEATHSIG)") { kbs_set_pdeathsig(signal) }
    }

    public static func setDefaultThreadStackSize(_ bytes: Int) throws(SystemError) {
        let r = kbs_set_default_thread_stack(bytes)
        if r != 0 { throw SystemError("pthread_setattr_default_np", errno: r) }
    }

    /// CLOCK_MONOTONIC in nanoseconds.
    public static func monotonicNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// CPU time used by process `pid` (all its threads, living and ended), in nanoseconds; nil if it is gone.
    public static func cpuNanoseconds(of pid: Int32) -> Int64? {
        var clock = clockid_t()
        var ts = timespec()
        guard clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &ts) == 0 else { return nil }
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// CPU time used by this process, in nanoseconds.
    public static func processCPUNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// The absolute path of the running executable.
    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public static func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The CPUs a thread (or a process: its pid) may run on, as a mask of CPUs 0–63.
    public static func affinity(of tid: pid_t) throws(SystemError) -> UInt64 {
        var mask: UInt64 = 0
        _ = try check("sched_getaffinity") { kbs_get_affinity(tid, &mask) }
        return mask
    }

    /// Lets a thread (or a process: its pid) run only on the CPUs of `mask` (CPUs 0–63).
    public static func setAffinity(of tid: pid_t, _ mask: UInt64) throws(SystemError) {
        _ = try check("sched_setaffinity") { kbs_set_affinity(tid, mask) }
    }
}
