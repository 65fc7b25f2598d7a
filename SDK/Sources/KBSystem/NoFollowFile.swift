public import Glibc

/// A file kbhost writes in a folder someone else filled (an installed bundle, copied from a
/// download): whatever was there under the name goes, and the file is created anew without
/// following a link, so that a link planted there is never written through.
public enum NoFollowFile {
    /// Removes what is at `path` (a link itself, never what it leads to) and creates a new file there holding `bytes`.
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws(SystemError) {
        if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink \(path)", errno: errno) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemError("create \(path)", errno: errno) }
        defer { Sys.close(fd) }
        try Sys.writeAll(fd, bytes)
    }

    /// Creates a new file at `path` holding `bytes`, with `mode` from the start: nothing may be there
    /// already (a link put in its place is never written through, nor chmod'ed).
    public static func create(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws(SystemError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemError("create \(path)", errno: errno) }
        defer { Sys.close(fd) }
        try Sys.writeAll(fd, bytes)
        _ = fchmod(fd, mode)  // (the umask may have taken bits away)
    }

    /// Whether `path` is itself a regular file (not a link, not a folder or a device).
    public static func isRegularFile(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
    }

    /// Whether two files hold the same bytes (a size that differs answers at once). Each is opened
    /// without waiting and must be a regular file: a FIFO swapped in for a library in a folder someone
    /// else owns left `kbhost type` and `attach` blocked in its open for good, checking whether the
    /// installed copy was stale (twenty-third red team, D). A link is resolved first, and the file
    /// it leads to opened without following another.
    public static func sameContents(_ a: String, _ b: String) -> Bool {
        let first = openRegular(a), second = openRegular(b)
        defer {
            if first >= 0 { Sys.close(first) }
            if second >= 0 { Sys.close(second) }
        }
        guard first >= 0, second >= 0 else { return false }
        var sa = stat(), sb = stat()
        guard fstat(first, &sa) == 0, fstat(second, &sb) == 0, sa.st_size == sb.st_size else { return false }
        var x = [UInt8](repeating: 0, count: 1 << 16), y = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            guard let n = try? x.withUnsafeMutableBytes({ try Sys.read(first, into: $0) }),
                  let m = try? y.withUnsafeMutableBytes({ try Sys.read(second, into: $0) }), n == m else { return false }
            if n == 0 { return true }
            guard x[..<n] == y[..<m] else { return false }
        }
    }

    /// A descriptor of the regular file at `path` (a link resolved first), opened without waiting, or -1.
    static func openRegular(_ path: String) -> Int32 {
        guard let resolved = realpath(path, nil) else { return -1 }
        defer { free(resolved) }
        var before = stat()
        guard stat(resolved, &before) == 0, before.st_mode & S_IFMT == S_IFREG else { return -1 }  // (no device is opened)
        let fd = open(resolved, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            Sys.close(fd)
            return -1
        }
        return fd
    }
}
