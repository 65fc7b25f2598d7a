import Glibc
import KBExtensionRuntime
import KBHost
import KBWire

/// The keyboard's end of a session in the test's own process: the
/// `ExtensionRuntime` a worker runs, answering the same wire messages the
/// worker answers, each encoded and decoded as on the socket. No process,
/// no socket, no budget, no sandbox: everything else is kbhost's one session
/// engine (`KeyboardSession`), so a test in process sees what the real process
/// would, the document window included.
final class InProcessChannel: KeyboardChannel {
    let runtime = ExtensionRuntime()
    private let plugin: UnsafeRawPointer
    private let keyboardID: String
    private var ended = false

    init(plugin: UnsafeRawPointer, keyboardID: String) {
        self.plugin = plugin
        self.keyboardID = keyboardID
    }

    var pid: Int32 { getpid() }
    var peakFootprint: Int? { nil }
    var memoryWarnings: Int { 0 }
    var outputText: String { "" }

    func request(_ message: HostMessage, phase: @autoclosure () -> String,
                 deadlineMilliseconds: Int?) throws(KeyboardFailure) -> WorkerMessage {
        guard !ended else { throw failure(phase(), .io("the keyboard has already ended")) }
        let received: HostMessage
        do { received = try HostMessage.decode(message.encoded()) } catch {
            throw failure(phase(), .protocolViolation("the host's message does not travel: \(error)"))
        }
        let reply: WorkerMessage
        do throws(WorkerFailure) {
            switch received {
            case .hello: reply = .hello(protocolVersion: WireVersion.protocolVersion, abiVersion: WireVersion.abiVersion, pid: pid)
            case .load(let request):
                reply = .loaded(try runtime.load(plugin: plugin, className: request.className, facts: request.facts,
                                                 window: request.window, containers: request.sandbox))
            case .deliver(let delivery):
                reply = .done(sequence: delivery.sequence, effects: try runtime.deliver(delivery))
            case .shutdown:
                ended = true
                return .done(sequence: 0, effects: [])
            }
        } catch {
            ended = true  // a worker ends after its failure reply
            throw self.failure(phase(), .loadFailed(.init(error.kind), error.message))
        }
        let frame = reply.encoded()
        guard frame.count <= Framing.maximumFrameSize else {
            ended = true
            throw failure(phase(), .loadFailed(.overLimit, "the keyboard's reply of \(frame.count) bytes is larger than the \(Framing.maximumFrameSize) bytes a frame may hold"))
        }
        do { return try WorkerMessage.decode(frame) } catch {
            throw failure(phase(), .protocolViolation("\(error)"))
        }
    }

    func requestAll(_ messages: [HostMessage], phase: @autoclosure () -> String,
                    handle: (Int, WorkerMessage) throws(KeyboardFailure) -> Void) throws(KeyboardFailure) {
        for (i, message) in messages.enumerated() {
            try handle(i, try request(message, phase: phase(), deadlineMilliseconds: nil))
        }
    }

    func kill() { ended = true }
    func shutdown() { ended = true }

    private func failure(_ phase: String, _ reason: KeyboardFailure.Reason) -> KeyboardFailure {
        KeyboardFailure(keyboardID: keyboardID, phase: phase, reason: reason)
    }
}
