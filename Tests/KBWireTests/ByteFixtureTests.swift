import KBText
import KBWire
import Testing

/// Literal bytes that pin the wire format. Tags are fixed forever: if one of
/// these fails, the format changed and WireVersion.protocolVersion must change too.
@Suite("Wire format fixtures")
struct ByteFixtureTests {
    /// `.done(sequence: 0, effects: [effect])` with the effect's bytes spelled out.
    func doneWithOne(_ effectBytes: [UInt8]) -> [UInt8] { [3] + le64(0) + le32(1) + effectBytes }

    /// Each effect, alone in `.done(sequence: 0, …)`, encodes to its bytes and decodes back.
    func expectEffects(_ cases: [(Effect, [UInt8])]) throws {
        for (effect, bytes) in cases {
            let m = WorkerMessage.done(sequence: 0, effects: [effect])
            #expect(m.encoded() == doneWithOne(bytes), "\(effect)")
            #expect(try WorkerMessage.decode(doneWithOne(bytes)) == m)
        }
    }

    /// `.deliver(sequence: 1, no facts, no window, call)` with the call's bytes spelled out.
    func deliver(_ callBytes: [UInt8]) -> [UInt8] { [3] + le64(1) + [0, 0] + callBytes }

    @Test("Versions are 5 (protocol: key extras, haptics, alternates, drags; read paths' identities) and 1 (ABI: the host table only grew)")
    func versions() {
        #expect(WireVersion.protocolVersion == 5)
        #expect(WireVersion.abiVersion == 1)
    }

