import KeyboardSDK

/// An English keyboard with the standard keyboard's habits:
///
/// - shift: a tap capitalizes the next letter; a double tap (the second tap
///   within 0.25 s) is caps lock, until shift is tapped again;
/// - auto-capitalization as the field asks (none, words, sentences, all characters);
/// - delete deletes on touch down and repeats while held (after 0.4 s, then every 0.1 s);
/// - a suggestion row for the word being typed (hunspell; the user's text
///   replacements first); tapping one replaces the word;
/// - on space, a text replacement ("omw" → "On my way!") is expanded and, if
///   the field allows autocorrection, a misspelled word whose correction is
///   close is corrected, in the case it was typed in ("Teh" → "The");
/// - ⇆ moves the letters into a fan for one thumb (left, then right, then back);
///   in landscape a fan for each thumb;
/// - 123 for digits and punctuation; the globe key only when the host asks for it.
public final class EnglishViewController: InputViewController {
    private var layout = EnglishLayout()
    private var spelling: SpellChecker?
    private var replacements: [LexiconEntry] = []
    /// When shift was last tapped (touch up), for caps lock.
    private var lastShiftTap: Int64?

    /// The longest gap between the two taps of a double tap on shift.
    static let capsLockNanoseconds: Int64 = 250_000_000

    static let typeLetter = KeyAction("typeLetter:", EnglishViewController.typeLetter)
    static let typeSymbol = KeyAction("typeSymbol:", EnglishViewController.typeSymbol)
    static let space = KeyAction("space", EnglishViewController.space)
    static let newline = KeyAction("newline", EnglishViewController.newline)
    static let delete = KeyAction("delete:event:", EnglishViewController.delete)
    static let shift = KeyAction("shift:event:", EnglishViewController.shift)
    static let lockShift = KeyAction("lockShift:event:", EnglishViewController.lockShift)
    static let chooseSuggestion = KeyAction("chooseSuggestion:", EnglishViewController.chooseSuggestion)
    static let showNumbers = KeyAction("showNumbers", EnglishViewController.showNumbers)
    static let showLetters = KeyAction("showLetters", EnglishViewController.showLetters)
    static let nextArrangement = KeyAction("nextArrangement", EnglishViewController.nextArrangement)
    static let dragCursor = KeyAction("dragCursor:event:", EnglishViewController.dragCursor)

    override public class var keyActions: [KeyAction] {[
        typeLetter, typeSymbol, space, newline, delete, shift, lockShift, chooseSuggestion,
        showNumbers, showLetters, nextArrangement, dragCursor,
    ]}

    /// Characters the cursor has moved in the space bar drag under way (EnglishViewController+Cursor).
    var cursorDragged = 0

    /// The dictionary is loaded once, here, and kept for the life of the keyboard.
    override public func viewDidLoad() {
        spelling = SpellChecker()
        if spelling == nil { log("no en_US dictionary in \(SpellChecker.directory): no suggestions or autocorrection") }
        requestSupplementaryLexicon { self.replacements = $0 }
        textChanged()
    }

    override public func viewWillAppear(_ animated: Bool) {
        requestSupplementaryLexicon { self.replacements = $0 }
        textChanged()
    }

    /// The keyboard's own size, not the screen's: a phone's keyboard is wider
    /// than tall either way (375 × 216 points in portrait, 667 × 162 in
    /// landscape), so landscape is a keyboard at least `landscapeWidth` wide.
    override public func viewWillTransition(toWidth width: Double, height: Double) {
        layout.isLandscape = width > height && width >= EnglishViewController.landscapeWidth
        render()
    }

    /// The narrowest landscape phone keyboard is 568 points; the widest portrait one 430.
    static let landscapeWidth = 500.0

    /// The app moved the insertion point or changed the text.
    override public func textDidChange(_ textInput: TextInput?) { textChanged() }
    override public func selectionDidChange(_ textInput: TextInput?) { textChanged() }

    // MARK: Keys

    func typeLetter(_ key: Key) {
        textDocumentProxy.insertText(layout.shift == .off ? key.label : key.label.uppercased())
        if layout.shift == .once { layout.shift = .off }
        textChanged()
    }

    func typeSymbol(_ key: Key) {
        if [".", ",", "?", "!"].contains(key.label) { finishWord() }  // the end of a word, as space is
        textDocumentProxy.insertText(key.label)
        textChanged()
    }

    /// Expands a text replacement or corrects the word, then a space. On the
    /// numbers page, space goes back to the letters.
    func space() {
        finishWord()
        textDocumentProxy.insertText(" ")
        layout.page = .letters
        textChanged()
    }

