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

    /// Whether `path` is itself a regular file (not a link, not a folder or a device).
    public static func isRegularFile(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
    }
}
