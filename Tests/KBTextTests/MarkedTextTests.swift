import KBText
import Testing

/// Marked (provisional, IME) text: setMarkedText, unmarkText, and how
/// insertText and deleteBackward treat it.
@Suite("TextBuffer: marked text")
struct MarkedTextTests {

    /// "ab" followed by the marked text "かな", caret at the end of the marked text.
    func composing() -> TextBuffer {
        var b = TextBuffer(text: "ab")
        b.setMarkedText("かな", selectedRange: UTF16Range(location: 2, length: 0))
        return b
    }

    @Test("setMarkedText marks the new text at the insertion point, in UTF-16 units")
    func setMarkedTextMarksAtInsertionPoint() {
        let b = composing()
        #expect(b.text == "abかな")
        #expect(b.markedRange == UTF16Range(location: 2, length: 2))
        #expect(b.markedText == "かな")
        #expect(b.selection == UTF16Range(location: 4, length: 0))
        expectInvariants(b)
    }

    @Test("selectedRange is relative to the marked text and markedSelectedRange reports it back")
    func selectedRangeIsRelativeToMarkedText() {
        var b = buffer("xyz", cursorAt: 1)
        b.setMarkedText("abcd", selectedRange: UTF16Range(location: 1, length: 2))
        #expect(b.text == "xabcdyz")
        #expect(b.markedRange == UTF16Range(location: 1, length: 4))
        #expect(b.selection == UTF16Range(location: 2, length: 2))
        #expect(b.selectedText == "bc")
        #expect(b.markedSelectedRange == UTF16Range(location: 1, length: 2))
        expectInvariants(b)
    }

    @Test("setMarkedText clamps a selectedRange that reaches outside the marked text")
    func selectedRangeIsClamped() {
        var far = TextBuffer(text: "ab")
        far.setMarkedText("cd", selectedRange: UTF16Range(location: 99, length: 5))
        #expect(far.selection == UTF16Range(location: 4, length: 0))
        #expect(far.markedSelectedRange == UTF16Range(location: 2, length: 0))
        var long = TextBuffer(text: "ab")
        long.setMarkedText("cd", selectedRange: UTF16Range(location: 1, length: 99))
        #expect(long.selection == UTF16Range(location: 3, length: 1))
        var negative = TextBuffer(text: "ab")
        negative.setMarkedText("cd", selectedRange: UTF16Range(location: -3, length: -1))
        #expect(negative.selection == UTF16Range(location: 2, length: 0))
        expectInvariants(far); expectInvariants(long); expectInvariants(negative)
    }

    @Test("A caret inside a marked emoji moves to the emoji's end")
    func selectedRangeInsideEmojiSnapsToBoundaries() {
        var b = TextBuffer()
        b.setMarkedText("a" + Sample.thumbsUpMedium + "b", selectedRange: UTF16Range(location: 2, length: 0))
        #expect(b.markedRange == UTF16Range(location: 0, length: 6))
        // A caret at offset 2 (inside 👍🏽) moves to the end of the emoji; it never becomes a selection.
        #expect(b.selection == UTF16Range(location: 5, length: 0))
        expectInvariants(b)
    }

    @Test("A second setMarkedText replaces the marked text instead of appending")
    func setMarkedTextReplacesPreviousMarkedText() {
        var b = TextBuffer(text: "ab")
        b.setMarkedText("k", selectedRange: UTF16Range(location: 1, length: 0))
        b.setMarkedText("か", selectedRange: UTF16Range(location: 1, length: 0))
        b.setMarkedText("かn", selectedRange: UTF16Range(location: 2, length: 0))
        #expect(b.text == "abかn")
        #expect(b.markedRange == UTF16Range(location: 2, length: 2))
        #expect(b.selection == UTF16Range(location: 4, length: 0))
    }

