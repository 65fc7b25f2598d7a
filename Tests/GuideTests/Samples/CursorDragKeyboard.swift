import KeyboardSDK

/// A space bar that is also a trackpad: a drag along it moves the insertion
/// point a character for every 10 points, and types no space.
public final class CursorDragKeyboard: InputViewController {
    static let moveCursor = KeyAction("moveCursor:event:", CursorDragKeyboard.moveCursor)
    public override class var keyActions: [KeyAction] { [moveCursor] }
    var moved = 0

    public override func viewDidLoad() {
        let space = KeySpec("space", role: .space, width: 5, action: .insertSpace, dragAction: CursorDragKeyboard.moveCursor)
        keyboardLayout = KeyboardLayout(rows: ["abc".map { KeySpec.character(String($0)) }, [space]])
    }

    func moveCursor(_ key: Key, _ event: KeyEvent) {
        guard let touch = event.touch else { return }
        if event.kind == .dragBegan { moved = 0 }
        let wanted = Int(touch.dx / 10)  // touch.x, touch.y and touch.key say where the finger is
        let proxy = textDocumentProxy
        while moved < wanted, let next = proxy.documentContextAfterInput?.first {
            proxy.adjustTextPosition(byCharacterOffset: next.utf16.count)
            moved += 1
        }
        while moved > wanted, let previous = proxy.documentContextBeforeInput?.last {
            proxy.adjustTextPosition(byCharacterOffset: -previous.utf16.count)
            moved -= 1
        }
    }
}
