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
    /// Its /proc/PID/maps ran past the bytes a count reads (`listingLimit`), and was read no further.
    public var listingCut = false

    /// The most of /proc/PID/maps a count reads. A few hundred mappings of a Swift keyboard take
    /// 50 KB there; 4,000 of a file 60 folders deep whose names were newlines took 250 MB, which the
    /// kernel took 0.6 s to write: every count that slow left the keyboard's files uncounted between
    /// counts for as long. A keyboard whose listing runs past this is ended.
    public static let listingLimit = 4 << 20

    /// Only its mappings and how many of them map a socket (`mappings`, `sockets`), for a keyboard
    /// whose files are not on a tmpfs, read up to one past `limit`; nil when the process is gone.
    public static func mappings(of pid: Int32, limit: Int = .max - 1) -> UnnamedFiles? {
        var result = UnnamedFiles()
        guard let read = forEachLine(of: "/proc/\(pid)/maps", byteLimit: listingLimit, { scan($0, into: &result, limit: limit) { _ in } })
        else { return nil }
        result.listingCut = read > listingLimit
        return result
    }

    /// Counts one line of /proc/PID/maps, and whether it maps a socket; hands over the line of a
    /// deleted file. False past `limit` mappings: reading on would change nothing (the governor ends
    /// a keyboard with more), and each line may take 64 KB of the kernel's writing.
    private static func scan(_ line: UnsafeBufferPointer<UInt8>, into result: inout UnnamedFiles, limit: Int,
                             deletedLine: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        result.mappings += 1
        guard let base = line.baseAddress else { return result.mappings <= limit }
        if line.count > 10 && memcmp(base + line.count - deleted.count, deleted, deleted.count) == 0 {
            deletedLine(line)
        } else if contains(base, line.count, socket) {
            result.sockets += 1
        }
        return result.mappings <= limit
    }

    /// The devices of `folders` (those that exist), for `held(by:on:)`.
    public static func devices(of folders: [String]) -> [UInt64] {
        folders.compactMap { folder in
            var st = stat()
            return stat(folder, &st) == 0 ? UInt64(st.st_dev) : nil
        }
    }

    /// What `pid` holds in regular files with no link left on one of `devices`, its mappings read up
    /// to one past `mappingLimit`; nil when the process is gone.
    public static func held(by pid: Int32, on devices: [UInt64], mappingLimit: Int = .max - 1) -> UnnamedFiles? {
        // No folder of its own on a tmpfs to look for: its mappings are still counted.
        guard !devices.isEmpty else { return mappings(of: pid, limit: mappingLimit) }
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
        guard let read = forEachLine(of: "/proc/\(pid)/maps", byteLimit: listingLimit,
                                     { scan($0, into: &result, limit: mappingLimit) { deletedLines.append(Array($0)) } })
        else { return nil }
        result.listingCut = read > listingLimit
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

    /// Calls `line` with each line of a /proc file (without its newline), read piece by piece into
    /// one buffer of `bufferBytes`, however long the file, and the memory stays the buffer's. (It was
    /// read whole up to 64 MiB, and the rest went unread: a keyboard whose mappings of a file 60
    /// folders deep, each folder's name 255 newlines — four bytes each in /proc/PID/maps — filled the
    /// first 64 MiB had a deleted file mapped past them uncounted, 400 MiB to 1.2 GB under a 48 MiB
    /// budget; twenty-first red team.) A line as long as the buffer or longer comes as its first
    /// `headBytes` and its last `tailBytes` joined: a mapping's fields are at the start of its line,
    /// its marks at the end. `line` answers whether to go on; past `byteLimit` bytes the file is read
    /// no further. The bytes read — `Int.max` when a read failed, which must count as past any limit:
    /// what follows was not seen (a line too long for the kernel to write fails with ENOMEM) — or nil
    /// when the file cannot be opened. /proc/PID/maps is no snapshot: each read resumes at an address,
    /// so a mapping moved below it meanwhile is not seen by that count (a later one sees it).
    static func forEachLine(of path: String, bufferBytes: Int = 1 << 20, headBytes: Int = 256, tailBytes: Int = 64,
                            byteLimit: Int = .max, _ line: (UnsafeBufferPointer<UInt8>) -> Bool) -> Int? {
        precondition(headBytes + tailBytes <= bufferBytes, "a long line's head and tail fit in the buffer")
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Sys.close(fd) }
        guard let raw = malloc(bufferBytes) else { return nil }
        defer { free(raw) }
        let memory = raw.assumingMemoryBound(to: UInt8.self)
        var length = 0                   // bytes held, the start of a line not yet ended
        var long: (head: [UInt8], tail: [UInt8])?  // a line longer than the buffer, while the rest of it is read
        var total = 0
        func end(_ piece: UnsafeBufferPointer<UInt8>) -> Bool {
            guard var whole = long else { return line(piece) }
            whole.tail = Array((whole.tail + piece).suffix(tailBytes))
            long = nil
            return (whole.head + whole.tail).withUnsafeBufferPointer(line)
        }
        while true {
            if length == bufferBytes {  // one line fills the buffer: its head kept, its middle let go
                if long == nil { long = (Array(UnsafeBufferPointer(start: memory, count: min(headBytes, length))), []) }
                long!.tail = Array(UnsafeBufferPointer(start: memory + length - min(tailBytes, length), count: min(tailBytes, length)))
                length = 0
            }
            let n: Int
            do { n = try Sys.read(fd, into: UnsafeMutableRawBufferPointer(start: memory + length, count: bufferBytes - length)) } catch {
                if error.errno == ESRCH { return nil }  // the process went meanwhile
                return .max  // fails closed: the rest is unseen
            }
            if n == 0 { break }
            total += n
            var start = 0, from = length
            length += n
            while from < length, let hit = memchr(memory + from, 10, length - from) {
                let at = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - UnsafePointer(memory)
                guard end(UnsafeBufferPointer(start: memory + start, count: at - start)) else { return total }
                (start, from) = (at + 1, at + 1)
            }
            if start > 0 {
                memmove(memory, memory + start, length - start)
                length -= start
            }
            if total > byteLimit { return total }  // (its last line unfinished: not handed over)
        }
        if length > 0 || long != nil { _ = end(UnsafeBufferPointer(start: memory, count: length)) }  // a last line without its newline
        return total
    }
}
