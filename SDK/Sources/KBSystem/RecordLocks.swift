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
    public static func count(heldBy pid: Int32) -> Int? {
        guard let dir = opendir("/proc/\(pid)/fdinfo") else { return nil }
        defer { closedir(dir) }
        let folder = dirfd(dir)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        while let entry = readdir(dir) {
            let fd = withUnsafeBytes(of: entry.pointee.d_name) { name -> Int32 in
                guard let first = name.first, first != 46 /* "." */ else { return -1 }
                return openat(folder, name.baseAddress!.assumingMemoryBound(to: CChar.self), O_RDONLY | O_CLOEXEC)
            }
            guard fd >= 0 else { continue }
            total += countLockLines(fd, &buffer)
            Sys.close(fd)
        }
        return total
    }

    /// The lines that begin with "lock:" in what `fd` reads to its end.
    static func countLockLines(_ fd: Int32, _ buffer: inout [UInt8]) -> Int {
        let prefix: [UInt8] = Array("lock:".utf8)
        var matched = 0  // bytes of `prefix` matched at the start of this line; -1 once it cannot match
        var lines = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { (try? Sys.read(fd, into: $0)) ?? 0 }
            if n <= 0 { break }
            for i in 0..<n {
                let b = buffer[i]
                if b == 10 {
                    matched = 0
                } else if matched >= 0 && matched < prefix.count {
                    if b == prefix[matched] {
                        matched += 1
                        if matched == prefix.count { lines += 1 }
                    } else {
                        matched = -1
                    }
                }
            }
        }
        return lines
    }
}
