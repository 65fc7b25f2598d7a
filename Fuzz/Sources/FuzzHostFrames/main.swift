import CFuzzDriver
import Glibc
import KBWire
import WireFuzzing

/// The other direction: bytes the worker reads from the host (`Channel.receive` in
/// KBWorker: a FrameReader, then HostMessage.decode). The host is trusted, but the
/// worker must still refuse anything malformed with a typed error. A window's buffer is
/// normalized as it is decoded (selection on cluster boundaries), so the check is that
/// what decodes re-encodes to a message that decodes to the same value, with a buffer
/// that keeps TextBuffer's invariants.
func fuzzHostFrames(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    WireFuzzing.stream(UnsafeBufferPointer(start: start, count: count)) { frame in
        let message: HostMessage
        do throws(WireError) {
            message = try HostMessage.decode(frame)
        } catch {
            WireFuzzing.checkRefusal(error)
            return
        }
        precondition((try? HostMessage.decode(message.encoded())) == message, "decoded, re-encoded, decoded to another value")
        switch message {
        case .load(let request): WireFuzzing.checkBuffer(request.window.buffer)
        case .deliver(let delivery): if let window = delivery.window { WireFuzzing.checkBuffer(window.buffer) }
        case .hello, .shutdown: break
        }
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzzHostFrames($0, $1) })
