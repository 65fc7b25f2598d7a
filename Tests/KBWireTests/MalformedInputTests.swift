import KBText
import KBWire
import Testing

/// Bytes a hostile or broken peer might send: each is rejected with the WireError that names the problem.
@Suite("Malformed input")
struct MalformedInputTests {
    /// A delivery (sequence 1, no facts, no window) with hand-written call bytes.
    func deliver(_ call: [UInt8]) -> [UInt8] { [3] + le64(1) + [0, 0] + call }
    /// A `done` (sequence 0) with hand-written effect-list bytes (count included).
    func done(_ effects: [UInt8]) -> [UInt8] { [3] + le64(0) + effects }
    /// A `done` holding one setLayout with one row of one hand-written key.
    func layoutKey(_ key: [UInt8]) -> [UInt8] { done(le32(1) + [2] + utf8String("") + le32(1) + le32(1) + key) }
    /// A key's bytes with a given role byte and width. (Identifier and label are long enough for
    /// the key to take 26 bytes, the size the decoder assumes; see layoutWithSmallKeysRoundTrips.)
    func key(role: UInt8 = 0, width: Double = 1, flags: [UInt8] = [0, 0, 0, 0, 0]) -> [UInt8] {
        utf8String("key") + utf8String("KEY") + [role] + le64(width.bitPattern) + flags
    }
    /// A delivery carrying a hand-written window.
    func window(text: String, selection: (Int, Int), marked: (Int, Int)? = nil) -> [UInt8] {
        var w = ByteWriter()
        w.u8(3); w.u64(1); w.u8(0); w.u8(1)
        w.string(text); w.int(selection.0); w.int(selection.1)
        if let marked { w.u8(1); w.int(marked.0); w.int(marked.1) } else { w.u8(0) }
        w.bool(false); w.bool(false)
        w.u8(5)
        return w.bytes
    }

    // MARK: Tags

    @Test("Unknown message tags are rejected")
    func unknownMessageTags() {
        for tag: UInt8 in [0, 5, 200, 255] {
            #expect(throws: WireError.invalidTag(type: "host message", tag: tag)) { try HostMessage.decode([tag]) }
            #expect(throws: WireError.invalidTag(type: "worker message", tag: tag)) { try WorkerMessage.decode([tag]) }
        }
    }

    @Test("Empty input is a truncated message")
    func emptyInput() {
        #expect(throws: WireError.truncated(field: "host message")) { try HostMessage.decode([]) }
        #expect(throws: WireError.truncated(field: "worker message")) { try WorkerMessage.decode([]) }
    }

