/// A method a key may name, with its selector. Make them from unapplied
/// method references, so the compiler checks the signature:
///
///     override class var keyActions: [KeyAction] {[
///         .action("evaluate", CalculatorViewController.evaluate),          // no argument
///         .action("insertDigit:", CalculatorViewController.insertDigit),   // the sender key
///         .action("shift:event:", CalculatorViewController.shift),         // sender and event
///     ]}
///
/// The selector needs one ':' per argument; the host checks it at load.
public struct KeyAction: Sendable {
    public let selector: String
    /// The Objective-C type encoding: "v@:", "v@:@" or "v@:@@".
    public let types: String
    let invoke: @Sendable (InputViewController, Key?, KeyEvent?) -> Void

    public static func action<C: InputViewController>(_ selector: String, _ method: @escaping @Sendable (C) -> () -> Void) -> KeyAction {
        KeyAction(selector: selector, types: "v@:") { vc, _, _ in
            if let vc = vc as? C { method(vc)() }
        }
    }

    public static func action<C: InputViewController>(_ selector: String, _ method: @escaping @Sendable (C) -> (Key) -> Void) -> KeyAction {
        KeyAction(selector: selector, types: "v@:@") { vc, key, _ in
            if let vc = vc as? C, let key { method(vc)(key) }
        }
    }

    public static func action<C: InputViewController>(_ selector: String, _ method: @escaping @Sendable (C) -> (Key, KeyEvent) -> Void) -> KeyAction {
        KeyAction(selector: selector, types: "v@:@@") { vc, key, event in
            if let vc = vc as? C, let key, let event { method(vc)(key, event) }
        }
    }

    /// The actions every controller has.
    static let builtIn: [KeyAction] = [
        .action("insertKeyLabel:", InputViewController.insertKeyLabel),
        .action("insertSpace", InputViewController.insertSpace),
        .action("insertNewline", InputViewController.insertNewline),
        .action("deleteBackward", InputViewController.deleteBackward),
        .action("advanceToNextInputMode", InputViewController.advanceToNextInputMode),
        .action("handleInputModeListFrom:with:", InputViewController.handleInputModeList),
        .action("dismissKeyboard", InputViewController.dismissKeyboard),
    ]
}
