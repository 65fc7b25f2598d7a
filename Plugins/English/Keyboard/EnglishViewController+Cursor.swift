import KeyboardSDK

// The space bar as a trackpad, as on iOS: a drag along it moves the insertion point one
// character for every `cursorStep` points, left or right, and types no space.

extension EnglishViewController {
    /// Points of drag per character the cursor moves.
    static let cursorStep = 10.0

    func dragCursor(_ key: Key, _ event: KeyEvent) {
        guard let touch = event.touch else { return }
        if event.kind == .dragBegan { cursorDragged = 0 }
        let wanted = Int((touch.dx / EnglishViewController.cursorStep).rounded(.towardZero))
        while cursorDragged < wanted, let next = textDocumentProxy.documentContextAfterInput?.first {
            textDocumentProxy.adjustTextPosition(byCharacterOffset: next.utf16.count)
            cursorDragged += 1
        }
        while cursorDragged > wanted, let previous = textDocumentProxy.documentContextBeforeInput?.last {
            textDocumentProxy.adjustTextPosition(byCharacterOffset: -previous.utf16.count)
            cursorDragged -= 1
        }
        if event.kind == .dragEnded { textChanged() }
    }
}
