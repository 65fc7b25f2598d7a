import KeyboardSDK
import KeyboardTesting
import Testing

/// A tiny keyboard written only against the public SDK, to pin its contracts.
final class ProbeKeyboard: InputViewController {
    var seen: [String] = []
    var lastEvent: KeyEvent?

    override class var keyActions: [KeyAction] {[
        .action("plain", ProbeKeyboard.plain),
        .action("withKey:", ProbeKeyboard.withKey),
        .action("withKey:event:", ProbeKeyboard.withKeyAndEvent),
        .action("readContext", ProbeKeyboard.readContext),
        .action("compose", ProbeKeyboard.compose),
    ]}

    override func viewDidLoad() {
        keyboardLayout = KeyboardLayout(display: "probe", rows: [[
            KeySpec("p", action: "plain"),
            KeySpec("k", action: "withKey:"),
            KeySpec("e", action: "withKey:event:", longPressAction: "withKey:event:", doubleTapAction: "withKey:event:"),
            KeySpec("r", action: "readContext"),
            KeySpec("m", action: "compose"),
            .character("z"),
            .delete(), .space(), .return(), .globe(),
        ]])
    }
    override func viewWillAppear(_ animated: Bool) { seen.append("willAppear") }
    override func textDidChange(_ textInput: TextInput?) { seen.append("textDidChange") }

    func plain() { textDocumentProxy.insertText("P") }
    func withKey(_ key: Key) { textDocumentProxy.insertText("[\(key.label)@\(key.row),\(key.column)]") }
    func withKeyAndEvent(_ key: Key, _ event: KeyEvent) {
        lastEvent = event
        textDocumentProxy.insertText("<\(event.kind)\(event.tapCount)>")
    }
    /// Reads right after its own edits: the proxy must already reflect them.
    func readContext() {
        textDocumentProxy.insertText("xy")
        textDocumentProxy.adjustTextPosition(byCharacterOffset: -1)
        let before = textDocumentProxy.documentContextBeforeInput ?? "nil"
        let after = textDocumentProxy.documentContextAfterInput ?? "nil"
        textDocumentProxy.adjustTextPosition(byCharacterOffset: 1)
        textDocumentProxy.insertText("(\(before)|\(after))")
    }
    func compose() { textDocumentProxy.setMarkedText("にほ", selectedRange: 2..<2) }
}

@Suite("KeyboardSDK contracts")
struct KeyboardSDKTests {
    @Test func actionsGetNoArgumentTheSenderOrSenderAndEvent() throws {
        let k = try KeyboardTestDriver(ProbeKeyboard.self)
        try k.type("p", "k", "e")
        #expect(k.text == "P[k@0,1]<touchUpInside1>")
    }

    @Test func longPressAndDoubleTapReachTheirActionsWithTheirEvents() throws {
        let k = try KeyboardTestDriver(ProbeKeyboard.self)
        try k.perform(.longPress, on: "e")
        #expect(k.text == "<longPress1>", "a long press replaces the tap")
        try k.perform(.doubleTap, on: "e")
        #expect(k.text == "<longPress1><touchUpInside1><touchDownRepeat2><touchUpInside2>")
    }

    @Test func proxyReadsReflectTheKeyboardsOwnEditsAtOnce() throws {
        let k = try KeyboardTestDriver(ProbeKeyboard.self, text: "ab")
        try k.tap("r")
        #expect(k.text == "abxy(abx|y)")
    }

    @Test func defaultKeysInsertTheirLabelSpaceNewlineAndDelete() throws {
        let k = try KeyboardTestDriver(ProbeKeyboard.self)
        try k.type("z", "space", "z", "return", "z", "delete")
        #expect(k.text == "z z\n")
    }

    @Test func markedTextIsSelectedAtItsEnd() throws {
        let k = try KeyboardTestDriver(ProbeKeyboard.self, text: "a")
        try k.tap("m")
        #expect(k.markedText == "にほ")
        #expect(k.selection.location == 3)
        try k.tap("z")
        #expect(k.text == "az", "insertText replaces the marked text")
        #expect(k.markedText == nil)
    }

    @Test func lifeCycleFollowsUIKitOrder() throws {
        let k = try KeyboardTestDriver(ProbeKeyboard.self)
        try k.appear()
        try k.disappear()
        #expect(k.events == ["viewDidLoad", "viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear"])
        #expect(k.display == "probe")
    }

    @Test func globeAsksForTheNextInputMode() throws {
        let k = try KeyboardTestDriver(ProbeKeyboard.self)
        try k.tap("globe")
        #expect(k.advanceToNextInputModeCount == 1)
    }

    @Test func unknownKeyNamesListTheKeys() throws {
        let k = try KeyboardTestDriver(ProbeKeyboard.self)
        #expect(throws: KeyboardTestDriver.Failure.self) { try k.tap("nope") }
    }
}
