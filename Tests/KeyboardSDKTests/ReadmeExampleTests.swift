import KeyboardSDK
import KeyboardTesting
import Testing

// The keyboard of README.md's "Writing a keyboard", verbatim but for its
// export line (every plugin's export has the same name; the test binary
// links several keyboards). If this stops compiling, fix the README too.
public final class HexViewController: InputViewController {
    static let insertDigit = KeyAction("insertDigit:", HexViewController.insertDigit)
    override public class var keyActions: [KeyAction] { [insertDigit] }

    override public func viewDidLoad() {
        keyboardLayout = KeyboardLayout(rows: [
            "0123456789ABCDEF".map { KeySpec(String($0), action: HexViewController.insertDigit) },
            [.globe(), .space(), .delete()],
        ])
    }

    func insertDigit(_ key: Key) { textDocumentProxy.insertText(key.label) }
}

@Suite("README example")
struct ReadmeExampleTests {
    @Test func hexKeyboardFromTheReadmeTypes() throws {
        let k = try KeyboardTestDriver(HexViewController.self)
        try k.type("C", "A", "F", "E", "space", "B", "delete")
        #expect(k.text == "CAFE ")
        try k.tap("globe")
        #expect(k.advanceToNextInputModeCount == 1)
    }
}
