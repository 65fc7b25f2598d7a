import CFuzzDriver
import Glibc
import KBWire

/// The frame reader at the sizes the byte fuzzers cannot reach (their inputs stop at 4 KiB):
/// frames up to the bound (9 MiB) and one past it, arriving in reads of any size. An input
/// is a script, three bytes a frame: its length, the size of the reads it arrives in, and
/// the byte it is filled with. Every frame must come out whole, in order, each as soon as
/// its last byte arrives; a header past the bound must throw at once; and the reader must
/// never hold more than one frame's room plus one read (libFuzzer's -malloc_limit_mb and
/// -rss_limit_mb catch an allocation past that).
let maximum = Framing.maximumFrameSize

/// A frame length from one byte: small ones (0–191 bytes), large ones from 256 KiB (where
/// the reader reserves room and hands the frame over) to the bound, the bound itself, and one past it.
func length(_ b: UInt8) -> Int {
    switch b {
    case 0 ..< 192: Int(b)
    case 253: maximum
    case 254, 255: maximum + 1
    default: (256 << 10) - 2 + Int(b - 192) * 145_000  // 262,142 … 9,107,142
    }
}

/// A read size from one byte: 1 byte to about 1 MiB, or everything there is at once.
func readSize(_ b: UInt8) -> Int { b == 255 ? .max : 1 + Int(b) * Int(b) * 17 }

func fuzzFrameSizes(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count >= 3 else { return 0 }
    let script = UnsafeBufferPointer(start: start, count: count)
    var reader = FrameReader()
    var sent = 0  // bytes of all frames so far, headers included: at most 40 MiB a run
    var expected: [(length: Int, fill: UInt8)] = []
    for i in stride(from: 0, to: script.count - 2, by: 3) {
        let n = length(script[i]), step = readSize(script[i + 1]), fill = script[i + 2]
        guard sent + 4 + min(n, maximum) <= 40 << 20 else { break }
        let header = [UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8),
                      UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 24)]
        // The stream of this frame, header then payload (only the header of one past the bound).
        let total = 4 + (n > maximum ? 0 : n)
        // At most about 2,048 reads a frame: a large one in reads of a byte would take the run minutes.
        var chunk = [UInt8](repeating: fill, count: min(max(step, total / 2048), total, 1 << 20))
        var at = 0
        expected.append((n, fill))
        while at < total {
            let m = min(total - at, chunk.count)
            for k in 0 ..< min(4, chunk.count) { chunk[k] = at + k < 4 ? header[at + k] : fill }
            chunk.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[..<m])) }
            at += m
            sent += m
            precondition(reader.pendingByteCount <= total, "the reader holds \(reader.pendingByteCount) bytes of a frame of \(total)")
            do throws(WireError) {
                while let frame = try reader.nextFrame() {
                    let want = expected.removeFirst()
                    precondition(frame.count == want.length, "a frame of \(frame.count) bytes for one of \(want.length)")
                    precondition(frame.allSatisfy { $0 == want.fill }, "a frame's bytes changed on the way")
                }
            } catch {
                precondition(error == .frameTooLarge(length: n, maximum: maximum) && n > maximum, "\(error) for a frame of \(n)")
                return 0  // the host ends the keyboard here
            }
        }
        precondition(n <= maximum, "a header of \(n) bytes, past the bound, was not refused")
        precondition(expected.isEmpty, "a frame of \(n) bytes did not come out when its last byte arrived")
    }
    precondition(reader.pendingByteCount == 0, "\(reader.pendingByteCount) bytes left over")
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzzFrameSizes($0, $1) })
