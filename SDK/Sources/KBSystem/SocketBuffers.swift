import CKBShims
import Glibc

/// What a process's TCP and UDP sockets hold in the kernel's queues: memory its
/// footprint does not show. Only a keyboard with open access has such sockets;
/// it may not raise their buffer sizes, but the kernel grows a TCP socket's on
/// its own (`net.ipv4.tcp_rmem`'s maximum, 32 MiB on Debian 12, a queue) and a
/// server that keeps sending to a keyboard that never reads, or never reads what
/// the keyboard sends, fills them: with 256 descriptors, gigabytes. The governor
/// adds this to the keyboard's footprint.
public enum SocketBuffers {
    /// What its TCP and UDP sockets hold, asked of each socket itself: each of `descriptors`
    /// (its numbers in the process `pidfd` names) is taken with pidfd_getfd and asked with
    /// SO_MEMINFO. It costs what the keyboard's own descriptors number (at most 256), not what
    /// the machine's tables hold, and counts a queue as the kernel charges it. nil when the
    /// kernel refuses to hand the descriptors over (before Linux 5.6, or a policy such as Yama's
    /// ptrace_scope 3): then `bytes(of:in:)` reads the tables.
    /// With `relay` (a relay's sockets), each TCP socket is set to be reset when it is closed: the
    /// relay closes its socket to the server when the keyboard resets its end, and a socket closed
    /// with unsent data is kept by the kernel as an orphan, in no descriptor table and in the host's
    /// network (eleventh red team, F1: 685 MiB so). Only sockets holding more than 64 KiB were set so
    /// at first, and 1,329 orphans of less held 67.6 MiB under a 48 MiB budget (twelfth, N2); then
    /// only those holding anything, and an idle one could be filled and reset between two counts.
    public static func bytes(ofDescriptors descriptors: [Int32], of pidfd: Int32, relay: Bool = false) -> Int? {
        var total = 0
        for fd in descriptors {
            var bytes: Int64 = 0
            switch kbs_socket_queued(pidfd, fd, &bytes, relay ? 1 : 0) {
            case 1: total += Int(bytes)
            case 0: continue
            default:
                if errno == EBADF { continue }  // closed since it was listed
                return nil
            }
        }
        return total
    }

    /// What every TCP and UDP socket of a network namespace holds, as the kernel charges it, asked
    /// through `diagnostics`, a sock_diag socket made in that namespace (`kbs_diag_socket_memory`):
    /// with or without a descriptor, closed with data still queued, connecting, any state. In a
    /// keyboard's network of its own that is all its sockets' but those out of the tables (a UDP
    /// socket it disconnected, a TCP socket reset by its peer: the thirteenth red team held 45 and
    /// 88 MiB in such, by descriptor): those of its `descriptors` (number and inode, in the process
    /// `pidfd` names) the dump did not list are asked one by one (`bytes(ofDescriptors:of:)`).
    /// nil when the kernel refused the dump or the descriptors.
    public static func bytes(inNamespaceOf diagnostics: Int32, descriptors: [(number: Int32, inode: UInt64)], of pidfd: Int32) -> Int? {
        let sorted = descriptors.sorted { $0.inode < $1.inode }
        let inodes = sorted.map { CUnsignedLongLong($0.inode) }
        var seen = [UInt8](repeating: 0, count: max(sorted.count, 1))
        var bytes: Int64 = 0
        guard kbs_diag_socket_memory(diagnostics, inodes, Int32(inodes.count), &seen, &bytes, nil) == 0 else { return nil }
        let unlisted = sorted.indices.filter { seen[$0] == 0 }.map { sorted[$0].number }
        guard let rest = Self.bytes(ofDescriptors: unlisted, of: pidfd) else { return nil }
        return Int(bytes) + rest
    }

    /// Whether this kernel can destroy sockets that way (CONFIG_INET_DIAG_DESTROY); nil when it
    /// cannot be told (no sock_diag). `kbhost doctor` says so.
    public static var destroySupported: Bool? {
        switch kbs_socket_destroy_supported() {
        case 1: return true
        case 0: return false
        default: return nil
        }
    }

    /// Destroys every TCP socket left in the network namespace `diagnostics` was made in (but those
    /// in TIME-WAIT), as `ss -K` does (`kbs_diag_destroy_tcp`): how many went, or the kernel's refusal.
    public static func destroyConnections(inNamespaceOf diagnostics: Int32) throws(SystemError) -> Int {
        var destroyed: Int32 = 0
        guard kbs_diag_destroy_tcp(diagnostics, &destroyed) == 0 else { throw SystemError("SOCK_DESTROY", errno: errno) }
        return Int(destroyed)
    }

