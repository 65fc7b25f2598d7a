import KeyboardSDK

/// The science keyboard of the ScienceCustomKeyboard seed: default, subscript,
/// superscript, Greek and math pages; shift; cursor left/right by one
/// character (an emoji moves as one); delete only when there is text; globe.
public final class ScienceViewController: InputViewController {
    private var mode = KeyboardMode.default
    private var shiftOn = false

    static let setMode = KeyAction("setMode:", ScienceViewController.setMode)
    static let toggleShift = KeyAction("toggleShift", ScienceViewController.toggleShift)
    static let insertCharacter = KeyAction("insertCharacter:", ScienceViewController.insertCharacter)
    static let moveLeft = KeyAction("moveLeft", ScienceViewController.moveLeft)
    static let moveRight = KeyAction("moveRight", ScienceViewController.moveRight)
    static let deleteIfText = KeyAction("deleteIfText", ScienceViewController.deleteIfText)

    override public class var keyActions: [KeyAction] { [setMode, toggleShift, insertCharacter, moveLeft, moveRight, deleteIfText] }

    override public func viewDidLoad() { render() }
    override public func viewWillAppear(_ animated: Bool) { render() }

    private func render() {
        var toolbar = KeyboardMode.allCases.map {
            KeySpec($0.label, identifier: $0.identifier, role: .mode, action: ScienceViewController.setMode,
                    payload: String($0.rawValue))
        }
        toolbar += [KeySpec("◀", identifier: "left", role: .function, action: ScienceViewController.moveLeft, repeats: true),
                    KeySpec("▶", identifier: "right", role: .function, action: ScienceViewController.moveRight, repeats: true)]
        let characters = mode.rows.map { row in
            row.map { label in
                KeySpec(shiftOn && mode.hasCase ? shifted(label) : label, action: ScienceViewController.insertCharacter)
            }
        }
        var bottom = [KeySpec(shiftOn ? "⇧" : "⇪", identifier: "shift", role: .shift, width: 1.5,
                              action: ScienceViewController.toggleShift),
                      .space(),
                      KeySpec("⌫", identifier: "delete", role: .delete, width: 1.5, action: ScienceViewController.deleteIfText,
                              repeats: true),
                      .return()]
        if needsInputModeSwitchKey { bottom.insert(.globe(), at: 0) }
        keyboardLayout = KeyboardLayout(rows: [toolbar] + characters + [bottom])
    }

    /// The five mode keys share this action; each carries its mode's number as its payload.
    func setMode(_ key: Key) {
        guard let next = key.payload.flatMap(Int.init).flatMap(KeyboardMode.init(rawValue:)) else { return }
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
