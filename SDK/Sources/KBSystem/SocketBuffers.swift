import Glibc

/// What a process's TCP and UDP sockets hold in the kernel's queues: memory its
/// footprint does not show. Only a keyboard with open access has such sockets;
/// it may not raise their buffer sizes, but the kernel grows a TCP socket's on
/// its own (`net.ipv4.tcp_rmem`'s maximum, 32 MiB on Debian 12, a queue) and a
/// server that keeps sending to a keyboard that never reads, or never reads what
/// the keyboard sends, fills them: with 256 descriptors, gigabytes. The governor
/// adds this to the keyboard's footprint.
public enum SocketBuffers {
    /// The bytes in the send and receive queues of the sockets among `inodes`,
    /// from the tables of the network namespace `pid` is in (/proc/PID/net/tcp,
    /// tcp6, udp, udp6: "tx_queue:rx_queue" in hex, with the socket's inode). A
    /// UDP queue is counted as the kernel charges it (each datagram with its
    /// buffer's overhead), a TCP queue as the bytes in it.
    public static func bytes(of inodes: Set<UInt64>, in pid: Int32) -> Int {
        guard !inodes.isEmpty else { return 0 }
        var total = 0
        for table in ["tcp", "tcp6", "udp", "udp6"] {
            total += bytes(of: inodes, inTable: "/proc/\(pid)/net/\(table)")
        }
        return total
    }

    static func bytes(of inodes: Set<UInt64>, inTable path: String) -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { Sys.close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var line: [UInt8] = []
        line.reserveCapacity(256)
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { (try? Sys.read(fd, into: $0)) ?? 0 }
            if n <= 0 { break }
            for i in 0..<n {
                if buffer[i] == 10 {
                    if let row = row(line), inodes.contains(row.inode) { total += row.queued }
                    line.removeAll(keepingCapacity: true)
                } else if line.count < 512 {
                    line.append(buffer[i])
                }
            }
        }
        return total
    }

    /// One row of /proc/net/{tcp,udp}[6]: its queues' bytes and its inode; nil for the header.
    static func row(_ line: [UInt8]) -> (queued: Int, inode: UInt64)? {
        let fields = line.split(separator: 32, omittingEmptySubsequences: true)
        guard fields.count > 9, fields[0].last == 58 /* ":" */ else { return nil }
        let queues = fields[4].split(separator: 58)
        guard queues.count == 2, let tx = Int(String(decoding: queues[0], as: UTF8.self), radix: 16),
              let rx = Int(String(decoding: queues[1], as: UTF8.self), radix: 16),
              let inode = UInt64(String(decoding: fields[9], as: UTF8.self)) else { return nil }
        return (tx + rx, inode)
    }
}
