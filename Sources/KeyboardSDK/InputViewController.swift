import CKeyboardABI

/// The principal class of a keyboard: subclass it, as UIInputViewController.
///
/// The host creates one instance, then calls, exactly as UIKit does:
/// `viewDidLoad` → `viewWillAppear` → `viewDidAppear`; on switching away
/// `viewWillDisappear` → `viewDidDisappear`; `textWillChange`/`textDidChange`
/// and `selectionWillChange`/`selectionDidChange` when the document changes
/// from outside the keyboard. Keys call the methods named by their actions
/// (see `keyActions`).
open class InputViewController {
    let host: UnsafePointer<kbh_host_v1>

    /// The keyboard's view of the document.
    public let textDocumentProxy: TextDocumentProxy

    /// Subclasses are created by the host with this initializer.
    public required init() {
        guard let host = KeyboardPlugin.hostForInit else {
            preconditionFailure("InputViewController subclasses are created by kbhost (or KeyboardTesting), not directly")
        }
        self.host = host
        self.textDocumentProxy = TextDocumentProxy(host: host)
    }

    private var ctx: UnsafeMutableRawPointer? { host.pointee.ctx }

    // MARK: Life cycle (override; the defaults do nothing)

    open func viewDidLoad() {}
    open func viewWillAppear(_ animated: Bool) {}
    open func viewDidAppear(_ animated: Bool) {}
    open func viewWillDisappear(_ animated: Bool) {}
    open func viewDidDisappear(_ animated: Bool) {}
    /// The keyboard's size is about to change (rotation); points.
    open func viewWillTransition(toWidth width: Double, height: Double) {}
    open func didReceiveMemoryWarning() {}

    // MARK: UITextInputDelegate (override; the defaults do nothing)

    open func textWillChange(_ textInput: TextInput?) {}
    open func textDidChange(_ textInput: TextInput?) {}
    open func selectionWillChange(_ textInput: TextInput?) {}
    open func selectionDidChange(_ textInput: TextInput?) {}

    // MARK: Key actions

    /// The methods keys may name, by selector ("insertDigit:", "evaluate").
    /// Override and list your own; the built-in ones below are always there:
    /// `insertKeyLabel:`, `insertSpace`, `insertNewline`, `deleteBackward`,
    /// `advanceToNextInputMode`, `handleInputModeListFrom:with:`, `dismissKeyboard`.
    open class var keyActions: [KeyAction] { [] }

    /// Inserts the sender's label (the default action of a character key).
    public func insertKeyLabel(_ key: Key) { textDocumentProxy.insertText(key.label) }
    public func insertSpace() { textDocumentProxy.insertText(" ") }
    public func insertNewline() { textDocumentProxy.insertText("\n") }
    /// Deletes backward when the document has text.
    public func deleteBackward() {
        if textDocumentProxy.hasText { textDocumentProxy.deleteBackward() }
    }

    // MARK: The controller's services

    /// Switches to the next enabled keyboard (the globe key).
    public func advanceToNextInputMode() { host.pointee.advance_to_next_input_mode(ctx) }

    /// The globe key's action: the next keyboard on a tap; on a long press the
    /// host shows the input mode list (headless: it also advances).
    public func handleInputModeList(from key: Key, with event: KeyEvent) {
        if event.kind == .touchUpInside || event.kind == .longPress { advanceToNextInputMode() }
    }

    public func dismissKeyboard() { host.pointee.dismiss_keyboard(ctx) }
    /// The standard input click (needs no open access).
    public func playInputClick() { host.pointee.play_input_click(ctx) }

    /// Whether the keyboard must show its own globe key.
    public var needsInputModeSwitchKey: Bool { host.pointee.needs_input_mode_switch_key(ctx) }
    /// Whether the user granted open ("full") access and the manifest requests it.
    public var hasFullAccess: Bool { host.pointee.has_full_access(ctx) }
    /// The manifest's PrimaryLanguage (BCP 47).
    public var primaryLanguage: String? {
        guard let p = host.pointee.primary_language(ctx) else { return nil }
        return String(cString: p)
    }
    /// The enabled input modes (keyboard identifiers); the current one first.
    public var inputModes: [String] {
        guard let p = host.pointee.input_modes(ctx) else { return [] }
        return String(cString: p).split(separator: "\n").map(String.init)
    }

    /// The keys the host shows. Setting it replaces the whole layout.
    public var keyboardLayout = KeyboardLayout(rows: []) {
        didSet {
            if oldValue.rows == keyboardLayout.rows {
                keyboardLayout.display.withCString { host.pointee.set_display(ctx, $0) }
            } else {
                KeyboardPlugin.send(keyboardLayout, to: host)
            }
        }
    }

    /// Replaces only the display line above the keys.
    public func setDisplay(_ text: String) {
        keyboardLayout.display = text
    }

    /// Writes a line to the host's log for this keyboard.
    public func log(_ message: String, level: Int32 = 1) {
        message.withCString { host.pointee.log(ctx, level, $0) }
    }
}
