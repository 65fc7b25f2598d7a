import Glibc

/// Files that survive anything: replaced atomically (a temporary file in the
/// same folder, fsync, rename, fsync of the folder), under an exclusive lock
/// so concurrent writers never lose an update. A kill -9 at any moment leaves
/// either the old file or the new one, never a mix.
public enum AtomicFile {
    /// Runs `body` holding an exclusive flock on `lockPath` (created if needed).
    public static func withLock<T>(_ lockPath: String, _ body: () throws -> T) throws -> T {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("open \(lockPath)", errno: errno) }
        defer { Glibc.close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw SystemError("flock \(lockPath)", errno: errno) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// Reads a whole file; nil if it does not exist.
    public static func read(_ path: String) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw SystemError("open \(path)", errno: errno)
        }
        defer { Glibc.close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("read \(path)", errno: errno)
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<n])
        }
    }

    /// Replaces `path` with `bytes` atomically and durably.
    public static func write(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let dir = directory.isEmpty ? "." : directory
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let temporary = "\(dir)/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemError("create \(temporary)", errno: errno) }
        do {
            try Sys.writeAll(fd, bytes)
            guard fsync(fd) == 0 else { throw SystemError("fsync \(temporary)", errno: errno) }
            Glibc.close(fd)
        } catch {
            Glibc.close(fd)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let e = errno
            unlink(temporary)
            throw SystemError("rename \(temporary) → \(path)", errno: e)
        }
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            _ = fsync(dfd)
            Glibc.close(dfd)
        }
    }

    /// Creates a folder and its parents (mode 0700 for new ones).
    public static func makeDirectory(_ path: String) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw SystemError("mkdir \(current)", errno: errno)
            }
        }
    }
}
