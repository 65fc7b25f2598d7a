public import KeyboardSDK

/// UIKit's keyboard controller, over KeyboardSDK's `InputViewController`: subclass it as on
/// iOS, and the same controller code compiles for both.
///
///     #if canImport(UIKit)
///     import UIKit
///     #else
///     import KeyboardUIKitCompat
///     #endif
///
///     final class KeyboardViewController: UIInputViewController {
///         override func viewDidLoad() { … textDocumentProxy.insertText("x") … }
///         override func viewWillTransition(to size: CGSize,
///                                          with coordinator: any UIViewControllerTransitionCoordinator) { … }
///     }
///
/// What it adds to `InputViewController`: `viewWillTransition(to:with:)` with a `CGSize`, the
/// proxy as a `UITextDocumentProxy` (with `NSRange` marked text), UIKit's trait type names,
/// `hasDictationKey`, and keys whose action is a closure (`KeyButton`, `setKeys(_:display:)`),
/// which is how a SwiftUI keyboard view hands its actions to the controller. What has no
/// counterpart here: a view hierarchy (`view`, `inputView`, Auto Layout) — the host draws the
/// keys from the layout the controller sets — and `#selector`, which needs Objective-C.
open class UIInputViewController: InputViewController {
    /// The host (or KeyboardTesting) creates the one instance with this initializer.
    public required init() { super.init() }

    /// Whether the keyboard shows a dictation key. kbhost has no dictation: set it if your
    /// shared logic reads it; the host ignores it.
    public var hasDictationKey = false

    /// The keyboard's size as of the last transition (`.zero` before the first). While
    /// `viewWillTransition(to:with:)` runs it is still the size before, as a view's bounds are
    /// in UIKit; it becomes the new size when that returns.
    public private(set) var transitionSize = CGSize.zero

    /// The closures of the keys `setKeys(_:display:)` set, by key identifier.
    var buttonActions: [String: () -> Void] = [:]

    // MARK: Size

    /// The keyboard's size is about to change (rotation): UIKit's spelling. kbhost does not
    /// animate, so the coordinator runs the alongside animation and the completion at once.
    open func viewWillTransition(to size: CGSize, with coordinator: any UIViewControllerTransitionCoordinator) {}

    /// KeyboardSDK's callback, turned into `viewWillTransition(to:with:)`. Override that one.
    public final override func viewWillTransition(toWidth width: Double, height: Double) {
        let size = CGSize(width: width, height: height)
        viewWillTransition(to: size, with: ImmediateTransitionCoordinator())
        transitionSize = size
    }

    // MARK: Keys with closures

    /// The built-in ones, plus `KeyAction.sendActions`. A subclass that lists its own actions returns
    /// `super.keyActions + [...]`.
    open override class var keyActions: [KeyAction] { [.sendActions] }

    /// Calls the closure of the key that sent it (UIControl's `sendActions(for:)`).
    public func sendActions(_ key: Key) {
        buttonActions[key.identifier]?()
    }

    /// Replaces the layout with these keys; a key's closure runs when it is tapped (and on
    /// each repeat, for a key that repeats). Identifiers left out are the titles; a title
    /// seen twice gets "#2", "#3"…
    public func setKeys(_ rows: [[KeyButton]], display: String = "") {
        var actions: [String: () -> Void] = [:]
        var seen: [String: Int] = [:]
        let specs = rows.map { row in
            row.map { button -> KeySpec in
                var spec = button.spec
                guard let action = button.action else { return spec }
                var identifier = spec.identifier ?? spec.label
                seen[identifier, default: 0] += 1
                if let n = seen[identifier], n > 1 { identifier += "#\(n)" }
                spec.identifier = identifier
                actions[identifier] = action
                return spec
            }
        }
        buttonActions = actions
        keyboardLayout = KeyboardLayout(display: display, rows: specs)
    }
}

extension KeyAction {
    /// "sendActions:": the action every `KeyButton` key names; it calls the key's closure.
    public static let sendActions = KeyAction("sendActions:", UIInputViewController.sendActions)
}

/// A key of `setKeys(_:display:)`: a closure to run (as a SwiftUI `Button` or a `UIButton`'s
/// primary action), or one of KeyboardSDK's `KeySpec`s whose action is a selector (the globe key).
public struct KeyButton {
    /// The key as the host sees it; its action is `sendActions:` for a closure.
    public var spec: KeySpec
    /// The closure; nil for a `KeySpec` key.
    let action: (() -> Void)?

    /// A key that runs `action` when tapped.
    public init(_ title: String, identifier: String? = nil, role: KeyRole = .character, width: Double = 1,
                repeats: Bool = false, action: @escaping () -> Void) {
        spec = KeySpec(title, identifier: identifier, role: role, width: width,
                       action: .sendActions, repeats: repeats)
        self.action = action
    }

    /// A KeyboardSDK key, its actions selectors of the controller (`.globe()`, `.space()`…).
    public init(_ spec: KeySpec) {
        self.spec = spec
        action = nil
    }
}

/// What `animate(alongsideTransition:completion:)` hands its blocks (UIKit's protocol of that name).
public protocol UIViewControllerTransitionCoordinatorContext: AnyObject {
    /// Whether the transition is animated (never, on kbhost).
    var isAnimated: Bool { get }
    /// Whether the transition was cancelled (never, on kbhost).
    var isCancelled: Bool { get }
    /// How long the transition lasts, in seconds (0 on kbhost).
    var transitionDuration: TimeInterval { get }
}

/// The coordinator of a size change (UIKit's protocol of that name).
public protocol UIViewControllerTransitionCoordinator: UIViewControllerTransitionCoordinatorContext {
    /// Runs `animation` along the transition and `completion` after it; true when it ran them.
    @discardableResult
    func animate(alongsideTransition animation: ((any UIViewControllerTransitionCoordinatorContext) -> Void)?,
                 completion: ((any UIViewControllerTransitionCoordinatorContext) -> Void)?) -> Bool
}

extension UIViewControllerTransitionCoordinator {
    /// The same, with no completion.
    @discardableResult
    public func animate(alongsideTransition animation: ((any UIViewControllerTransitionCoordinatorContext) -> Void)?) -> Bool {
        animate(alongsideTransition: animation, completion: nil)
    }
}

/// kbhost's coordinator: there is no animation, so both blocks run at once, in order.
final class ImmediateTransitionCoordinator: UIViewControllerTransitionCoordinator {
    var isAnimated: Bool { false }
    var isCancelled: Bool { false }
    var transitionDuration: TimeInterval { 0 }

    func animate(alongsideTransition animation: ((any UIViewControllerTransitionCoordinatorContext) -> Void)?,
                 completion: ((any UIViewControllerTransitionCoordinatorContext) -> Void)?) -> Bool {
        animation?(self)
        completion?(self)
        return true
    }
}
