import CKeyboardABI
@testable import KBExtensionRuntime
import KBText
import KBWire
import KeyboardSDK
import KeyboardTesting
import Testing

/// Plays one kind of haptic feedback per key, and says when the host refused it.
final class HapticKeyboard: InputViewController {
    static let feedback: [String: HapticFeedback] = [
        "light": .impact(.light), "soft half": .impact(.soft, intensity: 0.5), "pick": .selection,
        "done": .notification(.success), "oops": .notification(.error),
    ]
    static let play = KeyAction("play:", HapticKeyboard.play)
    override class var keyActions: [KeyAction] { [play] }

    override func viewDidLoad() {
        keyboardLayout = KeyboardLayout(rows: [HapticKeyboard.feedback.keys.sorted().map { KeySpec($0, action: HapticKeyboard.play) }])
    }

    func play(_ key: Key) {
        do { try playHaptic(HapticKeyboard.feedback[key.label]!) } catch {
            textDocumentProxy.insertText("refused(\(error.code)) ")
        }
    }
}

@Suite("Haptic feedback")
struct HapticTests {
    @Test func withOpenAccessEachFeedbackIsAnEventInOrder() throws {
        let k = try KeyboardTestDriver(HapticKeyboard.self, hasFullAccess: true)
        try k.type("light", "soft half", "pick", "done", "oops")
        #expect(k.haptics == ["light", "soft 0.5", "selection", "success", "error"])
        #expect(k.events.suffix(5) == ["haptic: light", "haptic: soft 0.5", "haptic: selection", "haptic: success", "haptic: error"])
        #expect(k.text == "")
    }

    @Test func withoutOpenAccessTheKeyboardFeelsNothingAndIsToldWhy() throws {
        let k = try KeyboardTestDriver(HapticKeyboard.self, hasFullAccess: false)
        try k.type("light", "pick")
        #expect(k.haptics.isEmpty)
        #expect(k.text == "refused(1) refused(1) ", "EPERM")
        // The same keyboard once the user grants it.
        k.update(hasFullAccess: true)
        try k.tap("light")
        #expect(k.haptics == ["light"])
    }

    @Test func anOlderHostWithoutPlayHapticDoesNothingAndDoesNotThrow() throws {
        func run(cutAt field: PartialKeyPath<kbh_host_v1>?) throws -> [Effect] {
            let runtime = ExtensionRuntime()
            if let field, let offset = MemoryLayout<kbh_host_v1>.offset(of: field) {
                runtime.services.table.pointee.struct_size = UInt32(offset)
            }
            _ = try runtime.load(plugin: KeyboardPlugin.export([HapticKeyboard.self]), className: "HapticKeyboard",
                                 facts: ControllerFacts(hasFullAccess: true), window: DocumentWindow())
            _ = try runtime.deliver(Delivery(sequence: 1, call: .lifecycle(.viewDidLoad, animated: false)))
            // "done" is the first key, sorted.
            return try runtime.deliver(Delivery(sequence: 2, call: .key(row: 0, column: 0, event: KeyEvent(kind: .touchUpInside))))
        }
        #expect(try run(cutAt: nil) == [.haptic(.success, intensity: 1)])
        #expect(try run(cutAt: \kbh_host_v1.play_haptic) == [], "no haptic, no refusal inserted")
    }
}