    @Test("setMarkedText replaces a non-empty selection")
    func setMarkedTextReplacesSelection() {
        var b = TextBuffer(text: "hello", selection: UTF16Range(location: 1, length: 3))
        b.setMarkedText("X", selectedRange: UTF16Range(location: 1, length: 0))
        #expect(b.text == "hXo")
        #expect(b.markedRange == UTF16Range(location: 1, length: 1))
        #expect(b.selection == UTF16Range(location: 2, length: 0))
    }

    @Test("setMarkedText with an empty string removes the marked text and unmarks")
    func emptySetMarkedTextUnmarks() {
        var b = composing()
        b.setMarkedText("", selectedRange: UTF16Range(location: 0, length: 0))
        #expect(b.text == "ab")
        #expect(b.markedRange == nil)
        #expect(b.markedText == nil)
        #expect(b.selection == UTF16Range(location: 2, length: 0))
    }

    @Test("committedText excludes the marked text wherever it sits")
    func committedTextExcludesMarkedText() {
        #expect(composing().committedText == "ab")
        var middle = buffer("abc", cursorAt: 1)
        middle.setMarkedText("日本", selectedRange: UTF16Range(location: 2, length: 0))
        #expect(middle.text == "a日本bc")
        #expect(middle.committedText == "abc")
    }

    @Test("insertText replaces the marked text and unmarks it")
    func insertTextReplacesMarkedTextAndUnmarks() {
        var b = composing()
        b.insertText("仮名")
        #expect(b.text == "ab仮名")
        #expect(b.markedRange == nil)
        #expect(b.selection == UTF16Range(location: 4, length: 0))
        #expect(b.committedText == "ab仮名")
    }

    @Test("insertText replaces all the marked text even when the caret is inside it")
    func insertTextReplacesWholeMarkedTextWithCaretInside() {
        var b = buffer("ab", cursorAt: 1)
        b.setMarkedText("xyz", selectedRange: UTF16Range(location: 1, length: 0))
        b.insertText("Q")
        #expect(b.text == "aQb")
        #expect(b.markedRange == nil)
        #expect(b.selection == UTF16Range(location: 2, length: 0))
    }

    @Test("deleteBackward edits inside the marked text, which stays marked")
    func deleteBackwardShrinksMarkedText() {
        var b = composing()
        b.deleteBackward()
        #expect(b.text == "abか")
        #expect(b.markedRange == UTF16Range(location: 2, length: 1))
        #expect(b.selection == UTF16Range(location: 3, length: 0))
        expectInvariants(b)
    }

    @Test("deleteBackward that empties the marked text unmarks, and the next one deletes committed text")
    func deleteBackwardEmptyingMarkedTextUnmarks() {
        var b = composing()
        b.deleteBackward(); b.deleteBackward()
        #expect(b.text == "ab")
        #expect(b.markedRange == nil)
        b.deleteBackward()
        #expect(b.text == "a")
    }

    @Test("deleteBackward at the start of the marked text does not delete committed text")
    func deleteBackwardAtMarkedStartDoesNothing() {
        var b = TextBuffer(text: "ab")
        b.setMarkedText("かな", selectedRange: UTF16Range(location: 0, length: 0))
        let before = b
        b.deleteBackward()
        #expect(b == before)
        #expect(b.text == "abかな")
    }

    @Test("deleteBackward deletes a marked emoji whole and keeps the rest marked")
    func deleteBackwardRemovesWholeMarkedEmoji() {
        var b = TextBuffer(text: "ab")
        b.setMarkedText("x" + Sample.thumbsUpMedium, selectedRange: UTF16Range(location: 5, length: 0))
        b.deleteBackward()
        #expect(b.text == "abx")
        #expect(b.markedRange == UTF16Range(location: 2, length: 1))
        expectInvariants(b)
    }

    @Test("deleteBackward with a selection inside the marked text deletes just the selection")
    func deleteBackwardDeletesSelectionInsideMarkedText() {
        var b = TextBuffer()
        b.setMarkedText("abcd", selectedRange: UTF16Range(location: 1, length: 2))
        b.deleteBackward()
        #expect(b.text == "ad")
        #expect(b.markedRange == UTF16Range(location: 0, length: 2))
        #expect(b.selection == UTF16Range(location: 1, length: 0))
    }

