public import KeyboardSDK

/// UIKit's feedback generators, over `InputViewController.playHaptic`: shared keyboard code that
/// makes one and calls it compiles for iOS and for kbhost alike. The feedback goes to the keyboard
/// whose method is running (a generator called outside one does nothing), and, as on iOS, a
/// keyboard without open access feels nothing and is not told (playHaptic's error is dropped).
open class UIFeedbackGenerator {
    /// A generator.
    public init() {}

    /// Readies the engine: nothing to do here (the host records feedback, it plays none).
    public func prepare() {}

    func play(_ feedback: HapticFeedback) {
        try? InputViewController.current?.playHaptic(feedback)
    }
}

/// UIImpactFeedbackGenerator: a tap of one of five weights.
public final class UIImpactFeedbackGenerator: UIFeedbackGenerator {
    /// UIImpactFeedbackGenerator.FeedbackStyle.
    public enum FeedbackStyle: Sendable {
        /// A light tap.
        case light
        /// A medium tap.
        case medium
        /// A heavy tap.
        case heavy
        /// A soft tap.
        case soft
        /// A rigid tap.
        case rigid
    }

    /// The generator's weight.
    public let style: FeedbackStyle

    /// A generator of impacts of this weight (UIKit's default: medium).
    public init(style: FeedbackStyle = .medium) {
        self.style = style
    }

    /// An impact at full intensity.
    public func impactOccurred() { impactOccurred(intensity: 1) }

    /// An impact at an intensity from 0 to 1.
    public func impactOccurred(intensity: CGFloat) {
        let sdkStyle: HapticFeedback.ImpactStyle = switch style {
        case .light: .light
        case .medium: .medium
        case .heavy: .heavy
        case .soft: .soft
        case .rigid: .rigid
        }
        play(.impact(sdkStyle, intensity: intensity))
    }
}

/// UISelectionFeedbackGenerator: the selection moved (a picker, a candidate).
public final class UISelectionFeedbackGenerator: UIFeedbackGenerator {
    /// The selection changed.
    public func selectionChanged() { play(.selection) }
}

/// UINotificationFeedbackGenerator: success, warning or error.
public final class UINotificationFeedbackGenerator: UIFeedbackGenerator {
    /// UINotificationFeedbackGenerator.FeedbackType.
    public enum FeedbackType: Sendable {
        /// Something succeeded.
        case success
        /// Something needs attention.
        case warning
        /// Something failed.
        case error
    }

    /// A notification's feedback.
    public func notificationOccurred(_ type: FeedbackType) {
        switch type {
        case .success: play(.notification(.success))
        case .warning: play(.notification(.warning))
        case .error: play(.notification(.error))
        }
    }
}