    @Test("HostMessage.hello(1, 1) is [1, 1,0,0,0, 1,0,0,0]")
    func hostHelloBytes() throws {
        let m = HostMessage.hello(protocolVersion: 1, abiVersion: 1)
        #expect(m.encoded() == [1, 1, 0, 0, 0, 1, 0, 0, 0])
        #expect(try HostMessage.decode([1, 1, 0, 0, 0, 1, 0, 0, 0]) == m)
        #expect(HostMessage.hello(protocolVersion: 0x0403_0201, abiVersion: 0xA0B0_C0D0).encoded()
                == [1, 1, 2, 3, 4, 0xD0, 0xC0, 0xB0, 0xA0])
    }

    @Test("HostMessage.shutdown is [4]")
    func shutdownBytes() throws {
        #expect(HostMessage.shutdown.encoded() == [4])
        #expect(try HostMessage.decode([4]) == .shutdown)
    }

    @Test("A load request with default facts and an empty window")
    func loadBytes() throws {
        let m = HostMessage.load(LoadRequest(pluginPath: "p.so", className: "K",
                                             facts: ControllerFacts(), window: DocumentWindow()))
        let expected: [UInt8] = [2] + utf8String("p.so") + utf8String("K")
            + [1, 0] + utf8String("en-US") + utf8String("")   // needsInputModeSwitchKey, hasFullAccess, language, document
            + [0, 0, 2, 0, 0, 0, 0, 0]                        // traits: autocapitalization .sentences = 2
            + le32(0)                                         // no input modes
            + le32(0) + [0]                                   // no lexicon, no pasteboard
            + utf8String("") + le64(0) + le64(0) + [0] + [0, 0] // window: text, selection, no marked range, flags
            + [1, 0] + le32(0) + le32(0) + utf8String("") + le32(0) + le32(0) // sandbox on, no open access, no paths, no identities, container, groups, allowances
        #expect(m.encoded() == expected)
        #expect(try HostMessage.decode(expected) == m)
    }

    @Test("A delivery carrying a window and facts flags")
    func deliverWithWindowBytes() throws {
        let window = DocumentWindow(buffer: TextBuffer(text: "hi", selection: UTF16Range(location: 1, length: 1),
                                                       markedRange: UTF16Range(location: 0, length: 2)),
                                    truncatedBefore: true, truncatedAfter: false)
        let m = HostMessage.deliver(Delivery(sequence: 0x0102, window: window, call: .memoryWarning))
        let expected: [UInt8] = [3] + le64(0x0102) + [0] + [1] + utf8String("hi") + le64(1) + le64(1)
            + [1] + le64(0) + le64(2) + [1, 0] + [5]
        #expect(m.encoded() == expected)
        #expect(try HostMessage.decode(expected) == m)
    }

    @Test("Each Call case has its tag and field order")
    func callBytes() throws {
        let dragBytes: [UInt8] = [7] + le32(1) + le32(0) + [1] + le64(1.0.bitPattern) + le64((-2.5).bitPattern)
            + le64(0) + le64(0) + [1] + utf8String("k") + le64(7)
        let cases: [(Call, [UInt8])] = [
            (.lifecycle(.viewWillAppear, animated: true), [1, 1, 1]),
            (.lifecycle(.viewDidDisappear, animated: false), [1, 4, 0]),
            (.textInput(.selectionDidChange), [2, 3]),
            (.key(row: 1, column: -1, event: KeyEvent(kind: .longPress, tapCount: 1, repeatCount: 2,
                                                      timestampNanoseconds: 500_000_000)),
             [3] + le32(1) + le32(0xFFFF_FFFF) + [3] + le32(1) + le32(2) + le64(500_000_000)),
            (.transition(width: 1.0, height: -2.5),
             [4, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0, 0, 0, 0, 0, 0, 0x04, 0xC0]),
            (.memoryWarning, [5]),
            (.alternate(row: 0, column: 2, choice: "é", event: KeyEvent(kind: .touchUpInside, tapCount: 1, timestampNanoseconds: 600_000_000)),
             [6] + le32(0) + le32(2) + utf8String("é") + le32(1) + le64(600_000_000)),
            (.drag(row: 1, column: 0, touch: DragTouch(phase: .moved, x: 1, y: -2.5, dx: 0, dy: 0, keyUnder: "k", timestampNanoseconds: 7)),
             dragBytes),
        ]
        for (call, callBytes) in cases {
            let m = HostMessage.deliver(Delivery(sequence: 1, call: call))
            #expect(m.encoded() == deliver(callBytes), "\(call)")
            #expect(try HostMessage.decode(deliver(callBytes)) == m)
        }
    }

    @Test("Life-cycle, text-input and key-event raw values are the ABI's")
    func enumRawValues() {
        #expect(Lifecycle.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
        #expect(Lifecycle.allCases.map(\.selector)
                == ["viewDidLoad", "viewWillAppear:", "viewDidAppear:", "viewWillDisappear:", "viewDidDisappear:"])
        #expect(TextInputCallback.allCases.map(\.rawValue) == [0, 1, 2, 3])
        #expect(TextInputCallback.selectionDidChange.selector == "selectionDidChange:")
        #expect(KeyEvent.Kind.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
        #expect(KeyRole.allCases.map(\.rawValue) == Array(0...7))
        #expect(WorkerFailure.Kind.allCases.map(\.rawValue) == Array(0...10))
        #expect(WorkerFailure.Kind.createFailed.rawValue == 8)
        #expect(WorkerFailure.Kind.sandbox.rawValue == 9)
        #expect(WorkerFailure.Kind.overLimit.rawValue == 10)
    }

    @Test("WorkerMessage.hello carries the pid as a little-endian Int32")
    func workerHelloBytes() throws {
        let m = WorkerMessage.hello(protocolVersion: 1, abiVersion: 1, pid: -2)
        #expect(m.encoded() == [1, 1, 0, 0, 0, 1, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF])
        #expect(try WorkerMessage.decode(m.encoded()) == m)
    }

    @Test("WorkerMessage.done with one insertText(\"a\") effect")
    func doneInsertTextBytes() throws {
        let m = WorkerMessage.done(sequence: 7, effects: [.edit(.insertText("a"))])
        let expected: [UInt8] = [3, 7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0x61]
        #expect(m.encoded() == expected)
        #expect(try WorkerMessage.decode(expected) == m)
    }

    @Test("Each Effect and TextEdit case has its tag and field order")
    func effectBytes() throws {
        let cases: [(Effect, [UInt8])] = [
            (.edit(.deleteBackward), [1, 2]),
            (.edit(.adjustTextPosition(-1)), [1, 3] + le64(.max)),
            (.edit(.setMarkedText("x", selectedRange: UTF16Range(location: 1, length: 0))),
             [1, 4] + utf8String("x") + le64(1) + le64(0)),
            (.edit(.unmarkText), [1, 5]),
            (.setDisplay("="), [3, 1, 0, 0, 0, 0x3D]),
            (.advanceToNextInputMode, [4]),
            (.dismissKeyboard, [5]),
            (.playInputClick, [6]),
            (.log(level: 2, message: "w"), [7, 2, 1, 0, 0, 0, 0x77]),
        ]
        try expectEffects(cases)
    }

    @Test("The input models' effects: key extras (row, column, payload, alternates, drag action) and haptics (kind, intensity)")
    func inputModelEffectBytes() throws {
        let payload: [UInt8] = [10] + le32(1) + le32(2) + [1] + utf8String("p") + le32(0)
        let alternates: [UInt8] = [10] + le32(0) + le32(0) + [0] + le32(2) + utf8String("é") + utf8String("è")
        let haptic: [UInt8] = [11, 5] + le64(1.0.bitPattern)
        let dragAction: [UInt8] = [10] + le32(0) + le32(0) + [0] + le32(0) + [1] + utf8String("d:e:")
        let cases: [(Effect, [UInt8])] = [
            (.setKeyExtras(KeyExtrasChange(row: 1, column: 2, extras: KeyExtras(payload: "p"))), payload + [0]),
            (.setKeyExtras(KeyExtrasChange(row: 0, column: 0, extras: KeyExtras(alternates: ["é", "è"]))), alternates + [0]),
            (.setKeyExtras(KeyExtrasChange(row: 0, column: 0, extras: KeyExtras(dragAction: "d:e:"))), dragAction),
            (.haptic(.selection, intensity: 1), haptic),
        ]
        try expectEffects(cases)
    }

    @Test("A setLayout effect: display, rows, then each key's fields in order")
    func setLayoutBytes() throws {
        let key = WireKey(identifier: "k", label: "K", role: .delete, width: 1.5, action: "a",
                          doubleTapAction: "dd", repeats: true)
        let m = WorkerMessage.done(sequence: 0, effects: [.setLayout(WireLayout(display: "d", rows: [[key]]))])
        let keyBytes: [UInt8] = utf8String("k") + utf8String("K") + [3]
            + [0, 0, 0, 0, 0, 0, 0xF8, 0x3F]                  // 1.5
            + [1] + utf8String("a") + [0] + [0] + [1] + utf8String("dd") + [1]
        let expected = doneWithOne([2] + utf8String("d") + le32(1) + le32(1) + keyBytes)
        #expect(m.encoded() == expected)
        #expect(try WorkerMessage.decode(expected) == m)
    }

    @Test("WorkerMessage.loaded lists selectors, then effects")
    func loadedBytes() throws {
        let m = WorkerMessage.loaded(LoadReply(selectors: [SelectorInfo(name: "go", types: "v@:")],
                                               effects: [.playInputClick]))
        let expected: [UInt8] = [2] + le32(1) + utf8String("go") + utf8String("v@:") + le32(1) + [6]
        #expect(m.encoded() == expected)
        #expect(try WorkerMessage.decode(expected) == m)
    }

    @Test("WorkerMessage.failure is the kind's raw value, then the message")
    func failureBytes() throws {
        let m = WorkerMessage.failure(WorkerFailure(.classNotFound, "no"))
        #expect(m.encoded() == [4, 4, 2, 0, 0, 0, 0x6E, 0x6F])
        #expect(try WorkerMessage.decode([4, 8, 0, 0, 0, 0]) == .failure(WorkerFailure(.createFailed, "")))
    }

    @Test("A frame is a 4-byte little-endian length, then the payload")
    func frameBytes() {
        var stream: [UInt8] = []
        Framing.appendFrame(HostMessage.shutdown.encoded(), to: &stream)
        #expect(stream == [1, 0, 0, 0, 4])
        Framing.appendFrame(HostMessage.hello(protocolVersion: 1, abiVersion: 1).encoded(), to: &stream)
        #expect(stream == [1, 0, 0, 0, 4, 9, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0])
        var big: [UInt8] = []
        Framing.appendFrame([UInt8](repeating: 7, count: 70_000), to: &big)   // 0x011170
        #expect(Array(big.prefix(4)) == [0x70, 0x11, 0x01, 0x00])
        #expect(big.count == 70_004)
        var empty: [UInt8] = []
        Framing.appendFrame([], to: &empty)
        #expect(empty == [0, 0, 0, 0])
        #expect(Framing.headerSize == 4)
        #expect(Framing.maximumFrameSize == 9 << 20, "KBH_MAX_CALL_BYTES and 1 MiB for the rest of a message")
    }
}
