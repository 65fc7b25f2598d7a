import KBText
import KBWire
import Testing

@Suite("Message round trips")
struct RoundTripTests {

    @Test("Every HostMessage sample decodes to itself", arguments: Samples.hostMessages)
    func hostMessageRoundTrip(message: HostMessage) throws {
        let bytes = message.encoded()
        #expect(try HostMessage.decode(bytes) == message)
    }

    @Test("Every WorkerMessage sample decodes to itself", arguments: Samples.workerMessages)
    func workerMessageRoundTrip(message: WorkerMessage) throws {
        let bytes = message.encoded()
        #expect(try WorkerMessage.decode(bytes) == message)
    }

    @Test("The samples cover every Call case, every Effect case and every failure kind")
    func samplesCoverEveryCase() {
        var callTags: Set<String> = [], effectTags: Set<String> = [], editTags: Set<String> = []
        for call in Samples.calls {
            switch call {
            case .lifecycle: callTags.insert("lifecycle")
            case .textInput: callTags.insert("textInput")
            case .key: callTags.insert("key")
            case .transition: callTags.insert("transition")
            case .memoryWarning: callTags.insert("memoryWarning")
            case .alternate: callTags.insert("alternate")
            case .drag: callTags.insert("drag")
            }
        }
        for effect in Samples.effects {
            switch effect {
            case .edit(let e):
                effectTags.insert("edit")
                switch e {
                case .insertText: editTags.insert("insertText")
                case .deleteBackward: editTags.insert("deleteBackward")
                case .adjustTextPosition: editTags.insert("adjustTextPosition")
                case .setMarkedText: editTags.insert("setMarkedText")
                case .unmarkText: editTags.insert("unmarkText")
                }
            case .setLayout: effectTags.insert("setLayout")
            case .setDisplay: effectTags.insert("setDisplay")
            case .advanceToNextInputMode: effectTags.insert("advanceToNextInputMode")
            case .dismissKeyboard: effectTags.insert("dismissKeyboard")
            case .playInputClick: effectTags.insert("playInputClick")
            case .log: effectTags.insert("log")
            case .setPasteboard: effectTags.insert("setPasteboard")
            case .playSound: effectTags.insert("playSound")
            case .setKeyExtras: effectTags.insert("setKeyExtras")
            case .haptic: effectTags.insert("haptic")
            }
        }
        #expect(callTags.count == 7)
        #expect(effectTags.count == 11)
        #expect(editTags.count == 5)
        let kinds = Samples.workerMessages.compactMap { m -> WorkerFailure.Kind? in
            if case .failure(let f) = m { return f.kind } else { return nil }
        }
        #expect(Set(kinds) == Set(WorkerFailure.Kind.allCases))
    }

    @Test("A load request round-trips every value of every text input trait")
    func everyTraitValueRoundTrips() throws {
        typealias T = TextInputTraits
        var variants: [T] = []
        variants += T.KeyboardType.allCases.map { T(keyboardType: $0) }
        variants += T.ReturnKeyType.allCases.map { T(returnKeyType: $0) }
        variants += T.Autocapitalization.allCases.map { T(autocapitalization: $0) }
        variants += T.Tristate.allCases.map { T(autocorrection: $0) }
        variants += T.Tristate.allCases.map { T(spellChecking: $0) }
        variants += T.Appearance.allCases.map { T(appearance: $0) }
        variants += [T(isSecureTextEntry: true), T(enablesReturnKeyAutomatically: true)]
        for traits in variants {
            let message = HostMessage.load(LoadRequest(pluginPath: "p", className: "C",
                                                       facts: ControllerFacts(traits: traits), window: DocumentWindow()))
            #expect(try HostMessage.decode(message.encoded()) == message)
        }
    }

    @Test("A window keeps its text, selection, marked range and truncation flags across the wire")
    func windowFieldsSurvive() throws {
        let message = HostMessage.deliver(Delivery(sequence: 1, window: Samples.richWindow, call: .memoryWarning))
        guard case .deliver(let d) = try HostMessage.decode(message.encoded()), let w = d.window else {
            Issue.record("expected a delivery with a window"); return
        }
        #expect(w.buffer.text == "ab👍🏽かな")
        #expect(w.buffer.markedRange == UTF16Range(location: 6, length: 2))
        #expect(w.buffer.selection == UTF16Range(location: 7, length: 0))
        #expect(w.markedText == "かな")
        #expect(w.truncatedBefore && !w.truncatedAfter)
        #expect(d.facts == nil)
    }

    @Test("A setLayout effect keeps each key's optional actions, nil or not")
    func layoutKeysKeepOptionalActions() throws {
        let message = WorkerMessage.done(sequence: 3, effects: [.setLayout(Samples.layout)])
        guard case .done(_, let effects) = try WorkerMessage.decode(message.encoded()),
              case .setLayout(let layout) = effects.first else {
            Issue.record("expected a setLayout effect"); return
        }
        let shift = layout.rows[0][1]
        #expect(shift.action == nil && shift.touchDownAction == "shift:" && shift.longPressAction == nil)
        #expect(shift.doubleTapAction == "capsLock:" && !shift.repeats && shift.width == 1.5)
        let delete = layout.rows[0][2]
        #expect(delete.action == "deleteBackward" && delete.longPressAction == "clear" && delete.repeats)
        #expect(layout.rows[1].isEmpty)
        #expect(layout.rows[2].map(\.role) == KeyRole.allCases)
        #expect(layout.display == "123")
    }

    @Test("A layout whose last row has action-less keys with short labels round-trips")
    func layoutWithSmallKeysRoundTrips() throws {
        // A blank spacer key (no identifier, label or action) is 4+4+1+8+4×1+1 = 22 bytes on the wire.
        let spacer = WireKey(identifier: "", label: "")
        for message in [
            WorkerMessage.done(sequence: 1, effects: [.setLayout(WireLayout(rows: [[spacer]]))]),
            WorkerMessage.done(sequence: 1, effects: [.setLayout(WireLayout(rows: [[
                WireKey(identifier: "a", label: "a"), WireKey(identifier: "b", label: "b")]]))]),
        ] {
            #expect(try WorkerMessage.decode(message.encoded()) == message)   // throws .countTooLarge("layout keys")
        }
    }

    @Test("Strings keep NUL bytes, combining marks and astral characters exactly")
    func stringsSurviveExactly() throws {
        for text in ["", "\u{0}", "a\u{0}b", "e\u{301}", "👨‍👩‍👧", "日本語", String(repeating: "x", count: 70_000)] {
            let message = WorkerMessage.done(sequence: 1, effects: [.edit(.insertText(text))])
            guard case .done(_, let effects) = try WorkerMessage.decode(message.encoded()),
                  case .edit(.insertText(let decoded)) = effects.first else {
                Issue.record("expected an insertText edit"); continue
            }
            #expect(Array(decoded.unicodeScalars) == Array(text.unicodeScalars))
        }
    }

    @Test("A framed message survives framing and reading back")
    func framedMessagesRoundTrip() throws {
        var stream: [UInt8] = []
        for m in Samples.hostMessages { Framing.appendFrame(m.encoded(), to: &stream) }
        var reader = FrameReader()
        reader.feed(stream)
        let decoded = try reader.drain().map { try HostMessage.decode($0) }
        #expect(decoded == Samples.hostMessages)
        #expect(reader.pendingByteCount == 0)
    }
}
