public import Glibc

// The C calls this file makes, each by one private name, as Sys's files do.
private let sysLstat: @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<stat>) -> CInt = lstat

/// One process at a time: an exclusive flock on a file, held for the holder's life (the
/// kernel lets go of it when the process ends, however it ends), with the holder's pid
/// written inside. What `kbhost serve` holds, so that two daemons started at once cannot both
/// take the socket, and one started beside a live daemon cannot steal it.
public final class InstanceLock {
    public let fd: Int32

    /// Takes the lock on `path` (created 0600, never through a link) without waiting; nil when
    /// another process holds it.
    public static func take(_ path: String) throws(SystemError) -> InstanceLock? {
        let fd = try Sys.check("open \(path)") { open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let e = errno
            if e == EINTR { continue }
            Sys.close(fd)
            if e == EWOULDBLOCK { return nil }
            throw SystemError("flock \(path)", errno: e)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return InstanceLock(fd: fd)
    }

    /// Takes it, waiting at most `seconds`; nil if it stayed held.
    public static func take(_ path: String, waitingAtMost seconds: Double) throws(SystemError) -> InstanceLock? {
        let deadline = Sys.monotonicNanoseconds() + Int64(seconds * 1e9)
        while true {
            if let lock = try take(path) { return lock }
            if Sys.monotonicNanoseconds() > deadline { return nil }
            usleep(20_000)
        }
    }

    private init(fd: Int32) { self.fd = fd }

    /// The pid the holder wrote; nil when nobody holds the lock (or it has not written it yet).
    public static func holder(_ path: String) -> Int32? {
        guard let text = try? SmallFile.read(path, limit: 64),
              let pid = Int32(String(decoding: text, as: UTF8.self).split(separator: "\n").first ?? ""), pid > 0 else { return nil }
        // Held? A lock we can take is nobody's (and is let go of at once).
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { Sys.close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return nil }
        return pid
    }

    deinit { Sys.close(fd) }
}

/// What a socket file is, to remove it only while it is still one's own: a daemon ending
/// after another took its place (`serve --replace`, or a start that found the file gone)
/// must not remove the newcomer's socket.
public struct FileIdentity: Equatable, Sendable {
    public let device: UInt64
    public let inode: UInt64

    public init?(_ path: String) {
        var st = stat()
        guard sysLstat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }

    /// Removes `path` if it is still this file; true if it did.
    @discardableResult
    public func remove(_ path: String) -> Bool {
        guard FileIdentity(path) == self else { return false }
        return unlink(path) == 0
    }
}

/// The socket the signal handlers remove, and what it was (handlers may not allocate).
nonisolated(unsafe) private var signalPath: UnsafeMutablePointer<CChar>?
nonisolated(unsafe) private var signalDevice: UInt64 = 0
nonisolated(unsafe) private var signalInode: UInt64 = 0

extension FileIdentity {
    /// The signals that end a daemon cleanly.
    public static let endingSignals = [SIGINT, SIGTERM, SIGHUP]

    /// Runs `body` with the ending signals held back: one that comes while a socket is
    /// made and before its identity is recorded is handled afterwards, and removes it.
    public static func holdingSignals<T>(_ body: () throws -> T) rethrows -> T {
        var set = sigset_t(), old = sigset_t()
        sigemptyset(&set)
        for signal in endingSignals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        return try body()
    }

    /// SIGINT, SIGTERM and SIGHUP remove `path` (if it is still `identity`, checked with
    /// lstat, which a handler may call) and end the process with status 0. With nil, a
    /// signal ends the process without removing anything.
    public static func removeOnSignals(_ path: String, _ identity: FileIdentity?) {
        signalDevice = identity?.device ?? 0
        signalInode = identity?.inode ?? 0
        signalPath = identity == nil ? nil : strdup(path)
        for signal in endingSignals {
            _ = Glibc.signal(signal) { _ in
                if let path = signalPath {
                    var st = stat()
                    if sysLstat(path, &st) == 0, UInt64(st.st_dev) == signalDevice, UInt64(st.st_ino) == signalInode {
                        unlink(path)
                    }
                }
                _exit(0)
            }
        }
    }
}
