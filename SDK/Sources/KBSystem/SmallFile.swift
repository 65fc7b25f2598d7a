import CKBShims
import Glibc

/// A small file that someone else wrote (a keyboard's manifest): read whole, but only if it
/// is a regular file no larger than a limit. A FIFO, a device (`/dev/zero`) or a folder in
/// its place is refused at once instead of blocking or filling memory: the file is opened
/// non-blocking and checked with fstat before a byte is read.
public enum SmallFile {
    /// Why a small file could not be read.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// Nothing is there (or a link leads nowhere).
        case missing
        /// Something other than a regular file: its kind ("a folder", "a FIFO", "a device"…).
        case notARegularFile(kind: String)
        /// Larger than the limit: its size in bytes (at least limit + 1 when it grew while read).
        case tooLarge(bytes: Int, limit: Int)
        /// open, fstat or read failed.
        case system(SystemError)

        public var description: String {
            switch self {
            case .missing: "does not exist"
            case .notARegularFile(let kind): "is \(kind), not a file"
            case .tooLarge(let bytes, let limit): "is \(bytes) bytes long; at most \(limit) are read"
            case .system(let error): "cannot be read (\(error))"
            }
        }
    }

    /// The bytes of the regular file at `path`, if it holds at most `limit` of them.
    ///
    /// What is there is looked at (O_PATH) before it is opened for reading, and only a regular file is:
    /// a device is never opened (a manifest linked to /dev/ptmx made every `kbhost list` of the user's
    /// open a terminal, and /dev/watchdog would be armed: twenty-sixth red team). The regular file is
    /// opened through its O_PATH descriptor (/proc/self/fd), so it is the one that was looked at.
    public static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let handle = kbs_open_path(path)
        guard handle >= 0 else {
            let e = errno
            throw e == ENOENT || e == ENOTDIR ? .missing : .system(SystemError("open", errno: e))
        }
        defer { Sys.close(handle) }
        var st = stat()
        guard fstat(handle, &st) == 0 else { throw .system(SystemError("fstat", errno: errno)) }
        try checkRegular(st)
        var fd = open("/proc/self/fd/\(handle)", O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if fd < 0 && errno == ENOENT { fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }  // (no /proc: by its path)
        guard fd >= 0 else { throw .system(SystemError("open", errno: errno)) }
        defer { Sys.close(fd) }
        guard fstat(fd, &st) == 0 else { throw .system(SystemError("fstat", errno: errno)) }
        try checkRegular(st)
        return try readAll(fd, st, limit: limit)
    }

    private static func checkRegular(_ st: stat) throws(Failure) {
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw .notARegularFile(kind: "a folder")
        case S_IFIFO: throw .notARegularFile(kind: "a FIFO")
        case S_IFSOCK: throw .notARegularFile(kind: "a socket")
        case S_IFCHR, S_IFBLK: throw .notARegularFile(kind: "a device")
        default: throw .notARegularFile(kind: "a special file")
        }
    }

    private static func readAll(_ fd: Int32, _ st: stat, limit: Int) throws(Failure) -> [UInt8] {
        guard st.st_size <= limit else { throw .tooLarge(bytes: Int(st.st_size), limit: limit) }
        // Room for one byte more than fstat said, up to one more than the limit: a file that
        // grew since fstat is read on, and refused once it passes the limit.
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard bytes.count <= limit else { break }
                bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, limit + 1 - bytes.count)))
            }
            let n = bytes.withUnsafeMutableBytes { buffer in Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(SystemError("read", errno: errno))
            }
            count += n
        }
        guard count <= limit else { throw .tooLarge(bytes: count, limit: limit) }
        bytes.removeSubrange(count...)
        return bytes
    }
}
