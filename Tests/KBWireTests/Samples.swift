import KBText
import KBWire
import Testing

// Sample values covering every case of every message, shared by the KBWire tests.

enum Samples {
    static let richTraits = TextInputTraits(
        keyboardType: .asciiCapableNumberPad, returnKeyType: .continue, autocapitalization: .allCharacters,
        autocorrection: .no, spellChecking: .yes, appearance: .light,
        isSecureTextEntry: true, enablesReturnKeyAutomatically: true)

    static let richFacts = ControllerFacts(
        needsInputModeSwitchKey: false, hasFullAccess: true, primaryLanguage: "ja-JP",
        documentIdentifier: "doc-7 🗒", traits: richTraits,
        inputModes: ["com.example.calculator", "ja-JP", ""],
        lexicon: [LexiconEntry(userInput: "omw", documentText: "On my way!"), LexiconEntry(userInput: "", documentText: "\t\n")],
        pasteboard: "copied 📋")

    /// "ab👍🏽" + marked "かな", caret between か and な; text cut off before the window.
    static let richWindow: DocumentWindow = {
        var b = TextBuffer(text: "ab👍🏽")
        b.setMarkedText("かな", selectedRange: UTF16Range(location: 1, length: 0))
        return DocumentWindow(buffer: b, truncatedBefore: true, truncatedAfter: false)
    }()

    static let selectionWindow = DocumentWindow(
        buffer: TextBuffer(text: "hello\u{0}🇯🇵 world", selection: UTF16Range(location: 2, length: 8)),
        truncatedBefore: false, truncatedAfter: true)

    static let calls: [Call] = {
        var calls: [Call] = []
        for l in Lifecycle.allCases { calls += [.lifecycle(l, animated: true), .lifecycle(l, animated: false)] }
        for t in TextInputCallback.allCases { calls.append(.textInput(t)) }
        for (i, kind) in KeyEvent.Kind.allCases.enumerated() {
            calls.append(.key(row: Int32(i), column: -Int32(i) - 1,
                              event: KeyEvent(kind: kind, tapCount: 2, repeatCount: Int32(i) * 3,
                                              timestampNanoseconds: Int64(i) * 1_000_000_007 - 5)))
        }
        calls += [
            .alternate(row: 1, column: 2, choice: "é", event: KeyEvent(kind: .touchUpInside, tapCount: 1, timestampNanoseconds: 600_000_000)),
            .alternate(row: .max, column: .min, choice: "", event: KeyEvent(kind: .touchUpInside, tapCount: .min, timestampNanoseconds: .min)),
            .drag(row: 3, column: 1, touch: DragTouch(phase: .began, x: 187.5, y: 190.25, dx: 0, dy: 0, keyUnder: "space",
                                                      timestampNanoseconds: 16_000_000)),
            .drag(row: .min, column: .max, touch: DragTouch(phase: .ended, x: -1e300, y: 0, dx: 5e-324, dy: -0.0, keyUnder: nil,
                                                            timestampNanoseconds: .max)),
            .key(row: .max, column: .min, event: KeyEvent(kind: .touchUpInside, tapCount: .min, repeatCount: .max,
                                                          timestampNanoseconds: .min)),
            .transition(width: 375.5, height: 216), .transition(width: -0.0, height: 1e-300),
            .transition(width: .greatestFiniteMagnitude, height: -.leastNonzeroMagnitude),
            .memoryWarning,
        ]
        return calls
    }()

    static let hostMessages: [HostMessage] = {
        var messages: [HostMessage] = [
            .hello(protocolVersion: 1, abiVersion: 1),
            .hello(protocolVersion: .max, abiVersion: 0),
            .load(LoadRequest(pluginPath: "/opt/kbhost/plugins/libCalculatorKeyboard.so",
                              className: "CalculatorViewController", facts: richFacts, window: richWindow)),
            .load(LoadRequest(pluginPath: "", className: "", facts: ControllerFacts(), window: DocumentWindow())),
            .load(LoadRequest(pluginPath: "/k/libK.so", className: "K", facts: ControllerFacts(), window: DocumentWindow(),
                              sandbox: SandboxSpec(enabled: false, openAccess: true, readPaths: ["/k", "/usr/share/dict"],
                                                   containerPath: "/home/u/.kbhost/Containers/Keyboards/k",
                                                   groups: [GroupContainer(name: "group.k", path: "/g/k"), GroupContainer(name: "group.ü", path: "")],
                                                   allowMissing: ["landlock-scope", "seccomp"]))),
            .shutdown,
        ]
        for (i, call) in calls.enumerated() {
            messages.append(.deliver(Delivery(sequence: UInt64(i), call: call)))
        }
        messages += [
            .deliver(Delivery(sequence: .max, facts: richFacts, window: richWindow, call: .memoryWarning)),
            .deliver(Delivery(sequence: 9, facts: ControllerFacts(), call: .textInput(.textDidChange))),
            .deliver(Delivery(sequence: 10, window: selectionWindow, call: .lifecycle(.viewWillAppear, animated: true))),
        ]
        return messages
    }()

