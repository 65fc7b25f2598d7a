import KeyboardSDK
import KeyboardTesting
import KeyboardUIKitCompat
import Testing

/// Shared keyboard code as on iOS: generators made once, called from key actions.
final class FeedbackKeyboard: UIInputViewController {
    let impact = UIImpactFeedbackGenerator(style: .light)
    let selection = UISelectionFeedbackGenerator()
    let notification = UINotificationFeedbackGenerator()
    static let tapped = KeyAction("tapped:", FeedbackKeyboard.tapped)
    override class var keyActions: [KeyAction] { super.keyActions + [tapped] }

    override func viewDidLoad() {
        impact.prepare()
        keyboardLayout = KeyboardLayout(rows: [["tap", "soft", "pick", "done"].map { KeySpec($0, action: FeedbackKeyboard.tapped) }])
    }

    func tapped(_ key: Key) {
        switch key.label {
        case "tap": impact.impactOccurred()
        case "soft": UIImpactFeedbackGenerator(style: .soft).impactOccurred(intensity: 0.25)
        case "pick": selection.selectionChanged()
        default: notification.notificationOccurred(.success)
        }
    }
}

@Suite("UIKit's feedback generators")
struct FeedbackTests {
    @Test func theyReachTheKeyboardWhoseActionRunsAsHaptics() throws {
        let k = try KeyboardTestDriver(FeedbackKeyboard.self, hasFullAccess: true)
        try k.type("tap", "soft", "pick", "done")
        #expect(k.haptics == ["light", "soft 0.25", "selection", "success"])
    }

    @Test func withoutOpenAccessNothingIsFeltAndNothingThrows() throws {
        let k = try KeyboardTestDriver(FeedbackKeyboard.self, hasFullAccess: false)
        try k.type("tap", "done")
        #expect(k.haptics.isEmpty)
        #expect(k.text.isEmpty)
    }

    @Test func outsideAKeyboardsMethodAGeneratorDoesNothing() throws {
        let k = try KeyboardTestDriver(FeedbackKeyboard.self, hasFullAccess: true)
        UIImpactFeedbackGenerator().impactOccurred()  // no keyboard's method is running on this thread
        // A stray effect would reach the host with the next call's: one key, one haptic.
        try k.type("pick")
        #expect(k.haptics == ["selection"])
    }
}
