import CKeyboardABI

/// A method a key may call, with the selector that names it on the wire and
/// to C keyboards. Declare each once, as a constant named like its method,
/// and list it in `keyActions`; layouts then use the constant, so the
/// selector is written once and a misspelt action does not compile:
///
///     static let insertDigit = KeyAction("insertDigit:", HexViewController.insertDigit)
///     override class var keyActions: [KeyAction] { [insertDigit] }
///     … KeySpec("A", action: HexViewController.insertDigit)
///
/// The method is an unapplied method reference, so the compiler checks its
/// signature: `()`, `(Key)` (the sender) or `(Key, KeyEvent)`. The selector
/// needs one ':' per argument ("evaluate", "insertDigit:", "shift:event:");
/// the host checks it at load.
public struct KeyAction: Sendable {
    /// The selector keys name the method by ("insertDigit:").
    public let selector: String
    /// The Objective-C type encoding: "v@:", "v@:@" or "v@:@@".
    public let types: String
    let invoke: @Sendable (InputViewController, Key?, KeyEvent?) -> Void

    /// An action without arguments ("evaluate").
    public init<C: InputViewController>(_ selector: String, _ method: @escaping @Sendable (C) -> () -> Void) {
        self.init(selector: selector, types: KBH_KEY_ACTION_TYPES_V1) { vc, _, _ in
            if let vc = vc as? C { method(vc)() }
        }
    }

    /// An action that takes the key that sent it ("insertDigit:").
    public init<C: InputViewController>(_ selector: String, _ method: @escaping @Sendable (C) -> (Key) -> Void) {
        self.init(selector: selector, types: KBH_KEY_ACTION_TYPES_KEY_V1) { vc, key, _ in
            if let vc = vc as? C, let key { method(vc)(key) }
        }
    }

    /// An action that takes the key and the event ("shift:event:").
    public init<C: InputViewController>(_ selector: String, _ method: @escaping @Sendable (C) -> (Key, KeyEvent) -> Void) {
        self.init(selector: selector, types: KBH_KEY_ACTION_TYPES_KEY_EVENT_V1) { vc, key, event in
            if let vc = vc as? C, let key, let event { method(vc)(key, event) }
        }
    }

    private init(selector: String, types: String, invoke: @escaping @Sendable (InputViewController, Key?, KeyEvent?) -> Void) {
        self.selector = selector
        self.types = types
        self.invoke = invoke
    }

    /// The same as `KeyAction(_:_:)`, for `keyActions` lists written inline.
    public static func action<C: InputViewController>(_ selector: String, _ method: @escaping @Sendable (C) -> () -> Void) -> KeyAction {
        KeyAction(selector, method)
    }

    /// The same as `KeyAction(_:_:)`, for `keyActions` lists written inline.
    public static func action<C: InputViewController>(_ selector: String, _ method: @escaping @Sendable (C) -> (Key) -> Void) -> KeyAction {
        KeyAction(selector, method)
    }

    /// The same as `KeyAction(_:_:)`, for `keyActions` lists written inline.
    public static func action<C: InputViewController>(_ selector: String, _ method: @escaping @Sendable (C) -> (Key, KeyEvent) -> Void) -> KeyAction {
        KeyAction(selector, method)
    }

    // MARK: The actions every controller has (no need to list them)

    /// "insertKeyLabel:": inserts the sender's label (a character key's default).
    public static let insertKeyLabel = KeyAction("insertKeyLabel:", InputViewController.insertKeyLabel)
    /// "insertSpace": inserts a space.
    public static let insertSpace = KeyAction("insertSpace", InputViewController.insertSpace)
    /// "insertNewline": inserts a newline.
    public static let insertNewline = KeyAction("insertNewline", InputViewController.insertNewline)
    /// "deleteBackward": deletes backward, as the proxy does.
    public static let deleteBackward = KeyAction("deleteBackward", InputViewController.deleteBackward)
    /// "advanceToNextInputMode": switches to the next keyboard.
    public static let advanceToNextInputMode = KeyAction("advanceToNextInputMode", InputViewController.advanceToNextInputMode)
    /// "handleInputModeListFrom:with:": the globe key's action.
    public static let handleInputModeList = KeyAction("handleInputModeListFrom:with:", InputViewController.handleInputModeList)
    /// "dismissKeyboard": hides the keyboard.
    public static let dismissKeyboard = KeyAction("dismissKeyboard", InputViewController.dismissKeyboard)

    /// The actions every controller has.
    static let builtIn: [KeyAction] = [
        insertKeyLabel, insertSpace, insertNewline, deleteBackward, advanceToNextInputMode, handleInputModeList, dismissKeyboard,
    ]
}