    /// The bytes in the send and receive queues of the sockets among `inodes`,
    /// from the tables of the network namespace `pid` is in (/proc/PID/net/tcp,
    /// tcp6, udp, udp6: "tx_queue:rx_queue" in hex, with the socket's inode). A
    /// UDP queue is counted as the kernel charges it (each datagram with its
    /// buffer's overhead), a TCP queue as the bytes in it.
    public static func bytes(of inodes: Set<UInt64>, in pid: Int32) -> Int {
        inodes.isEmpty ? 0 : bytes(of: inodes, inTablesOf: pid, among: true)
    }

    /// The bytes queued on the sockets of `pid`'s network namespace that are not among
    /// `inodes` (its descriptors', counted by `bytes(ofDescriptors:of:)`): in a namespace of
    /// its own (`UserNetwork`), the sockets it closed with data still to send (an orphan, whose
    /// row shows inode 0) and those it closed while another of its threads still reads them.
    public static func bytes(notAmong inodes: Set<UInt64>, in pid: Int32) -> Int {
        bytes(of: inodes, inTablesOf: pid, among: false)
    }

    private static func bytes(of inodes: Set<UInt64>, inTablesOf pid: Int32, among: Bool) -> Int {
        ["tcp", "tcp6", "udp", "udp6"].reduce(0) { $0 + bytes(of: inodes, inTable: "/proc/\(pid)/net/\($1)", among: among) }
    }

    static func bytes(of inodes: Set<UInt64>, inTable path: String, among: Bool = true) -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { Sys.close(fd) }
        // The table lists every socket of the namespace (with open access, the machine's: tens of
        // thousands in TIME_WAIT after a burst of connections, any program's). A row is read in
        // place, without splitting it into strings: a count must stay short whatever the machine
        // holds (split rows took a debug build over a second with 60,000 of them, and the
        // keyboard's queues went unseen meanwhile).
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var kept = 0  // bytes of an unfinished row carried to the front of the buffer
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { b in
                (try? Sys.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: b[kept...]))) ?? 0
            }
            if n <= 0 { break }
            let end = kept + n
            var consumed = 0
            buffer.withUnsafeBufferPointer { b in
                var start = 0
                for i in 0..<end where b[i] == 10 {
                    if let row = row(b, from: start, to: i), among ? row.inode != 0 && inodes.contains(row.inode) : !inodes.contains(row.inode) {
                        total += row.queued
                    }
                    start = i + 1
                }
                consumed = start
            }
            if consumed == 0 && end == buffer.count { kept = 0; continue }  // a row longer than the buffer: not a row
            buffer.withUnsafeMutableBufferPointer { b in
                for i in consumed..<end { b[i - consumed] = b[i] }
            }
            kept = end - consumed
        }
        return total
    }

    /// One row of /proc/net/{tcp,udp}[6], read in place: its queues' bytes (field 4,
    /// "tx_queue:rx_queue" in hex) and its inode (field 9); nil for the header or a malformed row.
    /// A TCP socket connecting (state 02, SYN-SENT) shows no queue: until the connection is set up
    /// its "tx_queue" is the initial sequence number less an unset one, a random figure up to 4 GiB,
    /// for which keyboards that connected often were killed (twelfth red team, N7); a listening one
    /// (0A) shows connections waiting to be accepted, not bytes, and those are counted on their own rows.
    static func row(_ b: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> (queued: Int, inode: UInt64)? {
        var i = start, field = 0
        var queued = 0, state = 0
        while i < end {
            while i < end && b[i] == 32 { i += 1 }
            guard i < end else { break }
            let first = i
            while i < end && b[i] != 32 { i += 1 }
            switch field {
            case 0:
                guard b[i - 1] == 58 else { return nil }  // "sl:" ends with a colon; the header does not
            case 3:
                for j in first..<i {
                    guard let digit = hexDigit(b[j]) else { return nil }
                    state = state &* 16 &+ digit
                }
            case 4:
                var tx = 0, rx = 0, colon = false
                for j in first..<i {
                    let c = b[j]
                    if c == 58 { colon = true; continue }
                    guard let digit = hexDigit(c) else { return nil }
                    if colon { rx = rx &* 16 &+ digit } else { tx = tx &* 16 &+ digit }
                }
                guard colon else { return nil }
                queued = state == 0x02 || state == 0x0A ? 0 : tx &+ rx
            case 9:
                var inode: UInt64 = 0
                for j in first..<i {
                    let c = b[j]
                    guard c >= 48 && c <= 57 else { return nil }
                    inode = inode &* 10 &+ UInt64(c - 48)
                }
                return (queued, inode)
            default: break
            }
            field += 1
        }
        return nil
    }

    private static func hexDigit(_ c: UInt8) -> Int? {
        switch c {
        case 48...57: Int(c - 48)
        case 97...102: Int(c - 87)
        case 65...70: Int(c - 55)
        default: nil
        }
    }

}
