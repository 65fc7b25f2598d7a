import KBText
import Testing

@Suite("TextEdit")
struct TextEditTests {
    static let starts: [TextBuffer] = {
        var composing = TextBuffer(text: "ab")
        composing.setMarkedText("かな", selectedRange: UTF16Range(location: 1, length: 0))
        return [
            TextBuffer(),
            TextBuffer(text: "a" + Sample.thumbsUpMedium + "b", selection: UTF16Range(location: 5, length: 0)),
            TextBuffer(text: "hello world", selection: UTF16Range(location: 2, length: 3)),
            composing,
        ]
    }()

    static let edits: [TextEdit] = [
        .insertText("x"), .insertText(Sample.family), .insertText(""), .deleteBackward,
        .adjustTextPosition(-1), .adjustTextPosition(1), .adjustTextPosition(0), .adjustTextPosition(-50),
        .setMarkedText("にほ", selectedRange: UTF16Range(location: 1, length: 1)),
        .setMarkedText("", selectedRange: UTF16Range(location: 0, length: 0)),
        .unmarkText,
    ]

    @Test("apply does exactly what the matching buffer method does", arguments: edits)
    func applyMatchesDirectCall(edit: TextEdit) {
        for start in Self.starts {
            var viaApply = start
            edit.apply(to: &viaApply)
            var direct = start
            switch edit {
            case .insertText(let s): direct.insertText(s)
            case .deleteBackward: direct.deleteBackward()
            case .adjustTextPosition(let n): direct.adjustTextPosition(byCharacterOffset: n)
            case .setMarkedText(let s, let r): direct.setMarkedText(s, selectedRange: r)
            case .unmarkText: direct.unmarkText()
            }
            #expect(viaApply == direct)
        }
    }

    @Test("Replaying a recorded sequence of edits reproduces the document")
    func replayReproducesDocument() {
        let recorded: [TextEdit] = [
            .insertText("Hi "), .setMarkedText("に", selectedRange: UTF16Range(location: 1, length: 0)),
            .setMarkedText("日本", selectedRange: UTF16Range(location: 2, length: 0)), .unmarkText,
            .insertText(Sample.thumbsUpMedium), .deleteBackward, .adjustTextPosition(-2), .insertText("!"),
        ]
        var b = TextBuffer()
        for edit in recorded { edit.apply(to: &b) }
        #expect(b.text == "Hi !日本")
        #expect(b.selection == UTF16Range(location: 4, length: 0))
        #expect(b.markedRange == nil)
    }
}

@Suite("TextInputTraits")
struct TextInputTraitsTests {
    @Test("Raw values match kbhost_keyboard.h")
    func rawValuesMatchHeader() {
        typealias T = TextInputTraits
        #expect(T.KeyboardType.allCases.map(\.rawValue) == Array(0...11))
        #expect(T.KeyboardType.numberPad.rawValue == 4)
        #expect(T.KeyboardType.asciiCapableNumberPad.rawValue == 11)
        #expect(T.ReturnKeyType.allCases.map(\.rawValue) == Array(0...11))
        #expect(T.ReturnKeyType.done.rawValue == 9)
        #expect(T.ReturnKeyType.continue.rawValue == 11)
        #expect(T.Autocapitalization.allCases.map(\.rawValue) == [0, 1, 2, 3])
        #expect(T.Autocapitalization.sentences.rawValue == 2)
        #expect(T.Tristate.no.rawValue == 1 && T.Tristate.yes.rawValue == 2)
        #expect(T.Appearance.dark.rawValue == 1 && T.Appearance.light.rawValue == 2)
    }

    @Test("Defaults are those of a plain UITextField")
    func defaults() {
        let t = TextInputTraits()
        #expect(t.keyboardType == .default)
        #expect(t.returnKeyType == .default)
        #expect(t.autocapitalization == .sentences)
        #expect(t.autocorrection == .default && t.spellChecking == .default)
        #expect(t.appearance == .default)
        #expect(!t.isSecureTextEntry && !t.enablesReturnKeyAutomatically)
    }

    @Test("Only the default and numbers-and-punctuation keyboard types accept non-ASCII text")
    func requiresASCII() {
        let free = TextInputTraits.KeyboardType.allCases.filter { !$0.requiresASCII }
        #expect(free == [.default, .numbersAndPunctuation])
    }
}
