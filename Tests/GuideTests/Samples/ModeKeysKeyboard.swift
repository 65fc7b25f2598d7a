import KeyboardSDK

/// Mode keys, one action: each key carries its page as a payload, and the
/// action reads it from the sender instead of parsing an identifier.
public final class ModeKeysKeyboard: InputViewController {
    static let pages = ["abc": "letters", "123": "digits", "αβγ": "greek"]
    static let setPage = KeyAction("setPage:", ModeKeysKeyboard.setPage)
    public override class var keyActions: [KeyAction] { [setPage] }
    var page = "letters"

    public override func viewDidLoad() {
        let modeKeys = ModeKeysKeyboard.pages.keys.sorted().map { label in
            KeySpec(label, role: .mode, action: ModeKeysKeyboard.setPage, payload: ModeKeysKeyboard.pages[label])
        }
        // A long press on e offers é è ê; the pick types itself, through e's own action.
        let e = KeySpec.character("e", alternates: ["é", "è", "ê"])
        keyboardLayout = KeyboardLayout(display: page, rows: [modeKeys, [e, .space()]])
    }

    func setPage(_ key: Key) {
        page = key.payload ?? page
        setDisplay(page)
        // Felt only with open access, as on iOS; without it the host refuses (EPERM).
        try? playHaptic(.selection)
    }
}
