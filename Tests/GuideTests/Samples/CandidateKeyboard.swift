import KeyboardSDK

/// Step 3: a candidate row. The word being typed is marked text; the top
/// row offers completions; a candidate tap commits it, as an IME does.
public final class CandidateKeyboard: InputViewController {
    static let words = ["keyboard", "key", "kernel", "kbhost", "sandbox", "swift"]
    var word = ""

    static let letter = KeyAction("letter:", CandidateKeyboard.letter)
    static let choose = KeyAction("choose:", CandidateKeyboard.choose)
    static let commit = KeyAction("commit", CandidateKeyboard.commit)
    public override class var keyActions: [KeyAction] { [letter, choose, commit] }

    public override func viewDidLoad() { showKeys() }

    var candidates: [String] {
        word.isEmpty ? [] : Array(CandidateKeyboard.words.filter { $0.hasPrefix(word) }.prefix(3))
    }

    func showKeys() {
        let row = candidates.enumerated().map { i, c in
            KeySpec(c, identifier: "candidate.\(i)", role: .function, action: CandidateKeyboard.choose)
        }
        keyboardLayout = KeyboardLayout(rows: [
            row,
            "abcdefghijklmnopqrstuvwxyz".map { KeySpec(String($0), action: CandidateKeyboard.letter) },
            [KeySpec("space", role: .space, action: CandidateKeyboard.commit), .delete()],
        ])
    }

    func letter(_ key: Key) {
        word += key.label
        // Marked text, the insertion point at its end.
        textDocumentProxy.setMarkedText(word, selectedRange: word.utf16.count..<word.utf16.count)
        showKeys()
    }

    func choose(_ key: Key) {
        textDocumentProxy.insertText(key.label)  // replaces the marked text
        word = ""
        showKeys()
    }

    func commit() {
        if !word.isEmpty { textDocumentProxy.unmarkText() }
        textDocumentProxy.insertText(" ")
        word = ""
        showKeys()
    }
}
