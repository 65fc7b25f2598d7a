public import Glibc

/// Files that survive anything: replaced atomically (a temporary file in the
/// same folder, fsync, rename, fsync of the folder), under an exclusive lock
/// so concurrent writers never lose an update. A kill -9 at any moment leaves
/// either the old file or the new one, never a mix.
///
/// These take paths and follow links: they are for kbhost's own files
/// (settings, the pasteboard). Inside a container, which a keyboard can write,
/// use `Directory`.
public enum AtomicFile {
    /// Runs `body` holding an exclusive flock on `lockPath` (created if needed).
    public static func withLock<T>(_ lockPath: String, _ body: () throws -> T) throws -> T {
        let fd = try Sys.check("open \(lockPath)") { open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        defer { Sys.close(fd) }
        return try FileBytes.locked(fd, path: lockPath, body)
    }

    /// Reads a whole file; nil if it does not exist.
    public static func read(_ path: String) throws -> [UInt8]? {
        let fd: Int32
        do {
            fd = try Sys.check("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
        } catch {
            if error.errno == ENOENT { return nil }
            throw error
        }
        defer { Sys.close(fd) }
        return try FileBytes.readAll(fd, path: path)
    }

    /// Replaces `path` with `bytes` atomically and durably.
    public static func write(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let folder = parts.dropLast().joined(separator: "/")
        let directory = folder.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : folder
        guard let opened = try Directory.open(trusted: directory) else {
            throw SystemError("open \(directory)", errno: ENOENT)
        }
        try opened.write(String(parts.last ?? ""), bytes, mode: mode, onlyKbhostWrites: true)
    }

    /// Makes the folder at `path` 0700 through a descriptor of the folder itself (no link followed),
    /// and only when it belongs to this user: a chmod by path follows a link someone else put there.
    public static func makePrivate(_ path: String) {
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return }
        defer { Sys.close(folder) }
        var status = stat()
        if fstat(folder, &status) == 0 && status.st_uid == getuid() { _ = fchmod(folder, 0o700) }
    }

    /// A new folder of this user's, 0700, made by mkdtemp under the temporary folder with a name no
    /// one could have taken first: a name made of the pid in /tmp was another user's to take (a
    /// folder of theirs, a link to the user's own settings; twenty-fourth red team).
    public static func makeTemporaryFolder(prefix: String) throws(SystemError) -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw SystemError("mkdtemp \(base)/\(prefix)-XXXXXX", errno: errno) }
        return String(cString: template)
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

/// What AtomicFile and Directory do once a file is open.
enum FileBytes {
    /// Everything to the end, or (with `limit`) a little more than `limit` bytes at most:
    /// the caller sees a count over the limit and refuses the file.
    static func readAll(_ fd: Int32, path: String, stoppingAfter limit: Int = .max) throws(SystemError) -> [UInt8] {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
        defer { chunk.deallocate() }
        var bytes: [UInt8] = []
        while bytes.count <= limit {
            let n = try Sys.check("read \(path)") { Glibc.read(fd, chunk.baseAddress, chunk.count) }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<n])
        }
        return bytes
    }

    /// Runs `body` holding an exclusive flock on `fd`: waiting as long as it
    /// takes, or at most `seconds` (a lock someone else may hold forever — a
    /// keyboard with open access holds its group's while it writes).
    static func locked<T>(_ fd: Int32, path: String, waitingAtMost seconds: Double? = nil, _ body: () throws -> T) throws -> T {
        if let seconds {
            let deadline = Sys.monotonicNanoseconds() + Int64(seconds * 1e9)
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let e = Glibc.errno
                guard e == EWOULDBLOCK || e == EINTR else { throw SystemError("flock \(path)", errno: e) }
                guard Sys.monotonicNanoseconds() < deadline else {
                    throw SystemError("\(path) has been locked by another process for \(Int(seconds)) s (a keyboard with open access "
                                      + "writing its group's defaults holds it; end that keyboard, then try again)", errno: EWOULDBLOCK)
                }
                usleep(10_000)
            }
        } else {
            _ = try Sys.check("flock \(path)") { flock(fd, LOCK_EX) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
