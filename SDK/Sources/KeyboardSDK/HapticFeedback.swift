import CKeyboardABI
import Glibc

/// Haptic feedback, as UIKit's feedback generators give it: an impact
/// (UIImpactFeedbackGenerator, with an intensity), a selection change
/// (UISelectionFeedbackGenerator) or a notification (UINotificationFeedbackGenerator).
public enum HapticFeedback: Hashable, Sendable {
    /// UIImpactFeedbackGenerator's styles.
    public enum ImpactStyle: Sendable {
        /// A light tap.
        case light
        /// A medium tap (UIKit's default).
        case medium
        /// A heavy tap.
        case heavy
        /// A soft, flexible tap.
        case soft
        /// A hard, rigid tap.
        case rigid
    }

    /// UINotificationFeedbackGenerator's types.
    public enum NotificationType: Sendable {
        /// Something succeeded.
        case success
        /// Something needs attention.
        case warning
        /// Something failed.
        case error
    }

    /// impactOccurred(intensity:): intensity from 0 to 1.
    case impact(ImpactStyle, intensity: Double)
    /// selectionChanged(): the selection moved (a picker, a candidate).
    case selection
    /// notificationOccurred(_:).
    case notification(NotificationType)

    /// impactOccurred() at full intensity.
    public static func impact(_ style: ImpactStyle) -> HapticFeedback { .impact(style, intensity: 1) }

    /// The kbh_haptic and intensity the host is passed.
    var abi: (kind: kbh_haptic, intensity: Double) {
        switch self {
        case .impact(let style, let intensity):
            let kind: kbh_haptic = switch style {
            case .light: KBH_HAPTIC_LIGHT
            case .medium: KBH_HAPTIC_MEDIUM
            case .heavy: KBH_HAPTIC_HEAVY
            case .soft: KBH_HAPTIC_SOFT
            case .rigid: KBH_HAPTIC_RIGID
            }
            return (kind, intensity)
        case .selection: return (KBH_HAPTIC_SELECTION, 1)
        case .notification(.success): return (KBH_HAPTIC_SUCCESS, 1)
        case .notification(.warning): return (KBH_HAPTIC_WARNING, 1)
        case .notification(.error): return (KBH_HAPTIC_ERROR, 1)
        }
    }
}

extension InputViewController {
    /// Plays haptic feedback: needs open access, as on iOS, where a keyboard without it feels
    /// nothing (here: `KeyboardServiceError` with code EPERM). The host records each one in its
    /// events ("haptic: light"; `KeyboardTestDriver.haptics`). A host older than haptics does nothing.
    public func playHaptic(_ feedback: HapticFeedback) throws(KeyboardServiceError) {
        guard hostHas(host, \.play_haptic) else { return }
        let (kind, intensity) = feedback.abi
        let rc = host.pointee.play_haptic(host.pointee.ctx, Int32(kind.rawValue), intensity)
        guard rc == 0 else { throw serviceError(host, rc, "haptic feedback needs open access") }
    }
}
