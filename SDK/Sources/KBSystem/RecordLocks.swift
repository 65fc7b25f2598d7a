import Glibc

/// File locks a process holds: kernel memory its footprint in /proc/PID/status
/// does not show. Each lock is one `file_lock` in unreclaimable slab, and Linux
/// bounds their number per process by nothing (RLIMIT_LOCKS is not enforced): a
/// keyboard locking every other byte of its files held 266 MB this way under a
/// 48 MiB budget (fourth red team, N4). The governor adds what a keyboard's
/// locks take to its footprint.
///
/// They are counted in /proc/PID/fdinfo, where each descriptor lists the locks
/// taken through it ("lock:" lines), not in /proc/locks: that file restarts its
/// walk of every lock in the system at each 4 KiB read, and took 3.8 s to read
/// with 150,000 locks held (1.3 s with 100,000); the fdinfo of the same process
/// took 0.38 s, and costs nothing for a process that holds none.
public enum RecordLocks {
    /// What one lock takes in the kernel: the slab's object stride for
    /// `file_lock_cache` (SLUB's sysfs), else 192 bytes (Linux 6.1–6.18 on
    /// x86_64; 1,388,677 locks raised SUnreclaim by 267 MB, 192 bytes each).
    public static let bytesPerLock: Int = {
        guard let bytes = try? SmallFile.read("/sys/kernel/slab/file_lock_cache/slab_size", limit: 64),
              let value = Int(String(decoding: bytes.filter { $0 >= 48 && $0 <= 57 }, as: UTF8.self)),
              value >= 64, value <= 4096 else { return 192 }
        return value
    }()

    /// How many locks (POSIX record locks, flock locks, leases) the process
    /// `pid` holds through its descriptors; nil when its fdinfo cannot be read
    /// (it is gone). A lock taken through a descriptor that was duplicated is
    /// listed, and counted, once per copy. Open file description locks are
    /// listed too, but the sandbox closes them.
    public static func count(heldBy pid: Int32) -> Int? { Descriptors.read(pid: pid)?.locks }

}

/// What a process's descriptors hold, from /proc/PID/fdinfo in one pass: the
/// file locks taken through them and the inode of each (a socket's is how
/// /proc/net's tables name it).
public struct Descriptors: Sendable {
    public var locks = 0
    public var inodes: Set<UInt64> = []
    /// The numbers of its descriptors that are sockets (their /proc/PID/fd link reads "socket:[…]"),
    /// when `read` was asked for them.
    public var sockets: [Int32] = []

    /// One pass over `pid`'s descriptors; with `sockets`, each one's link is read too (a keyboard with
    /// open access: the only one that may have a socket of its own to count).
    public static func read(pid: Int32, sockets: Bool = false) -> Descriptors? {
        guard let dir = opendir("/proc/\(pid)/fdinfo") else { return nil }
        defer { closedir(dir) }
        let folder = dirfd(dir)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var result = Descriptors()
        while let entry = readdir(dir) {
            var number: Int32 = 0
            let fd = Sys.withEntryName(entry) { name -> Int32 in
                guard let first = name.first, first != 46 /* "." */ else { return -1 }
                for b in name { if b < 48 || b > 57 { break }; number = number &* 10 &+ Int32(b - 48) }
                return openat(folder, name.baseAddress!.assumingMemoryBound(to: CChar.self), O_RDONLY | O_CLOEXEC)
            }
            guard fd >= 0 else { continue }
            if sockets, isSocket(folder: pid, number) { result.sockets.append(number) }
            result.scan(fd, &buffer)
            Sys.close(fd)
        }
        return result
    }

    /// Counts the lines of one fdinfo that begin with "lock:" and keeps its "ino:". The file is
    /// read whole (up to 32 MiB: a descriptor with 65,536 locks lists 4 MiB) and its lines found
    /// with memchr, so that a count of many locks costs what the kernel takes to list them.
    mutating func scan(_ fd: Int32, _ buffer: inout [UInt8]) {
        var length = 0
        while true {
            if length == buffer.count {
                guard buffer.count < 32 << 20 else { break }
                buffer.append(contentsOf: repeatElement(0, count: buffer.count))
            }
            let n = buffer.withUnsafeMutableBytes { b in
                (try? Sys.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: b[length...]))) ?? 0
            }
            if n <= 0 { break }
            length += n
        }
        buffer.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            let end = base + length
            var line = base
            while line < end {
                let lineEnd = memchr(line, 10, end - line).map { UnsafeRawPointer($0) } ?? end
                let size = lineEnd - line
                if size >= 5 && memcmp(line, Descriptors.lock, 5) == 0 {
                    locks += 1
                } else if size > 4 && memcmp(line, Descriptors.ino, 4) == 0 {
                    var value: UInt64 = 0
                    for b in UnsafeRawBufferPointer(start: line + 4, count: size - 4) where b >= 48 && b <= 57 {
                        value = value &* 10 &+ UInt64(b - 48)
                    }
                    inodes.insert(value)
                }
                line = lineEnd + 1
            }
        }
    }

    /// Only its sockets: its descriptors whose /proc/PID/fd link reads "socket:[INODE]", each with
    /// that inode. One readlink a descriptor (at most 256), never its fdinfo, whose length grows
    /// with the locks it holds: the count of its sockets stays quick whatever else it holds.
    public static func sockets(of pid: Int32) -> SocketDescriptors? {
        guard let dir = opendir("/proc/\(pid)/fd") else { return nil }
        defer { closedir(dir) }
        let folder = dirfd(dir)
        var found: [(number: Int32, inode: UInt64)] = []
        var target = [CChar](repeating: 0, count: 40)
        while let entry = readdir(dir) {
            var number: Int32 = 0
            let n = Sys.withEntryName(entry) { name -> Int in
                guard let first = name.first, first != 46 /* "." */ else { return -1 }
                for b in name { if b < 48 || b > 57 { break }; number = number &* 10 &+ Int32(b - 48) }
                return readlinkat(folder, name.baseAddress!.assumingMemoryBound(to: CChar.self), &target, target.count - 1)
            }
            guard n > 9, memcmp(target, socketPrefix, 8) == 0 else { continue }
            var inode: UInt64 = 0
            for i in 8..<n { let c = UInt8(bitPattern: target[i]); if c >= 48 && c <= 57 { inode = inode &* 10 &+ UInt64(c - 48) } }
            found.append((number, inode))
        }
        return SocketDescriptors(each: found)
    }

    /// Whether descriptor `number` of process `pid` is a socket, by its /proc link (no descriptor is taken).
    static func isSocket(folder pid: Int32, _ number: Int32) -> Bool {
        var target = [CChar](repeating: 0, count: 32)
        let n = readlink("/proc/\(pid)/fd/\(number)", &target, target.count - 1)
        return n > 8 && memcmp(target, socketPrefix, 8) == 0
    }

    private static let socketPrefix = Array("socket:[".utf8CString)
    private static let lock = Array("lock:".utf8)
    private static let ino = Array("ino:".utf8)
}

/// A process's socket descriptors (`Descriptors.sockets(of:)`): each one's number and inode.
public struct SocketDescriptors: Sendable {
    public let each: [(number: Int32, inode: UInt64)]
    public var numbers: [Int32] { each.map(\.number) }
    public var inodes: Set<UInt64> { Set(each.map(\.inode)) }
}