    func newline() {
        finishWord()
        textDocumentProxy.insertText("\n")
        textChanged()
    }

    /// Touch down deletes, and so does each repeat while the key is held.
    func delete(_ key: Key, _ event: KeyEvent) {
        guard event.kind == .touchDown || event.kind == .repeat, textDocumentProxy.hasText else { return }
        textDocumentProxy.deleteBackward()
        textChanged()
    }

    /// A tap: on for the next letter, or off. The second touch up of a double
    /// tap (tap count 2) belongs to `lockShift`.
    func shift(_ key: Key, _ event: KeyEvent) {
        guard event.tapCount < 2 else { return }
        layout.shift = layout.shift == .off ? .once : .off
        lastShiftTap = event.timestampNanoseconds
        render()
    }

    /// The second tap of a double tap: caps lock, if it came soon enough after
    /// the first; otherwise it is one more single tap.
    func lockShift(_ key: Key, _ event: KeyEvent) {
        if let last = lastShiftTap, event.timestampNanoseconds - last <= EnglishViewController.capsLockNanoseconds {
            layout.shift = .locked
        } else {
            layout.shift = layout.shift == .off ? .once : .off
        }
        lastShiftTap = nil
        render()
    }

    /// Replaces the word being typed with the suggestion, then a space.
    func chooseSuggestion(_ key: Key) {
        guard !key.label.isEmpty else { return }
        replaceCurrentWord(with: key.label)
        textDocumentProxy.insertText(" ")
        textChanged()
    }

    func showNumbers() {
        layout.page = .numbers
        render()
    }

    func showLetters() {
        layout.page = .letters
        render()
    }

    /// Standard → fan (left thumb) → fan (right thumb) → standard. In
    /// landscape both fans show; ⇆ goes back to the standard rows.
    func nextArrangement() {
        layout.arrangement = layout.isLandscape && layout.arrangement != .standard ? .standard : layout.arrangement.next
        render()
    }

    // MARK: Words

    private var autocorrects: Bool {
        let traits = textDocumentProxy.traits
        return traits.autocorrectionType != .no && !traits.isSecureTextEntry
    }

    /// At the end of a word: the user's text replacement for it, else the
    /// correction of a misspelling (when the field allows it).
    private func finishWord() {
        let word = Words.currentWord(before: textDocumentProxy.documentContextBeforeInput)
        guard !word.isEmpty else { return }
        if let replacement = replacement(for: word) {
            replaceCurrentWord(with: replacement)
        } else if autocorrects, let spelling, !spelling.isCorrect(word), !spelling.isCorrect(word.lowercased()),
                  let correction = Words.correction(for: word, suggestions: spelling.suggestions(for: word.lowercased())) {
            replaceCurrentWord(with: correction)
        }
    }

    private func replacement(for word: String) -> String? {
        let typed = word.lowercased()
        return replacements.first { $0.userInput.lowercased() == typed }?.documentText
    }

    private func replaceCurrentWord(with text: String) {
        let word = Words.currentWord(before: textDocumentProxy.documentContextBeforeInput)
        for _ in word { textDocumentProxy.deleteBackward() }
        textDocumentProxy.insertText(text)
    }

    /// Up to three: the user's text replacements for the word, then the
    /// dictionary's nearest words, in the case the word was typed in.
    private func suggestions(for word: String) -> [String] {
        guard !word.isEmpty else { return [] }
        let typed = word.lowercased()
        var found = replacements.filter { $0.userInput.lowercased().hasPrefix(typed) }.map(\.documentText)
        if let spelling {
            let casing = Words.Casing(of: word)
            found += spelling.suggestions(for: typed).map { casing.apply(to: $0) }
        }
        var seen: Set<String> = [], shown: [String] = []
        // A one-letter suggestion would share its name with a letter key.
        for s in found where s.count > 1 && s != word && !["123", "ABC"].contains(s) && seen.insert(s).inserted {
            shown.append(s)
            if shown.count == EnglishLayout.suggestionSlots { break }
        }
        return shown
    }

    // MARK: Showing it

    /// After every edit: auto-capitalization (unless caps lock) and the suggestions.
    func textChanged() {
        let before = textDocumentProxy.documentContextBeforeInput
        if layout.shift != .locked {
            layout.shift = Words.shouldCapitalize(before: before, textDocumentProxy.autocapitalizationType) ? .once : .off
        }
        layout.suggestions = suggestions(for: Words.currentWord(before: before))
        render()
    }

    private func render() {
        layout.showsGlobe = needsInputModeSwitchKey
        keyboardLayout = KeyboardLayout(rows: layout.rows)
    }
}