    @Test("unmarkText keeps the text and puts the insertion point at the end of what was marked")
    func unmarkTextCommitsAndMovesCaretToEnd() {
        var b = buffer("ab", cursorAt: 1)
        b.setMarkedText("xyz", selectedRange: UTF16Range(location: 0, length: 1))
        b.unmarkText()
        #expect(b.text == "axyzb")
        #expect(b.markedRange == nil)
        #expect(b.selection == UTF16Range(location: 4, length: 0))
        #expect(b.committedText == "axyzb")
    }

    @Test("unmarkText without marked text leaves the buffer unchanged")
    func unmarkTextWithoutMarkedTextIsNoOp() {
        var b = TextBuffer(text: "abc", selection: UTF16Range(location: 1, length: 1))
        let before = b
        b.unmarkText()
        #expect(b == before)
    }

    @Test("commitMarkedText keeps the marked text as plain text")
    func commitMarkedTextKeepsText() {
        var b = composing()
        b.commitMarkedText()
        #expect(b.text == "abかな")
        #expect(b.committedText == "abかな")
        #expect(b.markedRange == nil)
        #expect(b.selection == UTF16Range(location: 4, length: 0))
        var viaUnmark = composing()
        viaUnmark.unmarkText()
        #expect(b == viaUnmark)
    }

    @Test("Marked text that joins the cluster before it (e + combining accent) keeps the invariants")
    func markedCombiningMarkJoiningCommittedLetterKeepsInvariants() {
        var accent = TextBuffer(text: "e")
        accent.setMarkedText("\u{301}", selectedRange: UTF16Range(location: 1, length: 0))
        #expect(accent.text == Sample.eAcute)
        expectInvariants(accent)            // marked range is {1, 1}: inside the cluster "é"
        // deleteBackward with marked text must leave committed text alone; here it also
        // deletes the committed "e" (committedText goes from "e" to "").
        let committed = accent.committedText
        accent.deleteBackward()
        #expect(accent.committedText == committed)
        var devanagari = TextBuffer(text: "क")
        devanagari.setMarkedText("ि", selectedRange: UTF16Range(location: 1, length: 0))
        #expect(devanagari.text == "कि")
        expectInvariants(devanagari)
    }

    @Test("Random IME-style edit sequences keep every invariant", arguments: [1, 2, 3, 4] as [UInt64])
    func randomEditSequencesKeepInvariants(seed: UInt64) {
        // Self-contained clusters only: none of these merges with its neighbours.
        let pieces = ["a", "Z", " ", "日", "本", "か", Sample.thumbsUpMedium, Sample.flagJapan,
                      Sample.family, Sample.eAcute, Sample.hangulJamo, ""]
        var rng = SplitMix64(seed: seed)
        var b = TextBuffer()
        for _ in 0..<400 {
            let piece = (0..<Int.random(in: 0...3, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            switch Int.random(in: 0..<8, using: &rng) {
            case 0: b.insertText(piece)
            case 1, 2: b.deleteBackward()
            case 3: b.adjustTextPosition(byCharacterOffset: Int.random(in: -6...6, using: &rng))
            case 4: b.setMarkedText(piece, selectedRange: UTF16Range(location: Int.random(in: -2...20, using: &rng),
                                                                      length: Int.random(in: 0...3, using: &rng)))
            case 5: b.unmarkText()
            case 6: b.select(UTF16Range(location: Int.random(in: -2...(b.utf16Count + 2), using: &rng),
                                        length: Int.random(in: 0...5, using: &rng)))
            default: b.moveInsertionPoint(byCharacters: Int.random(in: -3...3, using: &rng))
            }
            expectInvariants(b)
            if let marked = b.markedText {
                #expect(b.committedText.utf16.count == b.utf16Count - marked.utf16.count)
            }
        }
    }
}
