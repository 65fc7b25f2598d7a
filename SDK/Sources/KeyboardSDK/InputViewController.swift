import CKeyboardABI

/// The principal class of a keyboard: subclass it, as UIInputViewController.
///
/// The host creates one instance per presentation (a keyboard shown again gets a new one in
/// the same process, the old one released, as on iOS), then calls, exactly as UIKit does:
/// `viewDidLoad` → `viewWillAppear` → `viewDidAppear`; on switching away
/// `viewWillDisappear` → `viewDidDisappear`; `textWillChange`/`textDidChange`
/// and `selectionWillChange`/`selectionDidChange` when the document changes
/// from outside the keyboard. Keys call the methods their actions name
/// (see `keyActions`).
open class InputViewController {
    let host: UnsafePointer<kbh_host_v1>

    /// The keyboard's view of the document.
    public let textDocumentProxy: TextDocumentProxy

    /// The host (or KeyboardTesting) creates each instance with this
    /// initializer; creating a controller directly traps.
    public required init() {
        guard let host = KeyboardPlugin.hostForInit else {
            preconditionFailure("InputViewController subclasses are created by kbhost (or KeyboardTesting), not directly")
        }
        self.host = host
        self.textDocumentProxy = TextDocumentProxy(host: host)
    }

    private var ctx: UnsafeMutableRawPointer? { host.pointee.ctx }

    // MARK: Life cycle (override; the defaults do nothing)

    /// Called once, after the instance is created: set the first layout here.
    open func viewDidLoad() {}
    /// The keyboard is about to be shown.
    open func viewWillAppear(_ animated: Bool) {}
    /// The keyboard is shown.
    open func viewDidAppear(_ animated: Bool) {}
    /// The keyboard is about to go away (the user switched keyboards).
    open func viewWillDisappear(_ animated: Bool) {}
    /// The keyboard is gone.
    open func viewDidDisappear(_ animated: Bool) {}
    /// The keyboard's size is about to change (rotation); points.
    open func viewWillTransition(toWidth width: Double, height: Double) {}
    /// Memory is short: free what you can (caches, a dictionary).
    open func didReceiveMemoryWarning() {}

    // MARK: UITextInputDelegate (override; the defaults do nothing)

    /// The app is about to change the document (never for the keyboard's own edits).
    open func textWillChange(_ textInput: TextInput?) {}
    /// The app changed the document: the proxy's reads already see it.
    open func textDidChange(_ textInput: TextInput?) {}
    /// The app is about to move the selection.
    open func selectionWillChange(_ textInput: TextInput?) {}
    /// The app moved the selection.
    open func selectionDidChange(_ textInput: TextInput?) {}

    // MARK: Key actions

    /// The methods keys may call. Override and list your own `KeyAction`
    /// constants; the built-in ones are always there (`KeyAction.insertKeyLabel`,
    /// `.insertSpace`, `.insertNewline`, `.deleteBackward`,
    /// `.advanceToNextInputMode`, `.handleInputModeList`, `.dismissKeyboard`).
    open class var keyActions: [KeyAction] { [] }

    /// Inserts the sender's label (the default action of a character key).
    public func insertKeyLabel(_ key: Key) { textDocumentProxy.insertText(key.label) }
    /// Inserts a space (the space bar's default action).
    public func insertSpace() { textDocumentProxy.insertText(" ") }
    /// Inserts a newline (the return key's default action).
    public func insertNewline() { textDocumentProxy.insertText("\n") }
    /// The proxy's `deleteBackward` (the delete key's default action): on an
    /// empty document, or at its start, it does nothing.
    public func deleteBackward() { textDocumentProxy.deleteBackward() }

    // MARK: The controller's services

    /// Switches to the next enabled keyboard (the globe key).
    public func advanceToNextInputMode() { host.pointee.advance_to_next_input_mode(ctx) }

    /// The globe key's action: the next keyboard on a tap; on a long press the
    /// host shows the input mode list (headless: it also advances).
    public func handleInputModeList(from key: Key, with event: KeyEvent) {
        if event.kind == .touchUpInside || event.kind == .longPress { advanceToNextInputMode() }
    }

    /// Hides the keyboard.
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

    /// How much a log line matters; the ABI's levels.
    public enum LogLevel: Int32, Sendable {
        /// Detail for the keyboard's author.
        case debug = 0
        /// What happened (the default).
        case info
        /// Something is missing or refused, and the keyboard goes on without it.
        case warning
        /// Something failed.
        case error
    }

    /// Writes a line to the host's log for this keyboard.
    public func log(_ message: String, level: LogLevel = .info) {
        message.withCString { host.pointee.log(ctx, level.rawValue, $0) }
    }

    /// The same, with the ABI's number for the level (0 debug … 3 error).
    @available(*, deprecated, message: "pass a LogLevel: .debug, .info, .warning or .error")
    public func log(_ message: String, level: Int32) {
        message.withCString { host.pointee.log(ctx, level, $0) }
    }
}
