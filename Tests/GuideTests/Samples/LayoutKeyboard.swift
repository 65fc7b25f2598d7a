import KeyboardSDK

/// Step 1: a layout. Character keys insert their label; the built-in
/// actions cover space, delete, return and the globe key.
public final class LayoutKeyboard: InputViewController {
    public override func viewDidLoad() {
        var bottom: [KeySpec] = [.space(), .delete(), .return()]
        // The globe key only when the device does not draw its own.
        if needsInputModeSwitchKey { bottom.insert(.globe(), at: 0) }
        keyboardLayout = KeyboardLayout(rows: [
            "qwertyuiop".map { KeySpec.character(String($0)) },
            "asdfghjkl".map { KeySpec.character(String($0)) },
            bottom,
        ])
    }
}
