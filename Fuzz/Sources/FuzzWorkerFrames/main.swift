import CFuzzDriver
import Glibc
import KBWire
import WireFuzzing

/// The hostile direction: bytes a keyboard's process writes, as the host reads them
/// (`ExtensionProcess.receive`: a FrameReader, then WorkerMessage.decode within the
/// memory budget of one reply). What decodes must re-encode to the very same bytes (the
/// encoding is canonical), must cost no more than the budget as `WireLimits` counts it —
/// exactly what the decoder charged: one byte less of budget and it is refused — and its
/// effects are applied as the host applies them.
func fuzzWorkerFrames(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    WireFuzzing.stream(UnsafeBufferPointer(start: start, count: count)) { frame in
        let message: WorkerMessage
        do throws(WireError) {
            message = try WorkerMessage.decode(frame)
        } catch {
            WireFuzzing.checkRefusal(error)
            return
        }
        precondition(message.encoded() == frame, "decoded, re-encoded to other bytes")
        switch message {
        case .loaded(let reply):
            precondition(WireLimits.measure(reply.effects).memory <= WireLimits.maximumEffectMemory, "over the budget")
            WireFuzzing.apply(reply.effects)
        case .done(_, let effects):
            precondition(effects.count <= WireLimits.maximumEffects, "\(effects.count) effects")
            let memory = WireLimits.measure(effects).memory
            precondition(memory <= WireLimits.maximumEffectMemory, "over the budget")
            // The decoder charges exactly what measure() counts: a budget of that decodes, one byte less does not.
            precondition((try? WorkerMessage.decode(frame, budget: memory)) == message, "refused within its own cost")
            if memory > 0 {
                do throws(WireError) {
                    _ = try WorkerMessage.decode(frame, budget: memory - 1)
                    preconditionFailure("decoded within \(memory - 1) bytes, though measure() says \(memory)")
                } catch {
                    precondition(error == .overBudget(limit: memory - 1), "\(error)")
                }
            }
            WireFuzzing.apply(effects)
        case .hello, .failure: break
        }
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzzWorkerFrames($0, $1) })
