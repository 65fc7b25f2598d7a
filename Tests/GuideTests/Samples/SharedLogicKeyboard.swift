#if canImport(UIKit)
import UIKit
#else
import KeyboardSDK
import KeyboardUIKitCompat
#endif

/// Logic shared with an iOS keyboard: UIKit's names only, so this compiles on both.
enum Fractions {
    /// Types "1/2" as marked text with the denominator selected, for the user to replace.
    static func half(_ proxy: any UITextDocumentProxy) {
        proxy.setMarkedText("1/2", selectedRange: NSRange(location: 2, length: 1))
    }

    /// Commits the fraction, with a space after it unless the field is a search field.
    static func commit(_ proxy: any UITextDocumentProxy) {
        proxy.unmarkText()
        if proxy.returnKeyType != .search { proxy.insertText(" ") }
    }
}

/// The controller: a UIInputViewController, as on iOS. Only the keys are kbhost's
/// (on iOS, views or SwiftUI buttons calling the same closures).
public final class SharedLogicKeyboard: UIInputViewController {
    /// Wider than tall, as the last size change said: room for a second row.
    private var isLandscape = false {
        didSet { showKeys() }
    }

    public override func viewDidLoad() {
        showKeys()
    }

    public override func viewWillTransition(to size: CGSize,
                                            with coordinator: any UIViewControllerTransitionCoordinator) {
        super.viewWillTransition(to: size, with: coordinator)
        isLandscape = size.width > size.height
    }

    private func showKeys() {
        #if !canImport(UIKit)
        var rows = [[
            KeyButton("½") { [unowned self] in Fractions.half(textDocumentProxy) },
            KeyButton("✓") { [unowned self] in Fractions.commit(textDocumentProxy) },
            KeyButton(.delete()),
        ]]
        if isLandscape { rows.append([KeyButton(.space())]) }
        setKeys(rows)
        #endif
    }
}
