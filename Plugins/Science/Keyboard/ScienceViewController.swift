import KeyboardSDK

/// The science keyboard of the ScienceCustomKeyboard seed: default, subscript,
/// superscript, Greek and math pages; shift; cursor left/right by one
/// character (an emoji moves as one); delete only when there is text; globe.
public final class ScienceViewController: InputViewController {
    private var mode = KeyboardMode.default
    private var shiftOn = false

    override public class var keyActions: [KeyAction] {[
        .action("setMode:", ScienceViewController.setMode),
        .action("toggleShift", ScienceViewController.toggleShift),
        .action("insertCharacter:", ScienceViewController.insertCharacter),
        .action("moveLeft", ScienceViewController.moveLeft),
        .action("moveRight", ScienceViewController.moveRight),
        .action("deleteIfText", ScienceViewController.deleteIfText),
    ]}

    override public func viewDidLoad() { render() }
    override public func viewWillAppear(_ animated: Bool) { render() }

    private func render() {
        var toolbar = KeyboardMode.allCases.map {
            KeySpec($0.label, identifier: $0.identifier, role: .mode, action: "setMode:")
        }
        toolbar += [KeySpec("◀", identifier: "left", role: .function, action: "moveLeft", repeats: true),
                    KeySpec("▶", identifier: "right", role: .function, action: "moveRight", repeats: true)]
        let characters = mode.rows.map { row in
            row.map { label in
                KeySpec(shiftOn && mode.hasCase ? shifted(label) : label, action: "insertCharacter:")
            }
        }
        var bottom = [KeySpec(shiftOn ? "⇧" : "⇪", identifier: "shift", role: .shift, width: 1.5, action: "toggleShift"),
                      .space(),
                      KeySpec("⌫", identifier: "delete", role: .delete, width: 1.5, action: "deleteIfText", repeats: true),
                      .return()]
        if needsInputModeSwitchKey { bottom.insert(.globe(), at: 0) }
        keyboardLayout = KeyboardLayout(rows: [toolbar] + characters + [bottom])
    }

    func setMode(_ key: Key) {
        guard let next = KeyboardMode.allCases.first(where: { $0.identifier == key.identifier }) else { return }
        mode = next
        render()
    }

    func toggleShift() {
        shiftOn.toggle()
        render()
    }

    func insertCharacter(_ key: Key) {
        textDocumentProxy.insertText(key.label)
    }

    /// One character left: the UTF-16 length of the last character before the cursor.
    func moveLeft() {
        let offset = textDocumentProxy.documentContextBeforeInput?.last.map { $0.utf16.count } ?? 1
        textDocumentProxy.adjustTextPosition(byCharacterOffset: -offset)
    }

    func moveRight() {
        let offset = textDocumentProxy.documentContextAfterInput?.first.map { $0.utf16.count } ?? 1
        textDocumentProxy.adjustTextPosition(byCharacterOffset: offset)
    }

    func deleteIfText() {
        guard textDocumentProxy.hasText else { return }
        textDocumentProxy.deleteBackward()
    }
}
