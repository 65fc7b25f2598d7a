/// The primitive encoding: little-endian fixed-width integers, doubles as
/// their bit patterns, strings as a u32 byte count and UTF-8, optionals as a
/// 0/1 byte, arrays as a u32 count. Small and hand-written because the worker
/// does not import Foundation.
package struct ByteWriter: Sendable {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    /// A writer for one frame: room for the length header, filled in by `frame()`.
    package static func forFrame(capacity: Int = 64) -> ByteWriter {
        var w = ByteWriter(capacity: capacity)
        w.bytes.append(contentsOf: [0, 0, 0, 0])
        return w
    }

    /// The bytes with the frame header (the payload's length) filled in.
    package mutating func frame() -> [UInt8] {
        let n = UInt32(bytes.count - Framing.headerSize)
        bytes[0] = UInt8(truncatingIfNeeded: n)
        bytes[1] = UInt8(truncatingIfNeeded: n >> 8)
        bytes[2] = UInt8(truncatingIfNeeded: n >> 16)
        bytes[3] = UInt8(truncatingIfNeeded: n >> 24)
        return bytes
    }

    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    package mutating func bool(_ v: Bool) { bytes.append(v ? 1 : 0) }
    package mutating func u32(_ v: UInt32) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }
    package mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    package mutating func u64(_ v: UInt64) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }
    package mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    package mutating func int(_ v: Int) { i64(Int64(v)) }
    package mutating func double(_ v: Double) { u64(v.bitPattern) }
    package mutating func string(_ v: String) {
        var s = v
        s.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }
    package mutating func optionalString(_ v: String?) {
        if let v { u8(1); string(v) } else { u8(0) }
    }
    package mutating func count(_ n: Int) { u32(UInt32(n)) }
}

/// Reads what ByteWriter wrote, checking every bound: it never reads past the
/// end, never trusts a count larger than the bytes left, and rejects invalid UTF-8.
/// With a budget, it also counts what the decoded values will take in memory
/// (see `WireLimits`) and throws before that exceeds the budget.
package struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0
    /// The memory the decoded values may take (bytes, as `WireLimits` counts them).
    package let budget: Int
    /// What they take so far.
    package private(set) var spent = 0

    /// A reader of `bytes` whose decoded values may take at most `budget` bytes of memory.
    package init(_ bytes: [UInt8], budget: Int = .max) {
        self.bytes = bytes
        self.budget = budget
    }

    package var remaining: Int { bytes.count - offset }

    /// Counts `cost` bytes of decoded values against the budget.
    package mutating func charge(_ cost: Int) throws(WireError) {
        spent += cost
        guard spent <= budget else { throw .overBudget(limit: budget) }
    }

    private mutating func take(_ n: Int, _ field: String) throws(WireError) -> ArraySlice<UInt8> {
        guard n >= 0, remaining >= n else { throw .truncated(field: field) }
        defer { offset += n }
        return bytes[offset ..< offset + n]
    }

    private func need(_ n: Int, _ field: String) throws(WireError) {
        guard remaining >= n else { throw .truncated(field: field) }
    }

    package mutating func u8(_ field: String) throws(WireError) -> UInt8 {
        try need(1, field)
        defer { offset += 1 }
        return bytes[offset]
    }
    package mutating func bool(_ field: String) throws(WireError) -> Bool {
        let v = try u8(field)
        guard v <= 1 else { throw .invalidValue(field: field, reason: "boolean byte \(v) is neither 0 nor 1") }
        return v == 1
    }
    package mutating func u32(_ field: String) throws(WireError) -> UInt32 {
        try need(4, field)
        defer { offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
    package mutating func i32(_ field: String) throws(WireError) -> Int32 { Int32(bitPattern: try u32(field)) }
    package mutating func u64(_ field: String) throws(WireError) -> UInt64 {
        let low = UInt64(try u32(field))
        return low | UInt64(try u32(field)) << 32
    }
    package mutating func i64(_ field: String) throws(WireError) -> Int64 { Int64(bitPattern: try u64(field)) }
    package mutating func int(_ field: String) throws(WireError) -> Int { Int(try i64(field)) }
    package mutating func double(_ field: String) throws(WireError) -> Double {
        let v = Double(bitPattern: try u64(field))
        guard v.isFinite else { throw .invalidValue(field: field, reason: "not a finite number") }
        return v
    }
    package mutating func string(_ field: String) throws(WireError) -> String {
        let n = Int(try u32(field))
        guard n <= remaining else { throw .truncated(field: field) }
        try charge(WireLimits.stringCost(n))
        let slice = try take(n, field)
        guard let s = slice.withUnsafeBufferPointer({ String(validating: $0, as: UTF8.self) }) else {
            throw .invalidUTF8(field: field)
        }
        return s
    }
    package mutating func optionalString(_ field: String) throws(WireError) -> String? {
        try bool(field) ? try string(field) : nil
    }
    /// An array count, checked against the bytes left (each element takes at least `minimumSize`).
    package mutating func count(_ field: String, minimumSize: Int = 1) throws(WireError) -> Int {
        let n = Int(try u32(field))
        guard n * max(minimumSize, 1) <= remaining else { throw .countTooLarge(field: field, count: n) }
        return n
    }
    package mutating func enumCase<E: RawRepresentable<UInt8>>(_: E.Type, _ field: String) throws(WireError) -> E {
        let raw = try u8(field)
        guard let v = E(rawValue: raw) else { throw .invalidTag(type: field, tag: raw) }
        return v
    }
    package func finish() throws(WireError) {
        guard remaining == 0 else { throw .trailingBytes(count: remaining) }
    }
}
