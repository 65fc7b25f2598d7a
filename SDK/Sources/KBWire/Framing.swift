/// Framing, written once for both sides: a 4-byte little-endian length, then
/// the payload. The reader checks the length against a bound before it
/// allocates anything, so a hostile plugin cannot make the host reserve memory.
package enum Framing {
    package static let headerSize = 4
    /// The largest payload either side accepts: what one call may send back
    /// (`WireLimits.maximumEffectBytes`, KBH_MAX_CALL_BYTES), plus 1 MiB for the rest
    /// of a message (a load reply's selectors; a delivery's window and facts).
    ///
    /// A message is never split across frames; the bound comes from the limits of one
    /// call instead. Splitting would bound a frame but not a reply, which the host must
    /// bound anyway, and a layout would need continuation messages of its own. One
    /// frame per request and per reply is also what lets the host tell at once that a
    /// worker sent something nobody asked for (`ExtensionProcess`).
    package static let maximumFrameSize = WireLimits.maximumEffectBytes + (1 << 20)

    /// Appends one frame holding `payload` to `buffer`.
    package static func appendFrame(_ payload: [UInt8], to buffer: inout [UInt8]) {
        let n = UInt32(payload.count)
        buffer.append(UInt8(truncatingIfNeeded: n))
        buffer.append(UInt8(truncatingIfNeeded: n >> 8))
        buffer.append(UInt8(truncatingIfNeeded: n >> 16))
        buffer.append(UInt8(truncatingIfNeeded: n >> 24))
        buffer.append(contentsOf: payload)
    }
}

/// Accumulates bytes read from a stream and yields whole frames.
package struct FrameReader: Sendable {
    package let maximumFrameSize: Int
    private var buffer: [UInt8] = []
    private var start = 0

    /// Frames above this size are received into room reserved for them and handed over without a copy.
    static let largeFrame = 256 << 10

    package init(maximumFrameSize: Int = Framing.maximumFrameSize) {
        self.maximumFrameSize = maximumFrameSize
    }

    /// Bytes received but not yet returned as frames.
    package var pendingByteCount: Int { buffer.count - start }

    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= Self.largeFrame)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame's payload, nil if more bytes are needed.
    /// Throws `WireError.frameTooLarge` as soon as a header announces too much.
    package mutating func nextFrame() throws(WireError) -> [UInt8]? {
        guard buffer.count - start >= Framing.headerSize else { return nil }
        let length = Int(buffer[start]) | Int(buffer[start + 1]) << 8
            | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 24
        guard length <= maximumFrameSize else {
            throw .frameTooLarge(length: length, maximum: maximumFrameSize)
        }
        guard buffer.count - start - Framing.headerSize >= length else {
            // A large frame: room for all of it once, not by doubling as it arrives.
            if length > Self.largeFrame { buffer.reserveCapacity(start + Framing.headerSize + length) }
            return nil
        }
        let payloadStart = start + Framing.headerSize
        if length > Self.largeFrame && start == 0 && buffer.count == payloadStart + length {
            // The whole buffer is this frame: hand it over rather than copy it.
            var payload: [UInt8] = []
            swap(&payload, &buffer)
            payload.removeFirst(Framing.headerSize)
            return payload
        }
        let payload = Array(buffer[payloadStart ..< payloadStart + length])
        start = payloadStart + length
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= Self.largeFrame)  // a large frame's room goes with it
            start = 0
        } else if start > 65536 {
            buffer.removeFirst(start)
            start = 0
        }
        return payload
    }
}

/// Everything that can be wrong with bytes on the wire. Each names what was wrong.
package enum WireError: Error, Hashable, Sendable, CustomStringConvertible {
    case frameTooLarge(length: Int, maximum: Int)
    case truncated(field: String)
    case invalidTag(type: String, tag: UInt8)
    case invalidUTF8(field: String)
    case countTooLarge(field: String, count: Int)
    case trailingBytes(count: Int)
    case invalidValue(field: String, reason: String)
    /// More elements than a message may hold (`WireLimits`).
    case overLimit(field: String, count: Int, limit: Int)
    /// Holding the decoded message would take more memory than the budget (`WireLimits`).
    case overBudget(limit: Int)

    package var description: String {
        switch self {
        case .frameTooLarge(let length, let maximum):
            "frame of \(length) bytes exceeds the maximum of \(maximum)"
        case .truncated(let field): "message ends inside \(field)"
        case .invalidTag(let type, let tag): "unknown \(type) tag \(tag)"
        case .invalidUTF8(let field): "\(field) is not valid UTF-8"
        case .countTooLarge(let field, let count): "\(field) count \(count) is larger than the message"
        case .trailingBytes(let count): "\(count) unexpected bytes after the message"
        case .invalidValue(let field, let reason): "\(field): \(reason)"
        case .overLimit(let field, let count, let limit): "\(count) \(field) in one message; at most \(limit) are allowed"
        case .overBudget(let limit):
            "holding the message would take more than \(WireLimits.mebibytes(limit)) of the host's memory"
        }
    }
}
