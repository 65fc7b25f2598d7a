import KeyboardSDK
import KeyboardTesting
import Testing

/// A keyboard whose keys take typed actions: each selector is written once.
final class TypedKeyboard: InputViewController {
    static let plain = KeyAction("plain", TypedKeyboard.plain)
    static let withKey = KeyAction("withKey:", TypedKeyboard.withKey)
    static let withKeyAndEvent = KeyAction("withKey:event:", TypedKeyboard.withKeyAndEvent)
    static let proxyDelete = KeyAction("proxyDelete", TypedKeyboard.proxyDelete)
    static let warn = KeyAction("warn", TypedKeyboard.warn)

    override class var keyActions: [KeyAction] { [plain, withKey, withKeyAndEvent, proxyDelete, warn] }

    override func viewDidLoad() {
        keyboardLayout = KeyboardLayout(rows: [[
            KeySpec("p", action: TypedKeyboard.plain),
            KeySpec("k", action: TypedKeyboard.withKey),
            KeySpec("e", action: TypedKeyboard.withKeyAndEvent, longPressAction: TypedKeyboard.withKeyAndEvent,
                    doubleTapAction: TypedKeyboard.withKeyAndEvent),
            KeySpec("controllerDelete", role: .function, action: .deleteBackward),
            KeySpec("proxyDelete", role: .function, action: TypedKeyboard.proxyDelete),
            KeySpec("warn", role: .function, action: TypedKeyboard.warn),
            KeySpec("dismiss", role: .function, action: .dismissKeyboard),
        ]])
    }

    func plain() { textDocumentProxy.insertText("P") }
    func withKey(_ key: Key) { textDocumentProxy.insertText("[\(key.label)]") }
    func withKeyAndEvent(_ key: Key, _ event: KeyEvent) { textDocumentProxy.insertText("<\(event.kind)\(event.tapCount)>") }
    func proxyDelete() { textDocumentProxy.deleteBackward() }
    func warn() { log("careful", level: .warning) }
}

@Suite("Typed key actions")
struct TypedActionTests {
    @Test func typedActionsReachTheirMethodsAsSelectorStringsDo() throws {
        let k = try KeyboardTestDriver(TypedKeyboard.self)
        try k.type("p", "k", "e")
        try k.perform(.longPress, on: "e")
        #expect(k.text == "P[k]<touchUpInside1><longPress1>")
        try k.tap("dismiss")
        #expect(k.dismissCount == 1)
    }

    @Test func aTypedKeySpecCarriesTheSameSelectorsAsTheStringForm() {
        let typed = KeySpec("e", action: TypedKeyboard.withKeyAndEvent, touchDownAction: TypedKeyboard.plain,
                            longPressAction: TypedKeyboard.withKey, doubleTapAction: .insertKeyLabel, repeats: true)
        let strings = KeySpec("e", action: "withKey:event:", touchDownAction: "plain", longPressAction: "withKey:",
                              doubleTapAction: "insertKeyLabel:", repeats: true)
        #expect(typed == strings)
        #expect(KeySpec("a").action == "insertKeyLabel:", "a key inserts its label by default")
    }

    /// The wire and C keyboards name the built-in actions by these selectors.
    @Test func theBuiltInActionsKeepTheirSelectors() {
        #expect([KeyAction.insertKeyLabel, .insertSpace, .insertNewline, .deleteBackward, .advanceToNextInputMode,
                  .handleInputModeList, .dismissKeyboard].map(\.selector)
                == ["insertKeyLabel:", "insertSpace", "insertNewline", "deleteBackward", "advanceToNextInputMode",
                    "handleInputModeListFrom:with:", "dismissKeyboard"])
        #expect(KeySpec.space().action == "insertSpace")
        #expect(KeySpec.return().action == "insertNewline")
        #expect(KeySpec.delete().action == "deleteBackward")
        #expect(KeySpec.globe().action == "handleInputModeListFrom:with:")
        #expect(KeySpec.globe().longPressAction == "handleInputModeListFrom:with:")
        #expect(TypedKeyboard.withKeyAndEvent.types == "v@:@@")
    }

    @Test func logTakesALevel() throws {
        let k = try KeyboardTestDriver(TypedKeyboard.self)
        try k.tap("warn")
        #expect(k.logMessages == ["careful"])
        #expect(InputViewController.LogLevel.allRawValues == [0, 1, 2, 3], "the ABI's levels: 0 debug … 3 error")
    }

    /// The controller's deleteBackward is the proxy's, as on iOS: the same
    /// result in every state, and nothing at all on an empty document.
    @Test(arguments: [
        TextBuffer(),
        TextBuffer(text: "ab"),
        TextBuffer(text: "ab", selection: UTF16Range(location: 0, length: 0)),
        TextBuffer(text: "abc", selection: UTF16Range(location: 1, length: 1)),
        TextBuffer(text: "aにほ", selection: UTF16Range(location: 3, length: 0), markedRange: UTF16Range(location: 1, length: 2)),
        TextBuffer(text: "👍🏽", selection: UTF16Range(location: 4, length: 0)),
    ])
    func controllerAndProxyDeleteBackwardAgree(document: TextBuffer) throws {
        var results: [TextBuffer] = []
        for key in ["controllerDelete", "proxyDelete"] {
            let k = try KeyboardTestDriver(TypedKeyboard.self)
            try k.editDocument { $0 = document }
            try k.tap(key)
            try k.tap(key)
            results.append(k.buffer)
        }
        #expect(results[0] == results[1])
        if document.text.isEmpty { #expect(results[0].text == "" && results[0].selection == UTF16Range(location: 0, length: 0)) }
    }
}

extension InputViewController.LogLevel {
    static var allRawValues: [Int32] { [Self.debug, .info, .warning, .error].map(\.rawValue) }
}
