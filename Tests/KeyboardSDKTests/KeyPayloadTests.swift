import CKeyboardABI
@testable import KBExtensionRuntime
import KBText
import KBWire
import KeyboardSDK
import KeyboardTesting
import Testing

/// Five mode keys and one plain key share one action, which reads the sender's payload.
final class PayloadKeyboard: InputViewController {
    static let modes = ["default", "subscript", "superscript", "greek", "math"]
    static let choose = KeyAction("choose:", PayloadKeyboard.choose)
    static let relabel = KeyAction("relabel", PayloadKeyboard.relabel)
    override class var keyActions: [KeyAction] { [choose, relabel] }
    var plain = false

    override func viewDidLoad() { render() }

    func render() {
        let labels = ["abc", "x₂", "x²", "αβγ", "∑∫"]
        let modeKeys = labels.indices.map { i in
            // The first has no identifier: the host names it r0c0, and its payload still arrives.
            KeySpec(labels[i], identifier: i == 0 ? nil : "mode\(i)", role: .mode, action: PayloadKeyboard.choose,
                    payload: plain ? nil : Self.modes[i])
        }
        keyboardLayout = KeyboardLayout(rows: [modeKeys + [KeySpec("plain", action: PayloadKeyboard.choose)],
                                               [KeySpec("relabel", action: PayloadKeyboard.relabel)]])
    }

    func choose(_ key: Key) { textDocumentProxy.insertText("[\(key.payload ?? "none")]") }

    /// The same keys again, without payloads: a new layout drops the old one's extras.
    func relabel() {
        plain = true
        render()
    }
}

@Suite("A key's payload")
struct KeyPayloadTests {
    @Test func keysThatShareAnActionReadTheirOwnPayload() throws {
        let k = try KeyboardTestDriver(PayloadKeyboard.self)
        try k.type("abc", "x₂", "x²", "αβγ", "∑∫", "plain")
        #expect(k.text == "[default][subscript][superscript][greek][math][none]")
        #expect(k.payload(of: "id:mode3") == "greek")
        #expect(k.payload(of: "id:r0c0") == "default", "a key without an identifier is r<row>c<column>")
        #expect(k.payload(of: "plain") == nil)
        #expect(k.payload(of: "no such key") == nil)
    }

    @Test func aNewLayoutDropsTheOldOnesPayloads() throws {
        let k = try KeyboardTestDriver(PayloadKeyboard.self)
        try k.type("relabel", "αβγ")
        #expect(k.text == "[none]")
        #expect(k.payload(of: "αβγ") == nil)
    }

    /// The same keyboard in the worker's runtime, once with the host table as it is, once cut
    /// where it ended before set_key_extras and key_payload were appended: an older host.
    func run(hostTableEndsBefore field: PartialKeyPath<kbh_host_v1>?) throws -> (setup: [Effect], taps: [Effect]) {
        let runtime = ExtensionRuntime()
        if let field, let offset = MemoryLayout<kbh_host_v1>.offset(of: field) {
            runtime.services.table.pointee.struct_size = UInt32(offset)
        }
        _ = try runtime.load(plugin: KeyboardPlugin.export([PayloadKeyboard.self]), className: "PayloadKeyboard",
                             facts: ControllerFacts(), window: DocumentWindow())
        let setup = try runtime.deliver(Delivery(sequence: 1, call: .lifecycle(.viewDidLoad, animated: false)))
        var taps: [Effect] = []
        for column in [0, 3, 5] {
            taps += try runtime.deliver(Delivery(sequence: 2, call: .key(row: 0, column: Int32(column), event: KeyEvent(kind: .touchUpInside))))
        }
        return (setup, taps)
    }

    @Test func anOlderHostKeepsNoPayloadAndTheKeysStillWork() throws {
        let now = try run(hostTableEndsBefore: nil)
        #expect(now.setup.filter { if case .setKeyExtras = $0 { true } else { false } }.count == 5)
        #expect(now.taps == [.edit(.insertText("[default]")), .edit(.insertText("[greek]")), .edit(.insertText("[none]"))])
        let older = try run(hostTableEndsBefore: \kbh_host_v1.set_key_extras)
        #expect(older.setup.count == 1, "the layout alone: \(older.setup)")
        guard case .setLayout(let layout)? = older.setup.first else { Issue.record("no layout"); return }
        #expect(layout.rows.first?.count == 6)
        #expect(older.taps == [.edit(.insertText("[none]")), .edit(.insertText("[none]")), .edit(.insertText("[none]"))])
    }
}

/// Two keys sharing an identifier (both "shift", as a keyboard with a left and a right shift
/// may have): each keeps its own payload. Before, extras were given and read by identifier,
/// and both keys had the second's.
final class TwinShiftKeyboard: InputViewController {
    static let choose = KeyAction("choose:", TwinShiftKeyboard.choose)
    override class var keyActions: [KeyAction] { [choose] }
    override func viewDidLoad() {
        keyboardLayout = KeyboardLayout(rows: [[
            KeySpec("L", identifier: "shift", action: TwinShiftKeyboard.choose, payload: "left"),
            KeySpec("R", identifier: "shift", action: TwinShiftKeyboard.choose, payload: "right"),
        ]])
    }
    func choose(_ key: Key) { textDocumentProxy.insertText("[\(key.label)=\(key.payload ?? "none")]") }
}

@Suite("Keys sharing an identifier keep their own extras")
struct TwinKeyExtrasTests {
    @Test func eachTwinReadsItsOwnPayload() throws {
        let k = try KeyboardTestDriver(TwinShiftKeyboard.self)
        try k.tap("L")
        try k.tap("R")
        #expect(k.text == "[L=left][R=right]")
    }
}
