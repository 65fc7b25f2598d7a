import Glibc

/// Files on a tmpfs that a process keeps alive with no name left: unlinked (or
/// made with O_TMPFILE) while a descriptor or a mapping still holds them. Their
/// pages stay in memory until the last reference goes, and no walk of a folder
/// finds them: the sixth red team kept 1 GiB in one such file under a 30 MiB
/// budget, and 600 MiB in thirty 20 MiB files each held by a one-page mapping
/// (R6-1). The governor counts them with the folders' walk (`TmpfsUsage`).
///
/// A descriptor's file is stat'ed through /proc/PID/fd (what the process's owner
/// may do). A mapping's file only through /proc/PID/map_files, which Linux opens
/// for CAP_CHECKPOINT_RESTORE (or CAP_SYS_ADMIN) alone: run as an ordinary user,
/// such a mapping is counted as `unreadable`, and the governor ends a keyboard
/// that keeps one, as it cannot know what it holds.
public struct UnnamedFiles: Hashable, Sendable {
    /// Their pages (`st_blocks`), each file once however many references hold it.
    public var bytes = 0
    public var files = 0
    /// Deleted files on those devices, held by a mapping, that could not be stat'ed.
    public var unreadable = 0
    /// How many mappings it has (/proc/PID/maps' lines).
    public var mappings = 0
    /// How many of them map a socket (`socket:[…]`): a TCP socket may be mapped (for zero-copy
    /// receive), and the mapping keeps it open, queues and all, with no descriptor left (tenth red team, N4).
    public var sockets = 0

    /// Only its mappings and how many of them map a socket (`mappings`, `sockets`), for a keyboard
    /// whose files are not on a tmpfs; nil when the process is gone.
    public static func mappings(of pid: Int32) -> UnnamedFiles? {
        var result = UnnamedFiles()
        guard withContents(of: "/proc/\(pid)/maps", { scan($0, into: &result) { _ in } }) != nil else { return nil }
        return result
    }

    /// Counts the lines of /proc/PID/maps in place, and those that map a socket; hands over
    /// the lines of deleted files.
    private static func scan(_ b: UnsafeBufferPointer<UInt8>, into result: inout UnnamedFiles, deletedLine: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard let base = b.baseAddress else { return }
        var start = 0
        while start < b.count {
            let end = memchr(base + start, 10, b.count - start).map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - base } ?? b.count
            result.mappings += 1
            if end - start > 10 && memcmp(base + end - deleted.count, deleted, deleted.count) == 0 {
                deletedLine(UnsafeBufferPointer(rebasing: b[start..<end]))
            } else if contains(base + start, end - start, socket) {
                result.sockets += 1
            }
            start = end + 1
        }
    }

    /// The devices of `folders` (those that exist), for `held(by:on:)`.
    public static func devices(of folders: [String]) -> [UInt64] {
        folders.compactMap { folder in
            var st = stat()
            return stat(folder, &st) == 0 ? UInt64(st.st_dev) : nil
        }
    }

    /// What `pid` holds in regular files with no link left on one of `devices`;
    /// nil when the process is gone.
    public static func held(by pid: Int32, on devices: [UInt64]) -> UnnamedFiles? {
        guard !devices.isEmpty else { return UnnamedFiles() }
        var result = UnnamedFiles()
        var seen: Set<UInt64> = []
        // Descriptors: stat follows /proc/PID/fd/N to the open file itself.
        guard let dir = opendir("/proc/\(pid)/fd") else { return nil }
        let folder = dirfd(dir)
        while let entry = readdir(dir) {
            var st = stat()
            let found = Sys.withEntryName(entry) { name -> Bool in
                guard let first = name.first, first != 46 /* "." */ else { return false }
                return fstatat(folder, name.baseAddress!.assumingMemoryBound(to: CChar.self), &st, 0) == 0
            }
            guard found, st.st_mode & S_IFMT == S_IFREG, st.st_nlink == 0, devices.contains(UInt64(st.st_dev)),
                  seen.insert(UInt64(st.st_ino)).inserted else { continue }
            result.bytes += Int(st.st_blocks) * 512
            result.files += 1
        }
        closedir(dir)
        // Mappings: "start-end perms offset major:minor inode path (deleted)".
        // Scanned in place: a keyboard may have 65,530 mappings, and splitting them all into
        // arrays took a debug build 2.3 s a count (ninth red team, L). Only "(deleted)" lines are split.
        var deletedLines: [[UInt8]] = []
        guard withContents(of: "/proc/\(pid)/maps", { scan($0, into: &result) { deletedLines.append(Array($0)) } }) != nil else { return nil }
        for line in deletedLines {
            let fields = line.split(separator: 32, maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, let device = parseDevice(fields[3]), devices.contains(device),
                  let inode = UInt64(String(decoding: fields[4], as: UTF8.self)), inode != 0,
                  !seen.contains(inode) else { continue }
            var st = stat()
            let range = String(decoding: fields[0], as: UTF8.self)
            if stat("/proc/\(pid)/map_files/\(range)", &st) == 0 {
                guard st.st_mode & S_IFMT == S_IFREG, st.st_nlink == 0, UInt64(st.st_ino) == inode else { continue }
                seen.insert(inode)
                result.bytes += Int(st.st_blocks) * 512
                result.files += 1
            } else if errno == EPERM || errno == EACCES {
                seen.insert(inode)
                result.unreadable += 1
            }
        }
        return result
    }

    private static let deleted = Array(" (deleted)".utf8)
    private static let socket = Array(" socket:[".utf8)

    private static func contains(_ line: UnsafePointer<UInt8>, _ count: Int, _ pattern: [UInt8]) -> Bool {
        guard count >= pattern.count else { return false }
        var i = 0
        while i + pattern.count <= count {
            guard let hit = memchr(line + i, Int32(pattern[0]), count - pattern.count + 1 - i) else { return false }
            let at = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - line
            if memcmp(line + at, pattern, pattern.count) == 0 { return true }
            i = at + 1
        }
        return false
    }

    /// "00:1b" (hexadecimal major:minor, as /proc/PID/maps writes it) as a dev_t.
    static func parseDevice(_ text: ArraySlice<UInt8>) -> UInt64? {
        let parts = text.split(separator: 58 /* ":" */)
        guard parts.count == 2, let major = UInt64(String(decoding: parts[0], as: UTF8.self), radix: 16),
              let minor = UInt64(String(decoding: parts[1], as: UTF8.self), radix: 16) else { return nil }
        // glibc's makedev, a macro Swift does not import.
        return (major & 0xfffff000) << 32 | (major & 0xfff) << 8 | (minor & 0xffffff00) << 12 | (minor & 0xff)
    }

    /// Calls `body` with a /proc file read whole (its size reads 0), up to 64 MiB, in memory of
    /// its own that is never initialized element by element (a debug build took 130 ms a count
    /// growing an array for 4,000 mappings); nil when it cannot be opened.
    static func withContents<T>(of path: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Sys.close(fd) }
        var capacity = 64 * 1024
        guard var memory = malloc(capacity) else { return nil }
        defer { free(memory) }
        var length = 0
        while true {
            if length == capacity {
                guard capacity < 64 << 20, let grown = realloc(memory, capacity * 2) else { break }
                memory = grown
                capacity *= 2
            }
            let n = (try? Sys.read(fd, into: UnsafeMutableRawBufferPointer(start: memory + length, count: capacity - length))) ?? 0
            if n <= 0 { break }
            length += n
        }
        return body(UnsafeBufferPointer(start: memory.assumingMemoryBound(to: UInt8.self), count: length))
    }
}
