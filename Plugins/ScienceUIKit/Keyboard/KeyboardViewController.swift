// The ScienceCustomKeyboard seed's controller (SCK/Controller/KeyboardViewController.swift),
// ported by changing only what UIKit alone has: the imports, the selector of the globe key,
// and where the keyboard view goes (a SwiftUI hosting controller on iOS, the host's keys
// here). Everything between the two `#if`s is the seed's code, but for one line marked "fix".
#if canImport(UIKit)
import SwiftUI
import UIKit
#else
import KeyboardSDK
import KeyboardUIKitCompat
#endif

public final class KeyboardViewController: UIInputViewController {
    /// The view, kept so that tests and transitions can reach it.
    private(set) var keyboardView: KeyboardView?

    override public func viewDidLoad() {
        setup()
    }

    private func setup() {
        #if canImport(UIKit)
        let nextKeyboardAction = #selector(self.handleInputModeList(from:with:))
        #else
        let nextKeyboardAction = KeyAction.handleInputModeList
        #endif
        let keyboardView = KeyboardView(
            needsInputModeSwitchKey: needsInputModeSwitchKey,
            nextKeyboardAction: nextKeyboardAction,
            inputTextAction: { [weak self] text in
                self?.textDocumentProxy.insertText(text)
            },
            deleteTextAction: { [weak self] in
                guard let self, self.textDocumentProxy.hasText else { return }
                self.textDocumentProxy.deleteBackward()
            },
            moveRightAction: { [weak self] in
                guard let self = self else { return }
                if let after = self.textDocumentProxy.documentContextAfterInput {
                    if after.isEmpty {
                        self.textDocumentProxy.adjustTextPosition(byCharacterOffset: 1)
                    } else {
                        let offset = after.prefix(1).utf16.count
                        self.textDocumentProxy.adjustTextPosition(byCharacterOffset: offset)
                    }
                } else {
                    self.textDocumentProxy.adjustTextPosition(byCharacterOffset: 1)
                }
            },
            moveLeftAction: { [weak self] in
                guard let self = self else { return }
                if let before = self.textDocumentProxy.documentContextBeforeInput {
                    // fix: the seed reads before.prefix(1), the first character of the context
                    // rather than the one before the cursor, so after an emoji it moved into it
                    // (or, where the host keeps clusters whole, past a second character).
                    let offset = before.suffix(1).utf16.count * -1
                    self.textDocumentProxy.adjustTextPosition(byCharacterOffset: offset)
                } else {
                    self.textDocumentProxy.adjustTextPosition(byCharacterOffset: -1)
                }
            }
        )

        #if canImport(UIKit)
        let hostingController = UIHostingController(rootView: keyboardView.BackgroundColor(.clear))
        addChild(hostingController)
        view.addSubview(hostingController.view)
        hostingController.didMove(toParent: self)

        hostingController.view.translatesAutoresizingMaskIntoConstraints = false
        NSLayoutConstraint.activate([
            hostingController.view.leftAnchor.constraint(equalTo: view.leftAnchor),
            hostingController.view.topAnchor.constraint(equalTo: view.topAnchor),
            hostingController.view.rightAnchor.constraint(equalTo: view.rightAnchor),
            hostingController.view.bottomAnchor.constraint(equalTo: view.bottomAnchor)
        ])
        #else
        keyboardView.show(in: self)
        self.keyboardView = keyboardView
        #endif
    }

    /// Not in the seed: whether the keyboard is wider than tall, as the last transition said.
    /// A landscape keyboard leaves out the number row (the modes still reach every character).
    private(set) var isLandscape = false {
        didSet {
            #if !canImport(UIKit)
            keyboardView?.isCompact = isLandscape
            #endif
        }
    }

    override public func viewWillTransition(to size: CGSize, with coordinator: any UIViewControllerTransitionCoordinator) {
        super.viewWillTransition(to: size, with: coordinator)
        coordinator.animate(alongsideTransition: { [weak self] _ in
            self?.isLandscape = size.width > size.height
        })
    }
}
