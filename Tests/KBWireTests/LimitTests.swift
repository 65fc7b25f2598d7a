import KBText
import KBWire
import Testing

/// One reply is bounded: in effects, in bytes, and in the memory the host spends
/// decoding it; what the worker measures before it sends is what the host counts.
@Suite("Limits of one reply")
struct LimitTests {
    /// A `done` (sequence 5) holding `count` effects of one tag byte each (6: playInputClick).
    func tinyEffects(_ count: Int) -> [UInt8] {
        [3] + le64(5) + le32(UInt32(count)) + [UInt8](repeating: 6, count: count)
    }

    /// A `done` holding one layout of `keys` keys whose strings are all empty (22 bytes a key).
    func emptyKeys(_ keys: Int) -> [UInt8] {
        let key = utf8String("") + utf8String("") + [0] + le64(1.0.bitPattern) + [0, 0, 0, 0, 0]
        var bytes = [3] + le64(5) + le32(1) + [2] + utf8String("") + le32(1) + le32(UInt32(keys))
        bytes.reserveCapacity(bytes.count + keys * key.count)
        for _ in 0..<keys { bytes += key }
        return bytes
    }

    @Test("A reply of exactly the most effects decodes; one more is refused by its count, before anything is held")
    func effectCount() throws {
        guard case .done(5, let effects) = try WorkerMessage.decode(tinyEffects(WireLimits.maximumEffects)) else {
            Issue.record("not a done")
            return
        }
        #expect(effects.count == 65_536 && effects.allSatisfy { $0 == .playInputClick })
        #expect(throws: WireError.overLimit(field: "effects", count: 65_537, limit: 65_536)) {
            try WorkerMessage.decode(tinyEffects(WireLimits.maximumEffects + 1))
        }
    }

    @Test("The issue's frame: one legal 1 MiB frame of 1,048,563 one-byte effects is refused")
    func millionTinyEffects() throws {
        let payload = tinyEffects((1 << 20) - 13)
        #expect(payload.count == 1 << 20)
        #expect(payload.count <= Framing.maximumFrameSize, "the frame itself is legal")
        #expect(throws: WireError.overLimit(field: "effects", count: 1_048_563, limit: 65_536)) {
            try WorkerMessage.decode(payload)
        }
        #expect(WireError.overLimit(field: "effects", count: 1_048_563, limit: 65_536).description
                == "1048563 effects in one message; at most 65536 are allowed")
    }

    @Test("A layout that would take more than the memory budget is refused while it is decoded")
    func memoryBudget() throws {
        let keyCost = WireLimits.keyCost
        let fits = (WireLimits.maximumEffectMemory - 4096) / keyCost
        #expect(throws: Never.self) { try WorkerMessage.decode(emptyKeys(fits)) }
        let over = WireLimits.maximumEffectMemory / keyCost + 1
        let bytes = emptyKeys(over)
        #expect(bytes.count <= Framing.maximumFrameSize, "legal on the wire: \(bytes.count) bytes")
        #expect(throws: WireError.overBudget(limit: WireLimits.maximumEffectMemory)) { try WorkerMessage.decode(bytes) }
        #expect(WireError.overBudget(limit: 48 << 20).description
                == "holding the message would take more than 48.0 MiB of the host's memory")
    }

    @Test("measure() counts the bytes the effects take on the wire and exactly what the decoder charges",
          arguments: Samples.effects.map { [$0] } + [Samples.effects, []])
    func measureAgreesWithTheDecoder(effects: [Effect]) throws {
        let message = WorkerMessage.done(sequence: 1, effects: effects)
        let (bytes, memory) = WireLimits.measure(effects)
        #expect(message.encoded().count == 1 + 8 + bytes)
        #expect(try WorkerMessage.decode(message.encoded(), budget: memory) == message)
        if memory > 0 {
            #expect(throws: WireError.overBudget(limit: memory - 1)) {
                try WorkerMessage.decode(message.encoded(), budget: memory - 1)
            }
        }
    }

    @Test("Strings: up to 15 bytes are inline and free; longer ones cost their bytes and their storage")
    func stringCosts() {
        #expect(WireLimits.stringCost(0) == 0 && WireLimits.stringCost(15) == 0)
        #expect(WireLimits.stringCost(16) == 16 + WireLimits.stringOverhead)
        #expect(WireLimits.measure([.edit(.insertText(String(repeating: "a", count: 2 << 20)))])
                == (bytes: 4 + 1 + 1 + 4 + (2 << 20), memory: 32 + MemoryLayout<Effect>.stride + (2 << 20) + 33))
    }

    @Test("One call's edits: each after the first counts the length of the document it leaves; at the limit they pass, one unit over they do not")
    func editWork() {
        let mebi = 1 << 20, limit = WireLimits.maximumEditWork
        let document = TextBuffer(text: String(repeating: "x", count: mebi))
        let stay = Effect.edit(.adjustTextPosition(0))  // leaves the length as it is
        let atLimit = [Effect](repeating: stay, count: limit / mebi + 1)
        #expect(WireLimits.editWorkViolation(atLimit, document: document) == nil)
        let message = WireLimits.editWorkViolation(atLimit + [stay], document: document)
        #expect(message == "made \(limit / mebi + 2) edits in one call to a document of \(mebi) UTF-16 code units; "
                + "one call's edits, each after the first counted at the length of the document it leaves, may come to at most "
                + "\(limit) (KBH_MAX_CALL_EDIT_WORK): make fewer, larger edits (consecutive insertions travel as one)")
        // One unit more than the limit: the last edit leaves the document one longer.
        #expect(WireLimits.editWorkViolation(atLimit.dropLast() + [.edit(.insertText("y"))], document: document) != nil)
        // One edit passes whatever the document, and other effects are not edits.
        let huge = TextBuffer(text: String(repeating: "é", count: 1 << 22))
        #expect(WireLimits.editWorkViolation([.edit(.insertText("a")), .playInputClick, .playInputClick], document: huge) == nil)
        // An insertion undone at once leaves the document as it was: 64,000 such edits to a short one pass.
        let undone = [Effect](repeating: .edit(.insertText("a")), count: 32_000).flatMap { [$0, .edit(.deleteBackward)] }
        #expect(WireLimits.editWorkViolation(undone, document: TextBuffer(text: "kept é")) == nil)
        // Deletions at the start of the text remove nothing: they count the whole document.
        var atStart = document
        atStart.adjustTextPosition(byCharacterOffset: -mebi)
        #expect(WireLimits.editWorkViolation([Effect](repeating: .edit(.deleteBackward), count: limit / mebi + 2), document: atStart) != nil)
    }

    @Test("violation() names the limit a call went over, and is nil for ordinary use")
    func violations() {
        #expect(WireLimits.violation(Samples.effects) == nil)
        #expect(WireLimits.violation([.edit(.insertText(String(repeating: "x", count: 2 << 20)))]) == nil)
        let clicks = [Effect](repeating: .playInputClick, count: 65_537)
        #expect(WireLimits.violation(clicks)
                == "made 65537 changes in one call; one call may make at most 65536 (KBH_MAX_CALL_EFFECTS)")
        let huge = [Effect.edit(.insertText(String(repeating: "x", count: (8 << 20) + 1)))]
        #expect(WireLimits.violation(huge)
                == "sent 8.0 MiB of changes in one call; one call may send at most 8.0 MiB (KBH_MAX_CALL_BYTES)")
        let keys = [WireKey](repeating: WireKey(identifier: "", label: ""),
                             count: WireLimits.maximumEffectMemory / WireLimits.keyCost + 1)
        let message = WireLimits.violation([.setLayout(WireLayout(rows: [keys]))])
        #expect(message?.hasSuffix("(KBH_MAX_CALL_MEMORY)") == true, "\(message ?? "nil")")
    }

    @Test("A 100,000-key layout is well within the limits")
    func hundredThousandKeys() {
        let keys = (0..<100_000).map { WireKey(identifier: "r\($0 / 1000)c\($0 % 1000)", label: "k\($0)", action: "insertLabel:") }
        let layout = WireLayout(rows: (0..<100).map { Array(keys[$0 * 1000 ..< ($0 + 1) * 1000]) })
        let (bytes, memory) = WireLimits.measure([.setLayout(layout)])
        #expect(bytes < WireLimits.maximumEffectBytes * 2 / 3, "\(bytes) bytes")
        #expect(memory < WireLimits.maximumEffectMemory * 5 / 6, "\(memory) bytes")
        #expect(WireLimits.violation([.setLayout(layout)]) == nil)
    }

    @Test("A large frame arrives whole, handed over without a copy, also after other frames")
    func largeFrames() throws {
        let big = (0 ..< (3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var stream: [UInt8] = []
        Framing.appendFrame(big, to: &stream)
        var reader = FrameReader()
        for chunk in stride(from: 0, to: stream.count, by: 65_536) {
            #expect(try reader.nextFrame() == nil)
            reader.feed(Array(stream[chunk ..< min(chunk + 65_536, stream.count)]))
        }
        #expect(try reader.nextFrame() == big)
        #expect(reader.pendingByteCount == 0)

        var mixed: [UInt8] = []
        Framing.appendFrame([1, 2], to: &mixed)
        Framing.appendFrame(big, to: &mixed)
        Framing.appendFrame([3], to: &mixed)
        reader.feed(mixed)
        #expect(try reader.drain() == [[1, 2], big, [3]])
        #expect(reader.pendingByteCount == 0)
    }
}
