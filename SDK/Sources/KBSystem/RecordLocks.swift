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

    public static func read(pid: Int32) -> Descriptors? {
        guard let dir = opendir("/proc/\(pid)/fdinfo") else { return nil }
        defer { closedir(dir) }
        let folder = dirfd(dir)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var result = Descriptors()
        while let entry = readdir(dir) {
            let fd = withUnsafeBytes(of: entry.pointee.d_name) { name -> Int32 in
                guard let first = name.first, first != 46 /* "." */ else { return -1 }
                return openat(folder, name.baseAddress!.assumingMemoryBound(to: CChar.self), O_RDONLY | O_CLOEXEC)
            }
            guard fd >= 0 else { continue }
            result.scan(fd, &buffer)
            Sys.close(fd)
        }
        return result
    }

    /// Counts the lines of one fdinfo that begin with "lock:" and keeps its "ino:" — a byte at
    /// a time, nothing copied (a keyboard holding 65,536 locks gives megabytes to read).
    mutating func scan(_ fd: Int32, _ buffer: inout [UInt8]) {
        // Where in a line: its first bytes matched against "lock:" or "ino:", the digits of an inode, or skipping.
        var column = 0
        var candidate = 0  // 1: "lock:", 2: "ino:", 0: neither
        var inode: UInt64 = 0, readingInode = false
        func endLine() {
            if readingInode { inodes.insert(inode) }
            (column, candidate, inode, readingInode) = (0, 0, 0, false)
        }
        while true {
            let n = buffer.withUnsafeMutableBytes { (try? Sys.read(fd, into: $0)) ?? 0 }
            if n <= 0 { break }
            buffer.withUnsafeBufferPointer { bytes in
                for i in 0..<n {
                    let b = bytes[i]
                    if b == 10 {
                        endLine()
                        continue
                    }
                    if readingInode {
                        if b >= 48 && b <= 57 { inode = inode &* 10 &+ UInt64(b - 48) }
                        continue
                    }
                    if column == 0 { candidate = b == 108 /* l */ ? 1 : b == 105 /* i */ ? 2 : 0 }
                    if candidate == 1 {
                        if column < 5 && b == Descriptors.lock[column] {
                            if column == 4 { locks += 1; candidate = 0 }
                        } else {
                            candidate = 0
                        }
                    } else if candidate == 2 {
                        if column < 4 && b == Descriptors.ino[column] {
                            if column == 3 { readingInode = true; candidate = 0 }
                        } else {
                            candidate = 0
                        }
                    }
                    column += 1
                }
            }
        }
        endLine()
    }

    private static let lock = Array("lock:".utf8)
    private static let ino = Array("ino:".utf8)
}
