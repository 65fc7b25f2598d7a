import CKeyboardABI
@testable import KBExtensionRuntime
import KBText
import KBWire
import KeyboardSDK
import KeyboardTesting
import Testing

/// e offers é è ê and inserts what it is sent; "ß" has a long-press action of its own too;
/// "log" writes down the kind of event its action gets.
final class AlternatesKeyboard: InputViewController {
    static let logged = KeyAction("logged:event:", AlternatesKeyboard.logged)
    static let held = KeyAction("held", AlternatesKeyboard.held)
    override class var keyActions: [KeyAction] { [logged, held] }

    override func viewDidLoad() {
        keyboardLayout = KeyboardLayout(rows: [[
            .character("e", alternates: ["é", "è", "ê"]),
            KeySpec("s", longPressAction: AlternatesKeyboard.held.selector, alternates: ["ß"]),
            KeySpec("log", action: AlternatesKeyboard.logged, alternates: ["1", "2"]),
            .character("x"),
        ]])
    }

    func logged(_ key: Key, _ event: KeyboardSDK.KeyEvent) { textDocumentProxy.insertText("[\(event.kind) \(key.label) \(key.identifier)]") }
    func held() { textDocumentProxy.insertText("(held)") }
}

@Suite("Alternates on a long press")
struct AlternatesTests {
    @Test func thePickedAlternateIsTypedByTheKeysOwnAction() throws {
        let k = try KeyboardTestDriver(AlternatesKeyboard.self)
        #expect(k.alternates(of: "e") == ["é", "è", "ê"])
        try k.chooseAlternate("è", on: "e")
        #expect(k.text == "è", "insertKeyLabel gets the alternate as its sender's label")
        #expect(k.events.suffix(2) == ["showAlternates: é è ê", "chooseAlternate: è"])
        try k.chooseAlternate("2", on: "log")
        #expect(k.text == "è[alternate 2 r0c2]", "an .alternate event; the identifier stays the key's")
    }

    @Test func theLongPressActionComesFirstAndNoTapFollows() throws {
        let k = try KeyboardTestDriver(AlternatesKeyboard.self)
        let before = k.clockNanoseconds
        try k.chooseAlternate("ß", on: "s")
        #expect(k.text == "(held)ß")
        #expect(k.clockNanoseconds - before == 650_000_000, "as long as long:KEY")
    }

    @Test func lettingGoWithoutPickingIsTheLongPressOfToday() throws {
        let k = try KeyboardTestDriver(AlternatesKeyboard.self)
        try k.perform(.longPress, on: "e")
        try k.perform(.longPress, on: "x")
        #expect(k.text == "ex", "a key without a long-press action is tapped when let go")
        #expect(k.events.filter { $0.hasPrefix("showAlternates") } == ["showAlternates: é è ê"], "shown for e only")
        try k.tap("e")
        #expect(k.events.filter { $0.hasPrefix("showAlternates") }.count == 1, "a tap shows nothing")
    }

    @Test func anAlternateTheKeyDoesNotOfferIsNamedWithThoseItDoes() throws {
        let k = try KeyboardTestDriver(AlternatesKeyboard.self)
        #expect(throws: KeyboardTestDriver.Failure.self) { try k.chooseAlternate("ë", on: "e") }
        do {
            try k.chooseAlternate("ë", on: "e")
            Issue.record("ë on e was taken")
        } catch {
            #expect(error.description == "key 'e' offers no alternate 'ë'; alternates: é è ê")
        }
        do {
            try k.chooseAlternate("y", on: "x")
            Issue.record("y on x was taken")
        } catch {
            #expect(error.description == "key 'x' offers no alternate 'y'; alternates: ")
        }
        #expect(k.text == "", "nothing was sent")
    }

    @Test func theScriptTokenPicksAnAlternate() throws {
        let k = try KeyboardTestDriver(AlternatesKeyboard.self)
        try k.run(script: "long:e:ê x long:e long:id:r0c2:1")
        #expect(k.text == "êxe[alternate 1 r0c2]")
        #expect(throws: KeyboardTestDriver.Failure.self) { try k.run(script: "long:e:ë") }
    }

    @Test func anOlderHostOffersNoAlternatesAndTheKeysStillType() throws {
        let runtime = ExtensionRuntime()
        runtime.services.table.pointee.struct_size = UInt32(MemoryLayout<kbh_host_v1>.offset(of: \kbh_host_v1.set_key_extras)!)
        _ = try runtime.load(plugin: KeyboardPlugin.export([AlternatesKeyboard.self]), className: "AlternatesKeyboard",
                             facts: ControllerFacts(), window: DocumentWindow())
        let setup = try runtime.deliver(Delivery(sequence: 1, call: .lifecycle(.viewDidLoad, animated: false)))
        #expect(setup.count == 1, "the layout, no extras: \(setup)")
        #expect(runtime.services.keyExtras.isEmpty)
        #expect(throws: WorkerFailure.self, "a pick the key does not offer is refused") {
            try runtime.deliver(Delivery(sequence: 2, call: .alternate(row: 0, column: 0, choice: "é", event: KBWire.KeyEvent(kind: .touchUpInside))))
        }
    }
}
