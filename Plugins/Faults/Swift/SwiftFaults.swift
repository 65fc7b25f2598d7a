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

/// Each controller holds 4 MiB of its own (touched, so resident) and logs which
/// one it is: "controller N" in viewDidLoad. A new presentation frees the old
/// controller (the SDK releases it), so its memory goes back.
public class ReopenTidy: InputViewController {
    nonisolated(unsafe) static var created = 0
    let cache = [UInt8](repeating: 7, count: 4 << 20)

    override public func viewDidLoad() {
        ReopenTidy.created += 1
        log("controller \(ReopenTidy.created)")
        keyboardLayout = KeyboardLayout(display: "\(cache.count >> 20) MiB", rows: [[.character("1")]])
    }
}

/// The reopen leak as keyboards commit it: each controller registers itself
/// somewhere that outlives it (here a static list, often a closure that
/// captures self), so ending it frees nothing; 4 MiB stay per presentation.
public final class ReopenLeak: ReopenTidy {
    nonisolated(unsafe) static var registered: [ReopenLeak] = []

    override public func viewDidLoad() {
        super.viewDidLoad()
        ReopenLeak.registered.append(self)
    }
}

/// Shows how much of the document its proxy sees: "before/after" in UTF-16
/// code units, on every key and after every outside change.
public final class ContextProbe: InputViewController {
    override public func viewDidLoad() { show() }
    override public func textDidChange(_ textInput: TextInput?) { show() }
    override public func selectionDidChange(_ textInput: TextInput?) { show() }
    static let showAction = KeyAction("show", ContextProbe.show)
    override public class var keyActions: [KeyAction] { [showAction] }

    func show() {
        let before = textDocumentProxy.documentContextBeforeInput?.utf16.count ?? 0
        let after = textDocumentProxy.documentContextAfterInput?.utf16.count ?? 0
        keyboardLayout = KeyboardLayout(display: "\(before)/\(after)", rows: [[.character("x"), KeySpec("show", role: .function, action: ContextProbe.showAction)]])
    }
}

@_cdecl("kbhost_keyboard_plugin_v1")
public func kbhostKeyboardPlugin() -> UnsafeRawPointer {
    KeyboardPlugin.export(TrapOnKey.self, SpinOnKey.self, ReopenTidy.self, ReopenLeak.self, ContextProbe.self)
}
