import KBWire

// MARK: Replies: accepted only for the call outstanding

// A worker answers each request with exactly one reply, in one frame, and never
// speaks unasked. The keyboard's plugin runs in the worker's process and can
// write to the channel itself: it could write replies ahead of time, numbered
// for calls not yet made, to be taken as the answers to those calls.
//
// So a call's number on the wire is not just its number: its high 32 bits are a
// keyed hash of it (a key of this process's, drawn at random; Swift's Hasher is
// SipHash with a random seed). The worker echoes the number it was sent; nothing
// in its process can compute a later call's before the host sends it. A reply
// written ahead of its call cannot carry that call's number, and is refused the
// moment it is read, before anything of it is applied, without a system call. A
// reply to an earlier call, a second reply, and anything after the last reply the
// host waits for are refused too.
//
// What this cannot tell: within a pipelined batch (`requestAll`) the worker holds
// every request of the batch at once, so a plugin that reads its process's memory
// can answer later calls of the batch before the worker reaches them; the surplus
// shows after the batch's last reply, and the keyboard ends then.

extension ExtensionProcess {
    /// A call's number as sent on the wire: the number in the low 32 bits, a
    /// keyed hash of it in the high 32.
    func wireNumber(_ call: UInt64) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(callKey)
        hasher.combine(call)
        return UInt64(UInt32(truncatingIfNeeded: hasher.finalize())) << 32 | call & 0xFFFF_FFFF
    }

    /// The request as sent: a delivery carries its call's wire number.
    func sealed(_ request: HostMessage) -> HostMessage {
        guard case .deliver(var delivery) = request else { return request }
        delivery.sequence = wireNumber(delivery.sequence)
        return .deliver(delivery)
    }

    /// Before a request: nothing may be left over from the last exchange.
    func refuseUnasked(phase: () -> String) throws(KeyboardFailure) {
        guard reader.pendingByteCount > 0 else { return }
        let (what, bytes) = unasked()
        throw end(phase: phase(), .protocolViolation("replied ahead: it sent \(what) while no call was outstanding (\(bytes) bytes unasked)"))
    }

    /// The reply if it answers its request, a delivery's with the call's own number
    /// back; after the `last` reply the host waits for, nothing more may have arrived.
    func accept(_ reply: WorkerMessage, answering request: HostMessage, last: Bool,
                phase: () -> String) throws(KeyboardFailure) -> WorkerMessage {
        let accepted: WorkerMessage
        switch (request, reply) {
        case (.hello, .hello), (.load, .loaded):
            accepted = reply
        case (.deliver(let delivery), .done(let number, let effects)) where number == wireNumber(delivery.sequence):
            accepted = .done(sequence: delivery.sequence, effects: effects)
        case (.deliver(let delivery), .done(let number, _)) where !isGenuine(number):
            throw end(phase: phase(), .protocolViolation(
                "replied ahead: it answered call \(delivery.sequence) with a reply numbered \(number), a number the host never gave out (written before the call was asked)"))
        default:
            throw end(phase: phase(), .protocolViolation("answered \(name(request)) with \(name(reply))"))
        }
        if last && reader.pendingByteCount > 0 {
            let (what, bytes) = unasked()
            throw end(phase: phase(), .protocolViolation(
                "replied ahead: its answer to \(name(request)) came with \(what), which had not been asked (\(bytes) bytes unasked)"))
        }
        return accepted
    }

    /// Whether a number on the wire is one the host gave a call.
    private func isGenuine(_ number: UInt64) -> Bool { number == wireNumber(number & 0xFFFF_FFFF) }

    /// What the bytes nobody asked for hold (the first whole message, named), and how many there are so far.
    private func unasked() -> (what: String, bytes: Int) {
        var copy = reader
        let bytes = reader.pendingByteCount
        if let frame = try? copy.nextFrame(), let message = try? WorkerMessage.decode(frame) {
            return (name(message), bytes)
        }
        return ("bytes that are not a whole message", bytes)
    }

    private func name(_ message: HostMessage) -> String {
        switch message {
        case .hello: "hello"
        case .load: "load"
        case .deliver(let delivery): "call \(delivery.sequence)"
        case .shutdown: "shutdown"
        }
    }

    private func name(_ message: WorkerMessage) -> String {
        switch message {
        case .hello: "a hello"
        case .loaded: "a load reply"
        case .done(let number, _) where isGenuine(number): "another reply to call \(number & 0xFFFF_FFFF)"
        case .done(let number, _): "a reply numbered \(number), a number the host never gave out"
        case .failure: "a failure"
        }
    }
}
