public import CKBShims
import Glibc

/// Stream sockets on a filesystem path: the daemon's control socket.
public enum UnixSocket {
    private static func address(_ path: String) throws(SystemError) -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { throw SystemError("socket path too long: \(path)", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        return addr
    }

    /// Listens on `path` (mode 0600; a stale socket file is replaced).
    public static func listen(_ path: String) throws(SystemError) -> Int32 {
        let fd = try Sys.check("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        var addr = try address(path)
        unlink(path)
        let oldMask = umask(0o177)
        defer { umask(oldMask) }
        do {
            _ = try Sys.check("bind \(path)") {
                withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            }
            _ = try Sys.check("listen") { Glibc.listen(fd, 64) }
        } catch {
            Sys.close(fd)
            throw error
        }
        chmod(path, 0o600)
        return fd
    }

    /// Connects to `path`; nil if nobody listens there.
    public static func connect(_ path: String) -> Int32? {
        try? connect(path, timeoutMilliseconds: nil).get()
    }

    /// Connects to `path`, waiting at most `timeoutMilliseconds` (which then also bounds every
    /// read and write): a listener that does not accept (suspended, stuck) fills its backlog,
    /// and a connect to it then blocks until it accepts — forever, without a timeout. EAGAIN
    /// says it did not accept in time; ENOENT or ECONNREFUSED that nobody listens.
    public static func connect(_ path: String, timeoutMilliseconds: Int?) -> Result<Int32, SystemError> {
        let addr: sockaddr_un
        do { addr = try address(path) } catch { return .failure(error) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(SystemError("socket", errno: errno)) }
        if let timeoutMilliseconds { setTimeout(fd, milliseconds: timeoutMilliseconds) }  // connect(2) honours SO_SNDTIMEO
        var a = addr
        var r: Int32
        repeat {
            r = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        } while r != 0 && errno == EINTR
        if r != 0 {
            let e = errno
            Sys.close(fd)
            return .failure(SystemError("connect \(path)", errno: e))
        }
        return .success(fd)
    }

    /// Whether something listens on `path` (a connection is made and closed at once).
    public static func answers(_ path: String) -> Bool {
        guard let fd = connect(path) else { return false }
        Sys.close(fd)
        return true
    }

    public static func accept(_ fd: Int32) -> Int32? {
        let client = Glibc.accept(fd, nil, nil)
        guard client >= 0 else { return nil }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return client
    }

    /// Makes blocking reads and writes on `fd` give up (EAGAIN) after this long.
    public static func setTimeout(_ fd: Int32, milliseconds: Int) {
        var tv = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            _ = setsockopt(fd, SOL_SOCKET, option, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// The uid of the process at the other end (SO_PEERCRED).
    public static func peerUID(_ fd: Int32) -> uid_t? {
        var uid: uid_t = 0
        return kbs_peer_uid(fd, &uid) == 0 ? uid : nil
    }
}

/// Newline-delimited messages on a stream socket.
public struct LineChannel {
    public let fd: Int32
    private var buffer: [UInt8] = []
    public static let maximumLine = 1 << 20

    public init(fd: Int32) { self.fd = fd }

    public func send(_ line: String) throws(SystemError) {
        try Sys.sendAll(fd, Array(line.utf8) + [10])
    }

    /// The next line; nil at end of file. Blocks.
    public mutating func receive() throws(SystemError) -> String? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard buffer.count < LineChannel.maximumLine else { throw SystemError("line too long", errno: EMSGSIZE) }
            let n = try chunk.withUnsafeMutableBytes { b in
                Result { () throws(SystemError) -> Int in try Sys.read(fd, into: b) }
            }.get()
            if n == 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// The lines that have come, without waiting (the descriptor must be non-blocking): none
    /// while a line is still partial; nil at end of file or when the read failed.
    public mutating func receiveAvailable() -> [String]? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            guard let n = chunk.withUnsafeMutableBytes({ try? Sys.readAvailable(fd, into: $0) }) else { return nil }
            if n == 0 { break }
            buffer.append(contentsOf: chunk[..<n])
            guard buffer.count <= LineChannel.maximumLine || buffer.contains(10) else { return nil }
        }
        var lines: [String] = []
        while let newline = buffer.firstIndex(of: 10) {
            lines.append(String(decoding: buffer[..<newline], as: UTF8.self))
            buffer.removeSubrange(...newline)
        }
        return lines
    }

    /// Lines already received, without blocking (the fd must be readable or non-blocking).
    public var hasBufferedLine: Bool { buffer.contains(10) }
}
