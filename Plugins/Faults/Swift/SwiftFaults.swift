import KeyboardSDK

/// A Swift keyboard whose "boom" key hits a Swift runtime trap (an index out
/// of range), for the tests: a trap must end the keyboard, never the host.
public final class TrapOnKey: InputViewController {
    static let boom = KeyAction("boom", TrapOnKey.boom)
    override public class var keyActions: [KeyAction] { [boom] }

    override public func viewDidLoad() {
        keyboardLayout = KeyboardLayout(rows: [[.character("1"), KeySpec("boom", role: .function, action: TrapOnKey.boom)]])
    }

    func boom() {
        let empty: [Int] = []
        textDocumentProxy.insertText("\(empty[Int(textDocumentProxy.documentIdentifier.count) + 1])")
    }
}

/// Spins forever on "boom": a busy hang, caught by the event deadline.
public final class SpinOnKey: InputViewController {
    static let boom = KeyAction("boom", SpinOnKey.boom)
    override public class var keyActions: [KeyAction] { [boom] }

    override public func viewDidLoad() {
        keyboardLayout = KeyboardLayout(rows: [[.character("1"), KeySpec("boom", role: .function, action: SpinOnKey.boom)]])
    }

    func boom() {
        var x: UInt64 = 0
        while textDocumentProxy.documentIdentifier != "never" { x &+= 1 }
        textDocumentProxy.insertText("\(x)")
    }
}

@_cdecl("kbhost_keyboard_plugin_v1")
public func kbhostKeyboardPlugin() -> UnsafeRawPointer { KeyboardPlugin.export(TrapOnKey.self, SpinOnKey.self) }
