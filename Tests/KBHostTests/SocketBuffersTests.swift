import Foundation
@testable import KBSystem
import Testing

/// The socket tables the governor reads for an open-access keyboard list every socket of the
/// namespace, the machine's: after a burst of connections tens of thousands sit in TIME_WAIT.
/// The keyboard's rows must be found among them, in rows that cross the reader's 64 KiB
/// chunks, and the rest passed over (the eighth session found split rows took a debug build
/// over a second with 60,000 of them, during which a keyboard's queues went unseen).
@Suite("Socket queues read from /proc/net tables")
struct SocketBuffersTests {
    static let header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

    static func row(_ n: Int, tx: Int, rx: Int, inode: UInt64, state: String = "01") -> String {
        String(format: "%4d: 0100007F:%04X 0100007F:B7E3 %@ %08X:%08X 00:00000000 00000000     0        0 %llu 1 0000000000000000 20 4 30 10 -1\n",
               n, 40000 + n % 20000, state, tx, rx, inode)
    }

    @Test func theKeyboardsRowsAreFoundAmongTensOfThousands() throws {
        var table = Self.header
        var expected = 0
        let ours: Set<UInt64> = [777_001, 777_002, 777_003]
        for n in 0..<60_000 {
            switch n {
            case 17: table += Self.row(n, tx: 0x3FFFFF, rx: 0, inode: 777_001); expected += 0x3FFFFF
            case 29_999: table += Self.row(n, tx: 0xABC, rx: 0x1F, inode: 777_002); expected += 0xABC + 0x1F
            case 59_998: table += Self.row(n, tx: 0, rx: 0x200000, inode: 777_003); expected += 0x200000
            case 40_000: table += Self.row(n, tx: 0x5000, rx: 0, inode: 888_888)  // someone else's, with a queue
            default: table += Self.row(n, tx: 0, rx: 0, inode: 0, state: "06")  // TIME_WAIT: no inode
            }
        }
        #expect(table.utf8.count > 4 << 20, "rows cross many chunks")
        let path = NSTemporaryDirectory() + "kbhost-tcp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try table.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(SocketBuffers.bytes(of: ours, inTable: path) == expected)
        #expect(SocketBuffers.bytes(of: [888_888], inTable: path) == 0x5000)
        #expect(SocketBuffers.bytes(of: [123], inTable: path) == 0)
    }

    /// A connecting socket's row (SYN-SENT) showed a random "tx_queue" up to 4 GiB, and keyboards
    /// that connected often were killed for it (twelfth red team, N7, rows as the kernel printed them);
    /// a listening socket's shows connections, not bytes. Neither counts; an established one does.
    @Test func aConnectingSocketsRowCountsNoQueue() throws {
        let table = Self.header
            + Self.row(0, tx: 2_742_838_239, rx: 0, inode: 41, state: "02")  // SYN-SENT
            + Self.row(1, tx: 4_230_244_784, rx: 0, inode: 0, state: "02")
            + Self.row(2, tx: 128, rx: 3, inode: 42, state: "0A")  // LISTEN: backlog 128, 3 waiting
            + Self.row(3, tx: 0x4000, rx: 0x100, inode: 43)  // ESTABLISHED
        let path = NSTemporaryDirectory() + "kbhost-tcp-syn-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try table.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(SocketBuffers.bytes(of: [41, 42], inTable: path) == 0)
        #expect(SocketBuffers.bytes(of: [43], inTable: path) == 0x4100)
        #expect(SocketBuffers.bytes(of: [], inTable: path, among: false) == 0x4100, "the namespace's rows without a descriptor")
    }

    @Test func aMalformedRowCountsNothingAndTheRestStillDoes() throws {
        let table = Self.header + "   0: 0100007F:1F90 garbage\n" + "   1: 0100007F:1F90 0100007F:B7E3 01 zz:00 00:0 0 0 0 5 1\n"
            + Self.row(2, tx: 10, rx: 5, inode: 5) + String(repeating: "x", count: 100_000) + "\n" + Self.row(3, tx: 1, rx: 1, inode: 5)
        let path = NSTemporaryDirectory() + "kbhost-tcp-bad-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try table.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(SocketBuffers.bytes(of: [5], inTable: path) == 17)
    }
}

extension SocketBuffersTests {
    /// The count that asks each socket itself: a real process (python3) with four TCP
    /// connections to a listener that never reads, each filled until the kernel takes no
    /// more. Its descriptors taken through its pidfd hold at least what it queued, as the
    /// network's table says too (the control).
    @Test func eachSocketAskedItselfHoldsWhatItQueued() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(listener) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, size) } }
        #expect(listen(listener, 16) == 0)
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &size) } }
        let port = UInt16(bigEndian: a.sin_port)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        child.arguments = ["-c", """
            import socket, sys, time
            total, kept = 0, []
            for _ in range(4):
                s = socket.create_connection(("127.0.0.1", \(port)))
                s.setblocking(False)
                try:
                    while True: total += s.send(b"q" * 65536)
                except BlockingIOError:
                    pass
                kept.append(s)
            print(total, flush=True)
            time.sleep(30)
            """]
        let out = Pipe()
        child.standardOutput = out
        try child.run()
        defer { kill(child.processIdentifier, SIGKILL); child.waitUntilExit() }
        var line = ""
        while !line.contains("\n") {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            line += String(decoding: data, as: UTF8.self)
        }
        let queued = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(queued > 1 << 20, "the child queued \(line)")
        let pid = child.processIdentifier
        let pidfd = try Sys.pidfdOpen(pid)
        defer { Sys.close(pidfd) }
        let held = try #require(Descriptors.read(pid: pid, sockets: true))
        let asked = try #require(SocketBuffers.bytes(ofDescriptors: held.sockets, of: pidfd), "the kernel hands the descriptors over")
        #expect(asked >= queued * 9 / 10, "asked of each socket: \(asked) bytes for \(queued) queued (what the peer took is its own)")
        let fromTable = SocketBuffers.bytes(of: held.inodes, in: pid)
        #expect(fromTable >= queued / 2, "the table's count, the control: \(fromTable)")
    }
}
