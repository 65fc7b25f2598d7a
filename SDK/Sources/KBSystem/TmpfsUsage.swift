import CKBShims
import Glibc
import Synchronization

/// What a folder on a tmpfs holds: its files live in memory, which no process's
/// footprint shows. A keyboard whose container is on a tmpfs (a KBHOST_HOME under
/// a /tmp that is one, /dev/shm) could fill it, and the governor counts this
/// into its footprint.
///
/// A walk is no snapshot, and the keyboard writes the folders while they are walked: a file
/// renamed behind the walk as it passes, and back ahead of it afterwards, is never listed
/// (nineteenth red team: 400 MiB–1.2 GB held under a 48 MiB budget, the walk's coming read from
/// the folders' access times). So the walk leaves no access time (O_NOATIME), goes through each
/// folder in an order of its own (shuffled, walk by walk), and files it once found large stay
/// counted wherever they move, for as long as they exist (`Tracked`).
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

    /// A file's identity: its device and inode.
    public struct FileID: Hashable, Sendable {
        let device: UInt64, inode: UInt64
        init(_ st: stat) { (device, inode) = (UInt64(st.st_dev), UInt64(st.st_ino)) }
    }

    /// The files of at least `bytes` that walks of one keyboard's folders found, at most `capacity`
    /// of them, each held by an O_PATH descriptor (which reads nothing and follows the file through
    /// renames). One the last walk did not list is counted by its descriptor while it has a name
    /// anywhere; once it has none it is let go (its pages are freed when the keyboard lets go too).
    /// With `bytes` at least budget / `capacity`, a keyboard cannot fill the places without going over.
    public final class Tracked: Sendable {
        public let bytes: Int, capacity: Int
        private let files = Mutex<[FileID: Int32]>([:])
        /// Set by `letGo`: nothing is held from then on.
        private let over = Mutex(false)

        public init(bytes: Int, capacity: Int) {
            (self.bytes, self.capacity) = (bytes, capacity)
        }

        deinit {
            files.withLock { for fd in $0.values { close(fd) } }
        }

        /// How many are held (for tests).
        public var count: Int { files.withLock { $0.count } }

        /// Lets every file go (its keyboard ended: nothing of it is held for it any more), even while
        /// a count that has this set under way still runs.
        public func letGo() {
            over.withLock { $0 = true }
            files.withLock { files in
                for fd in files.values { close(fd) }
                files = [:]
            }
        }

        /// Holds `name` in `dir`, found as `st`, if it is large, not held yet and there is room; lets
        /// it go if it is no longer large (a keyboard had truncated files keep every place taken).
        func note(_ name: UnsafePointer<CChar>, in dir: Int32, _ st: stat) {
            let id = FileID(st)
            guard Int(st.st_blocks) * 512 >= bytes else {
                files.withLock { if let fd = $0.removeValue(forKey: id) { close(fd) } }
                return
            }
            files.withLock { files in
                // (Asked under this lock: a `letGo` that comes meanwhile waits for it, and lets this go too.)
                guard !over.withLock({ $0 }), files[id] == nil, files.count < capacity else { return }
                let fd = kbs_openat_path(dir, name)
                guard fd >= 0 else { return }
                var now = stat()
                guard fstat(fd, &now) == 0, FileID(now) == id else {  // replaced since
                    close(fd)
                    return
                }
                files[id] = fd
            }
        }

        /// What the held files the walk did not list hold (those with a name left); the others are let go.
        func unlisted(besides listed: Set<FileID>) -> (bytes: Int, entries: Int) {
            files.withLock { files in
                var total = (bytes: 0, entries: 0)
                for (id, fd) in files where !listed.contains(id) {
                    var st = stat()
                    let named = fstat(fd, &st) == 0 && st.st_nlink > 0
                    if named { total = (total.bytes + Int(st.st_blocks) * 512 + TmpfsUsage.bytesPerEntry, total.entries + 1) }
                    if !named || Int(st.st_blocks) * 512 < bytes {  // gone, or no longer large: its place is free
                        close(fd)
                        files[id] = nil
                    }
                }
                return total
            }
        }
    }

    /// The memory the trees under `paths` take (their pages, `st_blocks`, and `bytesPerEntry` for
    /// each entry), walked without following a link and stopping after `limit` entries in all,
    /// plus the files `tracked` holds that the walk did not list. Paths that cannot be opened add nothing.
    public static func usage(of paths: [String], limit: Int, tracked: Tracked? = nil) -> (bytes: Int, entries: Int) {
        var walk = Walk(limit: limit, tracked: tracked)
        for path in paths where walk.entries < limit {
            let fd = kbs_openat_unseen(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            walk.folder(fd, depth: 0)  // closes fd
        }
        guard let tracked else { return (walk.bytes, walk.entries) }
        let unlisted = tracked.unlisted(besides: walk.listed)
        return (walk.bytes + unlisted.bytes, walk.entries + unlisted.entries)
    }

    /// The memory the tree under `path` takes (see `usage(of:limit:tracked:)`); nil when `path` cannot be opened.
    public static func usage(of path: String, limit: Int) -> (bytes: Int, entries: Int)? {
        let fd = kbs_openat_unseen(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var walk = Walk(limit: limit, tracked: nil)
        walk.folder(fd, depth: 0)
        return (walk.bytes, walk.entries)
    }

    private struct Walk {
        let limit: Int
        let tracked: Tracked?
        var bytes = 0, entries = 0
        /// The large files listed (those `tracked` may hold).
        var listed: Set<FileID> = []

        init(limit: Int, tracked: Tracked?) { (self.limit, self.tracked) = (limit, tracked) }

        /// Names listed that were gone when looked at, in this walk; past `vanishedLimit` the walk
        /// counts as full. A folder renamed back and forth in a tight loop, or a file renamed to a new
        /// name nonstop, was gone under each name the walk listed, and never counted, however much it
        /// held (a review; the twentieth red team: 400 MiB-1.2 GB under a 48 MiB budget). Each costs a
        /// listing of its folder again; a file saved by a rename now and then costs one.
        var vanished = 0
        static let vanishedLimit = 4

        /// Counts the folder open at `fd` and what is under it; closes `fd`. Where a name it listed
        /// was gone when looked at, the folder is listed again and counted afresh.
        mutating func folder(_ fd: Int32, depth: Int) {
            guard let dir = fdopendir(fd) else {
                close(fd)
                return
            }
            defer { closedir(dir) }
            let start = (bytes, entries, listed)
            while true {
                guard listing(dir, depth: depth) else { return }
                guard vanished <= Self.vanishedLimit else {
                    entries = max(entries, limit)
                    return
                }
                (bytes, entries, listed) = start
                rewinddir(dir)
            }
        }

        /// One listing of `dir`: false when it was counted whole (or the limit reached), true when a
        /// name it listed was gone.
        mutating func listing(_ dir: OpaquePointer, depth: Int) -> Bool {
            // The names first, then each in an order of this walk's own: a keyboard cannot know which
            // of its folders, or which name in one, is looked at next. The name as the kernel gave it,
            // bytes and all: a name that is not UTF-8, made into a String, comes back repaired (U+FFFD)
            // and names nothing, and the file under it went uncounted (400 MiB under a 48 MiB budget,
            // tenth red team, N3).
            var names: [[CChar]] = []
            while entries + names.count < limit, let entry = readdir(dir) {
                let name = Sys.withEntryName(entry) { raw -> [CChar]? in
                    if raw.elementsEqual([46]) || raw.elementsEqual([46, 46]) { return nil }  // "." and ".."
                    return raw.map { CChar(bitPattern: $0) } + [0]
                }
                if let name { names.append(name) }
            }
            names.shuffle()
            for name in names where entries < limit {
                var st = stat()
                let found = fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno
                if found == ENOENT {  // removed, or renamed, since it was listed
                    vanished += 1
                    return true
                }
                guard found == 0 else {
                    // Listed but not to be looked at: whatever it holds is unseen, so the limit is reached.
                    entries = max(entries, limit)
                    return false
                }
                entries += 1
                bytes += Int(st.st_blocks) * 512 + TmpfsUsage.bytesPerEntry
                if let tracked, st.st_mode & S_IFMT == S_IFREG {
                    listed.insert(FileID(st))  // every one: a held file grown small is counted here, not twice
                    tracked.note(name, in: dirfd(dir), st)
                }
                guard st.st_mode & S_IFMT == S_IFDIR else { continue }
                // A folder deeper than the walk goes could hide any amount of memory
                // (red team 6 kept 1 GiB 70 folders down under a 30 MiB budget): it
                // counts as the walk's limit reached, so the governor ends the keyboard.
                guard depth < TmpfsUsage.maximumDepth else {
                    entries = max(entries, limit)
                    return false
                }
                let child = kbs_openat_unseen(dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child >= 0 {
                    folder(child, depth: depth + 1)
                } else if errno == ENOENT {
                    vanished += 1
                    return true
                } else {
                    // A folder the walk may not read (made with mode 0300: search without read)
                    // hides what it holds just as well: 500 MiB under a 30 MiB budget, and the
                    // user could not even remove it (eighth red team, D). The limit is reached.
                    entries = max(entries, limit)
                    return false
                }
            }
            return false
        }
    }
}
