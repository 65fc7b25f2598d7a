import CKBShims
import Glibc

/// What a folder on a tmpfs holds: its files live in memory, which no process's
/// footprint shows. A keyboard whose container is on a tmpfs (a KBHOST_HOME under
/// a /tmp that is one, /dev/shm) could fill it, and the governor counts this
/// into its footprint.
public enum TmpfsUsage {
    /// What one file or folder costs beyond its pages: its inode and its name
    /// in the kernel's caches (shmem_inode_cache 0.75 KiB and a dentry 0.2 KiB
    /// on Linux 6.1 x86_64), rounded up.
    public static let bytesPerEntry = 1024

    /// How deep the walk goes (it holds a descriptor a level); a tree deeper than
    /// this counts as `limit` entries, so that nothing below it goes uncounted.
    public static let maximumDepth = 64

    /// Whether `path` is on a tmpfs.
    public static func isTmpfs(_ path: String) -> Bool {
        kbs_is_tmpfs(path) == 1
    }

    /// The memory the tree under `path` takes (its pages, `st_blocks`, and
    /// `bytesPerEntry` for each entry), walked without following a link and
    /// stopping after `limit` entries; nil when `path` cannot be opened.
    public static func usage(of path: String, limit: Int) -> (bytes: Int, entries: Int)? {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var total = (bytes: 0, entries: 0)
        walk(fd, limit: limit, depth: 0, into: &total)  // closes fd
        return total
    }

    private static func walk(_ fd: Int32, limit: Int, depth: Int, into total: inout (bytes: Int, entries: Int)) {
        guard let dir = fdopendir(fd) else {
            close(fd)
            return
        }
        defer { closedir(dir) }
        while total.entries < limit, let entry = readdir(dir) {
            // The name as the kernel gave it, bytes and all: a name that is not UTF-8, made into a
            // String, comes back repaired (U+FFFD) and names nothing, and the file under it went
            // uncounted (400 MiB under a 48 MiB budget, tenth red team, N3).
            var st = stat()
            let found = withUnsafeBytes(of: entry.pointee.d_name) { raw -> Int32? in
                let name = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
                if name[0] == 46 && (name[1] == 0 || (name[1] == 46 && name[2] == 0)) { return nil }  // "." and ".."
                return fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno
            }
            guard let found else { continue }
            if found == ENOENT { continue }  // removed since it was listed
            guard found == 0 else {
                // Listed but not to be looked at: whatever it holds is unseen, so the limit is reached.
                total.entries = max(total.entries, limit)
                return
            }
            total.entries += 1
            total.bytes += Int(st.st_blocks) * 512 + bytesPerEntry
            if st.st_mode & S_IFMT == S_IFDIR {
                // A folder deeper than the walk goes could hide any amount of memory
                // (red team 6 kept 1 GiB 70 folders down under a 30 MiB budget): it
                // counts as the walk's limit reached, so the governor ends the keyboard.
                guard depth < maximumDepth else {
                    total.entries = max(total.entries, limit)
                    return
                }
                let child = withUnsafeBytes(of: entry.pointee.d_name) {
                    openat(dirfd(dir), $0.baseAddress!.assumingMemoryBound(to: CChar.self), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                }
                if child >= 0 {
                    walk(child, limit: limit, depth: depth + 1, into: &total)
                } else if errno != ENOENT {
                    // A folder the walk may not read (made with mode 0300: search without read)
                    // hides what it holds just as well: 500 MiB under a 30 MiB budget, and the
                    // user could not even remove it (eighth red team, D). The limit is reached.
                    total.entries = max(total.entries, limit)
                    return
                }
            }
        }
    }
}
