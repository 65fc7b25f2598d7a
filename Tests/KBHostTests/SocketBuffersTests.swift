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

    @Test func aMalformedRowCountsNothingAndTheRestStillDoes() throws {
        let table = Self.header + "   0: 0100007F:1F90 garbage\n" + "   1: 0100007F:1F90 0100007F:B7E3 01 zz:00 00:0 0 0 0 5 1\n"
            + Self.row(2, tx: 10, rx: 5, inode: 5) + String(repeating: "x", count: 100_000) + "\n" + Self.row(3, tx: 1, rx: 1, inode: 5)
        let path = NSTemporaryDirectory() + "kbhost-tcp-bad-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try table.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(SocketBuffers.bytes(of: [5], inTable: path) == 17)
    }
}
