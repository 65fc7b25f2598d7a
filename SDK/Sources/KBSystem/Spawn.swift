public import CKBShims
import Glibc

/// posix_spawn with explicit file descriptors: nothing leaks into the child
/// but what is named here (everything from `closeFrom` up is closed).
public enum Spawn {
    public struct FileMapping: Sendable {
        public var parentFD: Int32
        public var childFD: Int32
        public init(_ parentFD: Int32, as childFD: Int32) {
            self.parentFD = parentFD
            self.childFD = childFD
        }
    }

    /// Starts `path` with `arguments` (argv[0] included) and `environment`.
    /// stdin is /dev/null unless mapped. Signals are reset to their defaults
    /// and unblocked in the child. Runs on the process's spawner thread, so a
    /// child's PR_SET_PDEATHSIG means "the host process died", whichever
    /// thread asked for the spawn.
    public static func spawn(path: String, arguments: [String], environment: [String],
                             files: [FileMapping]) throws(SystemError) -> pid_t {
        try SpawnerThread.shared.run {
            Result { () throws(SystemError) -> pid_t in
                try spawnOnThisThread(path: path, arguments: arguments, environment: environment, files: files)
            }
        }.get()
    }

    private static func spawnOnThisThread(path: String, arguments: [String], environment: [String],
                                          files: [FileMapping]) throws(SystemError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        if !files.contains(where: { $0.childFD == 0 }) {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        for mapping in files {
            posix_spawn_file_actions_adddup2(&actions, mapping.parentFD, mapping.childFD)
        }
        let highest = max(files.map(\.childFD).max() ?? 2, 2)
        kbs_spawn_addclosefrom(&actions, highest + 1)

        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        // Its own process group: whatever the child forks can be killed with it.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let r = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard r == 0 else { throw SystemError("posix_spawn \(path)", errno: r) }
        return pid
    }

    /// The current environment as KEY=VALUE strings.
    public static func currentEnvironment() -> [String] {
        var result: [String] = []
        var p = kbs_environ()!
        while let entry = p.pointee {
            result.append(String(cString: entry))
            p += 1
        }
        return result
    }
}

extension Sys {
    /// Writes all of `bytes` to a socket without raising SIGPIPE if the peer is gone.
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var failure: SystemError?
        bytes.withUnsafeBytes { b in
            var offset = 0
            while offset < b.count {
                do throws(SystemError) {
                    offset += try check("send") { send(fd, b.baseAddress! + offset, b.count - offset, Int32(MSG_NOSIGNAL)) }
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
    }

    /// Sets SO_SNDTIMEO: a blocking send gives up after this long (EAGAIN).
    public static func setSendTimeout(_ fd: Int32, milliseconds: Int) throws(SystemError) {
        try setTimeout(fd, SO_SNDTIMEO, "SO_SNDTIMEO", milliseconds: milliseconds)
    }

    /// What this end of a Unix stream socket sent that its peer has not read yet (nil if unknown).
    public static func unreadSent(_ fd: Int32) -> Int? {
        let n = kbs_unread_sent(fd)
        return n >= 0 ? Int(n) : nil
    }

    /// Sets SO_RCVTIMEO: a blocking receive gives up after this long.
    public static func setReceiveTimeout(_ fd: Int32, milliseconds: Int) throws(SystemError) {
        try setTimeout(fd, SO_RCVTIMEO, "SO_RCVTIMEO", milliseconds: milliseconds)
    }

    private static func setTimeout(_ fd: Int32, _ option: Int32, _ name: String, milliseconds: Int) throws(SystemError) {
        var tv = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        _ = try check("setsockopt(\(name))") {
            setsockopt(fd, SOL_SOCKET, option, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// One blocking receive: the byte count, 0 when SO_RCVTIMEO expired, nil at end of file.
    /// Not `waiting`: what is there now, 0 when nothing is.
    public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, waiting: Bool = true) throws(SystemError) -> Int? {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, waiting ? 0 : Int32(MSG_DONTWAIT))
            if n > 0 { return n }
            if n == 0 { return nil }
            let e = Glibc.errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return 0 }
            throw SystemError("recv", errno: e)
        }
    }

    /// Gives the CPU to another runnable thread of this CPU, if there is one.
    public static func yieldProcessor() { _ = sched_yield() }

    /// Unblocks SIGINT, SIGTERM, SIGHUP and SIGQUIT for the calling thread. A
    /// parent may hand down a mask that blocks them (Foundation's Process from
    /// a test runner does), which would make a daemon impossible to stop.
    public static func unblockTerminationSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Ignores SIGPIPE for this process: writes to a dead peer then fail with EPIPE.
    public static func ignoreSIGPIPE() { signal(SIGPIPE, SIG_IGN) }
}
