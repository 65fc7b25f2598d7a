import KBSystem
import KBWire

// MARK: Replies: accepted only for the call outstanding

// A worker answers each request with exactly one reply, in one frame, and never
// speaks unasked. The keyboard's plugin runs in the worker's process and can
// write to the channel itself, so it could write replies ahead of time, numbered
// for calls not yet made, for them to be taken as the answers to those calls.
// The host takes a reply only for the request outstanding, and refuses anything
// else the moment it sees it: bytes that arrived while nothing was asked, a reply
// to another call, and anything after the last reply it waits for.
//
// What this cannot tell: within a pipelined batch (`requestAll`) every request is
// outstanding from the moment the batch is written, so a plugin may answer later
// calls of its own batch before the worker reaches them; the surplus shows after
// the batch's last reply, and the keyboard ends then. Nothing in-band could do
// better: the plugin shares the worker's memory, so it can forge whatever the worker
// would send. Only what was never asked is refused outright.

extension ExtensionProcess {
    /// Before a request: nothing may have arrived since the last reply. One
    /// non-blocking receive, which finds nothing on the fast path.
    func refuseUnasked(phase: () -> String) throws(KeyboardFailure) {
        if reader.pendingByteCount == 0 {
            let n: Int?
            do {
                n = try readBuffer.withUnsafeMutableBytes { (b) throws(SystemError) in
                    try Sys.receive(socket, into: b, waiting: false)
                }
            } catch {
                throw end(phase: phase(), .io("\(error)"), preferExit: true)
            }
            guard let n else { throw end(phase: phase(), .io("the channel closed"), preferExit: true) }
            guard n > 0 else { return }
            readBuffer.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
        let (what, bytes) = unasked()
        throw end(phase: phase(), .protocolViolation("replied ahead: it sent \(what) while no call was outstanding (\(bytes) bytes unasked)"))
    }

    /// A reply must answer its request (a delivery's by its sequence number);
    /// after the `last` reply the host waits for, nothing more may have arrived.
    func verify(_ reply: WorkerMessage, answers request: HostMessage, last: Bool, phase: () -> String) throws(KeyboardFailure) {
        let matches = switch (request, reply) {
        case (.hello, .hello), (.load, .loaded): true
        case (.deliver(let delivery), .done(let sequence, _)): sequence == delivery.sequence
        default: false
        }
        guard matches else {
            throw end(phase: phase(), .protocolViolation("answered \(Self.name(request)) with \(Self.name(reply))"))
        }
        if last && reader.pendingByteCount > 0 {
            let (what, bytes) = unasked()
            throw end(phase: phase(), .protocolViolation(
                "replied ahead: its answer to \(Self.name(request)) came with \(what), which had not been asked (\(bytes) bytes unasked)"))
        }
    }

    /// What the bytes nobody asked for hold (the first whole message, named), and how many there are so far.
    private func unasked() -> (what: String, bytes: Int) {
        var copy = reader
        let bytes = reader.pendingByteCount
        if let frame = try? copy.nextFrame(), let message = try? WorkerMessage.decode(frame) {
            return (Self.name(message), bytes)
        }
        return ("bytes that are not a whole message", bytes)
    }

    static func name(_ message: HostMessage) -> String {
        switch message {
        case .hello: "hello"
        case .load: "load"
        case .deliver(let delivery): "call \(delivery.sequence)"
        case .shutdown: "shutdown"
        }
    }

    static func name(_ message: WorkerMessage) -> String {
        switch message {
        case .hello: "a hello"
        case .loaded: "a load reply"
        case .done(let sequence, _): "a reply to call \(sequence)"
        case .failure: "a failure"
        }
    }
}