    @Test("Unknown nested tags are rejected: call, life cycle, text input, key event, effect, edit, role, failure kind")
    func unknownNestedTags() {
        #expect(throws: WireError.invalidTag(type: "call", tag: 8)) { try HostMessage.decode(deliver([8])) }
        #expect(throws: WireError.invalidTag(type: "drag phase", tag: 3)) { try HostMessage.decode(deliver([7] + le32(0) + le32(0) + [3])) }
        #expect(throws: WireError.invalidTag(type: "call", tag: 0)) { try HostMessage.decode(deliver([0])) }
        #expect(throws: WireError.invalidTag(type: "life-cycle selector", tag: 5)) {
            try HostMessage.decode(deliver([1, 5, 0]))
        }
        #expect(throws: WireError.invalidTag(type: "text input callback", tag: 4)) {
            try HostMessage.decode(deliver([2, 4]))
        }
        #expect(throws: WireError.invalidTag(type: "key event kind", tag: 5)) {
            try HostMessage.decode(deliver([3] + le32(0) + le32(0) + [5] + le32(1) + le32(0) + le64(0)))
        }
        #expect(throws: WireError.invalidTag(type: "effect", tag: 12)) { try WorkerMessage.decode(done(le32(1) + [12])) }
        #expect(throws: WireError.invalidTag(type: "haptic kind", tag: 9)) { try WorkerMessage.decode(done(le32(1) + [11, 9] + le64(0))) }
        #expect(throws: WireError.invalidTag(type: "effect", tag: 0)) { try WorkerMessage.decode(done(le32(1) + [0])) }
        #expect(throws: WireError.invalidTag(type: "edit", tag: 6)) { try WorkerMessage.decode(done(le32(1) + [1, 6])) }
        #expect(throws: WireError.invalidTag(type: "key role", tag: 8)) { try WorkerMessage.decode(layoutKey(key(role: 8))) }
        #expect(throws: WireError.invalidTag(type: "failure kind", tag: 11)) {
            try WorkerMessage.decode([4, 11] + utf8String("x"))
        }
    }

    @Test("Out-of-range text input trait values are rejected")
    func unknownTraitValues() throws {
        let valid = HostMessage.load(LoadRequest(pluginPath: "p", className: "c", facts: ControllerFacts(),
                                                 window: DocumentWindow())).encoded()
        let traitsOffset = 1 + 5 + 5 + 2 + 9 + 4   // tag, path, class, two flags, "en-US", ""
        #expect(Array(valid[traitsOffset ..< traitsOffset + 8]) == [0, 0, 2, 0, 0, 0, 0, 0])
        let fields: [(String, UInt8)] = [("keyboard type", 12), ("return key type", 12), ("autocapitalization", 4),
                                         ("autocorrection", 3), ("spell checking", 3), ("keyboard appearance", 3)]
        for (i, (field, bad)) in fields.enumerated() {
            var bytes = valid
            bytes[traitsOffset + i] = bad
            #expect(throws: WireError.invalidTag(type: field, tag: bad)) { try HostMessage.decode(bytes) }
        }
        var secure = valid
        secure[traitsOffset + 6] = 2
        #expect(throws: WireError.invalidValue(field: "secure text entry", reason: "boolean byte 2 is neither 0 nor 1")) {
            try HostMessage.decode(secure)
        }
    }

    // MARK: Truncation and trailing bytes

    @Test("Every proper prefix of every valid host message throws")
    func everyHostPrefixThrows() {
        for message in Samples.hostMessages {
            let bytes = message.encoded()
            for n in 0..<bytes.count {
                #expect(throws: WireError.self, "\(message) cut to \(n) bytes") { try HostMessage.decode(Array(bytes.prefix(n))) }
            }
        }
    }

    @Test("Every proper prefix of every valid worker message throws")
    func everyWorkerPrefixThrows() {
        for message in Samples.workerMessages {
            let bytes = message.encoded()
            for n in 0..<bytes.count {
                #expect(throws: WireError.self, "\(message) cut to \(n) bytes") { try WorkerMessage.decode(Array(bytes.prefix(n))) }
            }
        }
    }

    @Test("Truncation names the field it cut into")
    func truncationNamesField() {
        #expect(throws: WireError.truncated(field: "protocol version")) { try HostMessage.decode([1, 1, 0, 0]) }
        #expect(throws: WireError.truncated(field: "ABI version")) { try HostMessage.decode([1, 1, 0, 0, 0]) }
        #expect(throws: WireError.truncated(field: "pid")) { try WorkerMessage.decode([1] + le32(1) + le32(1) + [0, 0]) }
        #expect(throws: WireError.truncated(field: "failure message")) {
            try WorkerMessage.decode([4, 0] + le32(10) + Array("short".utf8))   // announces 10 bytes, has 5
        }
        #expect(throws: WireError.truncated(field: "failure message")) { try WorkerMessage.decode([4, 0] + le32(.max)) }
    }

    @Test("Bytes after a complete message are rejected")
    func trailingBytes() {
        #expect(throws: WireError.trailingBytes(count: 1)) { try HostMessage.decode([4, 0]) }
        #expect(throws: WireError.trailingBytes(count: 3)) {
            try HostMessage.decode(HostMessage.hello(protocolVersion: 1, abiVersion: 1).encoded() + [1, 2, 3])
        }
        for message in Samples.workerMessages {
            #expect(throws: WireError.trailingBytes(count: 1)) { try WorkerMessage.decode(message.encoded() + [0]) }
        }
    }

    // MARK: Values

    @Test("Invalid UTF-8 in a string is rejected", arguments: [
        [0xFF], [0x80], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE6, 0x97], [0xF4, 0x90, 0x80, 0x80], [0x61, 0xFE, 0x62],
    ] as [[UInt8]])
    func invalidUTF8(bad: [UInt8]) {
        let string = le32(UInt32(bad.count)) + bad
        #expect(throws: WireError.invalidUTF8(field: "failure message")) { try WorkerMessage.decode([4, 0] + string) }
        #expect(throws: WireError.invalidUTF8(field: "inserted text")) { try WorkerMessage.decode(done(le32(1) + [1, 1] + string)) }
        #expect(throws: WireError.invalidUTF8(field: "plugin path")) { try HostMessage.decode([2] + string) }
    }

    @Test("A boolean byte of 2 is rejected")
    func booleanByteTwo() {
        let reason = "boolean byte 2 is neither 0 nor 1"
        #expect(throws: WireError.invalidValue(field: "facts flag", reason: reason)) {
            try HostMessage.decode([3] + le64(1) + [2])
        }
        #expect(throws: WireError.invalidValue(field: "animated", reason: reason)) { try HostMessage.decode(deliver([1, 0, 2])) }
        #expect(throws: WireError.invalidValue(field: "key action", reason: reason)) {
            try WorkerMessage.decode(layoutKey(key(flags: [2, 0, 0, 0, 0])))
        }
        #expect(throws: WireError.invalidValue(field: "key repeats", reason: reason)) {
            try WorkerMessage.decode(layoutKey(key(flags: [0, 0, 0, 0, 2])))
        }
        #expect(throws: WireError.invalidValue(field: "needsInputModeSwitchKey", reason: reason)) {
            try HostMessage.decode([3] + le64(1) + [1, 2])
        }
    }

    @Test("A count larger than the bytes left is rejected before anything is allocated")
    func countTooLarge() {
        // 4 billion effects would need hundreds of gigabytes if the decoder reserved them.
        #expect(throws: WireError.countTooLarge(field: "effects", count: 0xFFFF_FFFF)) {
            try WorkerMessage.decode(done(le32(.max)))
        }
        #expect(throws: WireError.countTooLarge(field: "effects", count: 2)) { try WorkerMessage.decode(done(le32(2) + [6])) }
        #expect(throws: WireError.countTooLarge(field: "selectors", count: 0xFFFF_FFFF)) {
            try WorkerMessage.decode([2] + le32(.max))
        }
        // A selector takes at least 8 bytes (two string lengths).
        #expect(throws: WireError.countTooLarge(field: "selectors", count: 1)) {
            try WorkerMessage.decode([2] + le32(1) + [0, 0, 0, 0, 0, 0, 0])
        }
        #expect(throws: WireError.countTooLarge(field: "layout rows", count: 1_000_000)) {
            try WorkerMessage.decode(done(le32(1) + [2] + utf8String("") + le32(1_000_000)))
        }
        #expect(throws: WireError.countTooLarge(field: "layout keys", count: 0xFFFF_FFFF)) {
            try WorkerMessage.decode(done(le32(1) + [2] + utf8String("") + le32(1) + le32(.max)))
        }
        var w = ByteWriter()
        w.u8(2); w.string("p"); w.string("c"); w.bool(true); w.bool(false); w.string("en"); w.string("")
        for _ in 0..<8 { w.u8(0) }
        w.u32(.max)
        #expect(throws: WireError.countTooLarge(field: "input modes", count: 0xFFFF_FFFF)) { try HostMessage.decode(w.bytes) }
    }

    @Test("Non-finite doubles are rejected", arguments: [Double.nan, .infinity, -.infinity, Double(bitPattern: 0x7FF0_0000_0000_0001)])
    func nonFiniteDoubles(value: Double) {
        let reason = "not a finite number"
        #expect(throws: WireError.invalidValue(field: "width", reason: reason)) {
            try HostMessage.decode(deliver([4] + le64(value.bitPattern) + le64(1.0.bitPattern)))
        }
        #expect(throws: WireError.invalidValue(field: "height", reason: reason)) {
            try HostMessage.decode(deliver([4] + le64(1.0.bitPattern) + le64(value.bitPattern)))
        }
        #expect(throws: WireError.invalidValue(field: "key width", reason: reason)) {
            try WorkerMessage.decode(layoutKey(key(width: value)))
        }
    }

    @Test("A key width outside (0, 100] is rejected", arguments: [0, -0.0, -1, 100.5, 1e300])
    func keyWidthOutOfRange(width: Double) {
        #expect(throws: WireError.invalidValue(field: "key width", reason: "\(width) is not in (0, 100]")) {
            try WorkerMessage.decode(layoutKey(key(width: width)))
        }
        let encoded = WorkerMessage.done(sequence: 0, effects: [.setLayout(WireLayout(rows: [[
            WireKey(identifier: "k", label: "K", width: width, action: "tap")]]))]).encoded()
        #expect(throws: WireError.self) { try WorkerMessage.decode(encoded) }
    }

    @Test("Key widths just inside (0, 100] are accepted", arguments: [Double.leastNonzeroMagnitude, 0.5, 100])
    func keyWidthInRange(width: Double) throws {
        let message = WorkerMessage.done(sequence: 0, effects: [.setLayout(WireLayout(rows: [[
            WireKey(identifier: "k", label: "K", width: width, action: "tap")]]))])
        #expect(try WorkerMessage.decode(message.encoded()) == message)
    }

    @Test("A window whose selection or marked range lies outside its text is rejected")
    func windowRangeOutsideText() throws {
        let outside = WireError.invalidValue(field: "window", reason: "selection or marked range lies outside the text")
        #expect(throws: outside) { try HostMessage.decode(window(text: "ab", selection: (3, 0))) }
        #expect(throws: outside) { try HostMessage.decode(window(text: "ab", selection: (1, 2))) }
        #expect(throws: outside) { try HostMessage.decode(window(text: "👍", selection: (0, 0), marked: (0, 3))) }
        // UTF-16, not bytes or characters: "日本" is 2 units, so 2 is its end and 3 is outside.
        #expect(throws: outside) { try HostMessage.decode(window(text: "日本", selection: (3, 0))) }
        _ = try HostMessage.decode(window(text: "日本", selection: (2, 0)))
        _ = try HostMessage.decode(window(text: "ab", selection: (1, 1), marked: (0, 2)))
    }

    @Test("Negative or huge ranges are rejected")
    func rangesOutOfBounds() {
        #expect(throws: WireError.invalidValue(field: "selection", reason: "range {-1, 0} is out of bounds")) {
            try HostMessage.decode(window(text: "ab", selection: (-1, 0)))
        }
        #expect(throws: WireError.invalidValue(field: "selection", reason: "range {0, -2} is out of bounds")) {
            try HostMessage.decode(window(text: "ab", selection: (0, -2)))
        }
        #expect(throws: WireError.invalidValue(field: "marked range", reason: "range {2147483648, 0} is out of bounds")) {
            try HostMessage.decode(window(text: "ab", selection: (0, 0), marked: (1 << 31, 0)))
        }
        #expect(throws: WireError.invalidValue(field: "marked selected range", reason: "range {0, \(Int.max)} is out of bounds")) {
            try WorkerMessage.decode(done(le32(1) + [1, 4] + utf8String("x") + le64(0) + le64(UInt64(Int.max))))
        }
    }

    @Test("A text position offset beyond ±Int32.max is rejected")
    func textPositionOffsetOutOfRange() {
        for n in [Int(Int32.max) + 1, -Int(Int32.max) - 1, Int.max] {
            #expect(throws: WireError.invalidValue(field: "text position offset", reason: "\(n) is out of range")) {
                try WorkerMessage.decode(done(le32(1) + [1, 3] + le64(UInt64(bitPattern: Int64(n)))))
            }
        }
    }

    @Test("A text position offset of Int.min is rejected, not a crash")
    func textPositionOffsetIntMin() {
        #expect(throws: WireError.invalidValue(field: "text position offset", reason: "\(Int.min) is out of range")) {
            try WorkerMessage.decode(done(le32(1) + [1, 3] + le64(UInt64(bitPattern: Int64.min))))
        }
    }
}
