import KeyboardSDK

/// Step 4: settings shared with the containing app (an App Group), and
/// what open access changes. The manifest declares the group under
/// com.apple.security.application-groups and sets RequestsOpenAccess.
public final class SharedSettingsKeyboard: InputViewController {
    lazy var settings: GroupDefaults = {
        let defaults = groupDefaults(suiteName: "group.com.example.keyboard")
        defaults.register(defaults: ["greeting": .string("Hello")])
        return defaults
    }()

    static let greet = KeyAction("greet", SharedSettingsKeyboard.greet)
    static let remember = KeyAction("remember", SharedSettingsKeyboard.remember)
    static let paste = KeyAction("paste", SharedSettingsKeyboard.paste)
    public override class var keyActions: [KeyAction] { [greet, remember, paste] }

    public override func viewDidLoad() {
        var keys = [KeySpec("greet", action: SharedSettingsKeyboard.greet),
                    KeySpec("remember", action: SharedSettingsKeyboard.remember)]
        // Without open access there is no pasteboard: do not offer the key.
        if hasFullAccess { keys.append(KeySpec("paste", action: SharedSettingsKeyboard.paste)) }
        keyboardLayout = KeyboardLayout(rows: [keys])
    }

    /// Reading works always (the group is readable without open access).
    func greet() { textDocumentProxy.insertText(settings.string(forKey: "greeting") ?? "") }

    /// Writing needs open access; without it the error says so.
    func remember() {
        do {
            try settings.set(textDocumentProxy.documentContextBeforeInput ?? "", forKey: "greeting")
        } catch {
            log("not saved: \(error.message)", level: .warning)
        }
    }

    func paste() {
        if let text = try? pasteboardString() { textDocumentProxy.insertText(text) }
    }
}
