import KeyboardSDK

/// Step 2: shift. A tap gives one capital; a double tap locks capitals
/// (the host delivers the second tap of a double tap to doubleTapAction).
public final class ShiftKeyboard: InputViewController {
    enum Shift { case off, once, locked }
    var shift = Shift.off { didSet { showKeys() } }

    // Each action once: its selector, and the method it calls. Keys pass the
    // constant (a typo does not compile); keyActions lists them for the host.
    static let letter = KeyAction("letter:", ShiftKeyboard.letter)
    static let shiftTapped = KeyAction("shiftTapped:event:", ShiftKeyboard.shiftTapped)
    static let shiftLocked = KeyAction("shiftLocked", ShiftKeyboard.shiftLocked)
    public override class var keyActions: [KeyAction] { [letter, shiftTapped, shiftLocked] }

    public override func viewDidLoad() { showKeys() }

    func showKeys() {
        let letters = "abc".map { String($0) }.map { shift == .off ? $0 : $0.uppercased() }
        let shiftKey = KeySpec(shift == .locked ? "⇪" : "⇧", identifier: "shift", role: .shift,
                               action: ShiftKeyboard.shiftTapped, doubleTapAction: ShiftKeyboard.shiftLocked)
        keyboardLayout = KeyboardLayout(rows: [letters.map { KeySpec($0, action: ShiftKeyboard.letter) }, [shiftKey, .space()]])
    }

    func letter(_ key: Key) {
        textDocumentProxy.insertText(key.label)
        if shift == .once { shift = .off }
    }

    /// A double tap's second touch comes here too (tap count 2), after shiftLocked: leave the lock alone.
    func shiftTapped(_ key: Key, _ event: KeyEvent) {
        guard event.tapCount < 2 else { return }
        shift = shift == .off ? .once : .off
    }
    func shiftLocked() { shift = .locked }
}