    static let edits: [TextEdit] = [
        .insertText("a👍🏽\u{0}"), .insertText(""), .deleteBackward,
        // .adjustTextPosition(0) is one bit flip from Int.min, which the decoder must reject, not trap on.
        .adjustTextPosition(0), .adjustTextPosition(-3), .adjustTextPosition(Int(Int32.max)), .adjustTextPosition(-Int(Int32.max)),
        .setMarkedText("かな", selectedRange: UTF16Range(location: 1, length: 1)),
        .setMarkedText("", selectedRange: UTF16Range(location: 0, length: 0)),
        .unmarkText,
    ]

    static let layout = WireLayout(display: "123", rows: [
        [
            WireKey(identifier: "seven", label: "7", action: "insertKeyLabel:"),
            WireKey(identifier: "shift", label: "⇧", role: .shift, width: 1.5, touchDownAction: "shift:",
                    doubleTapAction: "capsLock:"),
            WireKey(identifier: "del", label: "⌫", role: .delete, width: 100, action: "deleteBackward",
                    longPressAction: "clear", repeats: true),
        ],
        [],
        KeyRole.allCases.map { role in
            WireKey(identifier: "r\(role.rawValue)", label: "role \(role.rawValue)", role: role, width: 0.25,
                    action: role == .character ? nil : "act\(role.rawValue):", touchDownAction: "down",
                    longPressAction: "long", doubleTapAction: "double", repeats: role == .delete)
        },
    ])

    static let effects: [Effect] = edits.map(Effect.edit) + [
        .setLayout(layout), .setLayout(WireLayout()), .setLayout(WireLayout(display: "", rows: [[], []])),
        .setDisplay(""), .setDisplay("3.14159 ≈ π"),
        .advanceToNextInputMode, .dismissKeyboard, .playInputClick,
        .log(level: 0, message: ""), .log(level: 255, message: "plugin said: héllo\n"),
        .setPasteboard(""), .setPasteboard("copied ✂️\n"), .playSound("Tock"), .playSound(""),
        .setKeyExtras(KeyExtrasChange(row: 0, column: 2, extras: KeyExtras(payload: "mode.greek"))),
        .setKeyExtras(KeyExtrasChange(row: .max, column: -1, extras: KeyExtras())),
        .setKeyExtras(KeyExtrasChange(row: 1, column: 0, extras: KeyExtras(payload: String(repeating: "π", count: 40)))),
        .haptic(.light, intensity: 1), .haptic(.error, intensity: 0), .haptic(.soft, intensity: 0.5),
        .setKeyExtras(KeyExtrasChange(row: 2, column: 3, extras: KeyExtras(payload: "p", alternates: ["à", "á", "", "â"]))),
        .setKeyExtras(KeyExtrasChange(row: 3, column: 1, extras: KeyExtras(dragAction: "dragCursor:event:"))),
    ]

    static let workerMessages: [WorkerMessage] = {
        var messages: [WorkerMessage] = [
            .hello(protocolVersion: 1, abiVersion: 1, pid: 4242),
            .hello(protocolVersion: 0, abiVersion: .max, pid: -1),
            .loaded(LoadReply(selectors: [], effects: [])),
            .loaded(LoadReply(selectors: [SelectorInfo(name: "viewDidLoad", types: "v16@0:8"),
                                          SelectorInfo(name: "insertKeyLabel:", types: "v24@0:8@16"),
                                          SelectorInfo(name: "", types: "")],
                              effects: effects)),
            .done(sequence: 0, effects: []),
            .done(sequence: .max, effects: effects),
        ]
        for e in effects { messages.append(.done(sequence: 77, effects: [e])) }
        for kind in WorkerFailure.Kind.allCases {
            messages.append(.failure(WorkerFailure(kind, "kind \(kind.rawValue): libfoo.so: cannot open 😿")))
        }
        messages.append(.failure(WorkerFailure(.badRequest, "")))
        return messages
    }()
}

/// Little-endian bytes of integers, for spelling out fixtures.
func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
func utf8String(_ s: String) -> [UInt8] { le32(UInt32(s.utf8.count)) + Array(s.utf8) }

extension FrameReader {
    /// Appends bytes from an array (the reader takes a raw buffer, as read(2) fills one).
    mutating func feed(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    /// Every whole frame available now.
    mutating func drain() throws(WireError) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        while let frame = try nextFrame() { frames.append(frame) }
        return frames
    }
}
