import Glibc

/// A process's memory footprint as a phone's jetsam counts it: its anonymous
/// resident memory, the shared memory it created (memfd, MAP_SHARED|ANON),
/// what it has in swap, and its page tables (a huge mapping touched once
/// every 2 MiB holds almost no pages but a page table each). Sizes in bytes.
public struct Footprint: Hashable, Sendable {
    public var anonymous: Int
    public var sharedMemory: Int
    public var swap: Int
    public var pageTables: Int
    /// Its main thread has ended while others run on. The kernel then shows no memory for
    /// the process at all (/proc/PID/status holds no Rss or Vm lines, statm is zeros), so
    /// its footprint cannot be known.
    public var mainThreadEnded = false

    public init(anonymous: Int, sharedMemory: Int, swap: Int, pageTables: Int = 0) {
        self.anonymous = anonymous
        self.sharedMemory = sharedMemory
        self.swap = swap
        self.pageTables = pageTables
    }

    public var total: Int { anonymous + sharedMemory + swap + pageTables }
}

/// Reads a process's footprint from /proc/PID/status through a descriptor
/// kept open (pread at offset 0 returns fresh values; no open/close per sample).
public final class FootprintReader: @unchecked Sendable {
    private let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 4096)

    public init?(pid: Int32) {
        fd = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
    }

    deinit { Glibc.close(fd) }

    /// The footprint now; nil once the process is gone.
    public func read() -> Footprint? {
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        var anonymous = 0, shmem = 0, swap = 0, pageTables = 0, zombie = false, threads = 0
        // Lines look like "RssAnon:\t    1234 kB".
        var i = 0
        while i < n {
            var end = i
            while end < n && buffer[end] != 10 { end += 1 }
            if end - i > 8 {
                let key = (buffer[i], buffer[i + 3], buffer[i + 4])
                let value: () -> Int = {
                    var v = 0
                    for b in self.buffer[i..<end] where b >= 48 && b <= 57 { v = v * 10 + Int(b - 48) }
                    return v * 1024
                }
                if buffer[i] == 82 && buffer[i + 1] == 115 && buffer[i + 2] == 115 {  // "Rss"
                    if key.1 == 65 && key.2 == 110 { anonymous = value() }           // "RssAnon"
                    else if key.1 == 83 && key.2 == 104 { shmem = value() }           // "RssShmem"
                } else if buffer[i] == 86 && buffer[i + 2] == 83 && buffer[i + 3] == 119 {  // "VmSwap"
                    swap = value()
                } else if buffer[i] == 86 && buffer[i + 2] == 80 && buffer[i + 3] == 84 {   // "VmPTE"
                    pageTables = value()
                } else if buffer[i] == 83 && buffer[i + 1] == 116 && buffer[i + 5] == 58 {  // "State:\tZ (zombie)"
                    zombie = buffer[i + 7] == 90
                } else if buffer[i] == 84 && buffer[i + 1] == 104 && buffer[i + 7] == 58 {  // "Threads:\t2"
                    threads = value() / 1024
                }
            }
            i = end + 1
        }
        var footprint = Footprint(anonymous: anonymous, sharedMemory: shmem, swap: swap, pageTables: pageTables)
        // A zombie whose other threads live (a process that has ended entirely is a zombie of one thread).
        footprint.mainThreadEnded = zombie && threads > 1
        return footprint
    }
}
