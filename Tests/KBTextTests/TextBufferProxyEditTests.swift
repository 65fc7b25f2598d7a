import KBText
import Testing

/// The edits a keyboard makes through UITextDocumentProxy: insertText,
/// deleteBackward and adjustTextPosition, with offsets in UTF-16 code units.
@Suite("TextBuffer: proxy edits")
struct TextBufferProxyEditTests {

    // MARK: Construction and reads

    @Test("A new buffer puts the insertion point at the end of its text")
    func newBufferCursorAtEnd() {
        let b = TextBuffer(text: "hello")
        #expect(b.selection == UTF16Range(location: 5, length: 0))
        #expect(b.markedRange == nil)
        #expect(TextBuffer().selection == UTF16Range(location: 0, length: 0))
        #expect(TextBuffer().text.isEmpty)
    }

    @Test("utf16Count counts UTF-16 code units, not characters")
    func utf16CountCountsCodeUnits() {
        #expect(TextBuffer(text: Sample.thumbsUpMedium).utf16Count == 4)
        #expect(TextBuffer(text: Sample.flagJapan).utf16Count == 4)
        #expect(TextBuffer(text: Sample.family).utf16Count == 8)
        #expect(TextBuffer(text: Sample.eAcute).utf16Count == 2)
        #expect(TextBuffer(text: Sample.nihon).utf16Count == 2)
    }

    @Test("An initial selection out of range is clamped and snapped to cluster boundaries")
    func initClampsAndSnapsSelection() {
        let clamped = TextBuffer(text: "abc", selection: UTF16Range(location: 10, length: 3))
        #expect(clamped.selection == UTF16Range(location: 3, length: 0))
        let negative = TextBuffer(text: "abc", selection: UTF16Range(location: -4, length: 1))
        #expect(negative.selection == UTF16Range(location: 0, length: 0))
        // Offset 2 is inside 👍🏽 (after its first scalar): the selection widens to the whole emoji.
        let inside = TextBuffer(text: "a" + Sample.thumbsUpMedium + "b", selection: UTF16Range(location: 2, length: 1))
        #expect(inside.selection == UTF16Range(location: 1, length: 4))
        expectInvariants(inside)
    }

    @Test("An initial marked range that does not contain the selection is dropped")
    func initDropsMarkedRangeNotContainingSelection() {
        let b = TextBuffer(text: "abcdef", selection: UTF16Range(location: 1, length: 0),
                           markedRange: UTF16Range(location: 3, length: 2))
        #expect(b.markedRange == nil)
        let kept = TextBuffer(text: "abcdef", selection: UTF16Range(location: 4, length: 0),
                              markedRange: UTF16Range(location: 3, length: 2))
        #expect(kept.markedRange == UTF16Range(location: 3, length: 2))
        let empty = TextBuffer(text: "abc", selection: UTF16Range(location: 1, length: 0),
                               markedRange: UTF16Range(location: 1, length: 0))
        #expect(empty.markedRange == nil)
    }

    @Test("Text before, after and in the selection")
    func readsAroundSelection() {
        let b = TextBuffer(text: "hello world", selection: UTF16Range(location: 3, length: 4))
        #expect(b.textBeforeSelection == "hel")
        #expect(b.selectedText == "lo w")
        #expect(b.textAfterSelection == "orld")
        #expect(b.markedText == nil)
        #expect(b.markedSelectedRange == nil)
        #expect(b.committedText == "hello world")
    }

    @Test("UTF16Range end, isEmpty and description")
    func utf16RangeBasics() {
        let r = UTF16Range(location: 3, length: 4)
        #expect(r.end == 7)
        #expect(!r.isEmpty)
        #expect(UTF16Range(location: 9, length: 0).isEmpty)
        #expect(r.description == "{3, 4}")
    }

    // MARK: insertText

    @Test("After inserting 👍🏽 the selection location is 4 (UTF-16 units)")
    func insertEmojiMovesSelectionByFourUTF16Units() {
        var b = TextBuffer()
        b.insertText(Sample.thumbsUpMedium)
        #expect(b.selection == UTF16Range(location: 4, length: 0))
        #expect(b.text == Sample.thumbsUpMedium)
    }

    @Test("After inserting 日本 the selection location is 2 (UTF-16 units)")
    func insertCJKMovesSelectionByTwoUTF16Units() {
        var b = TextBuffer()
        b.insertText(Sample.nihon)
        #expect(b.selection.location == 2)
    }

    @Test("After inserting the ZWJ family emoji the selection location is 8 (UTF-16 units)")
    func insertZWJFamilyMovesSelectionByEightUTF16Units() {
        var b = buffer("ab", cursorAt: 1)
        b.insertText(Sample.family)
        #expect(b.text == "a" + Sample.family + "b")
        #expect(b.selection == UTF16Range(location: 9, length: 0))
    }

    @Test("insertText in the middle inserts at the insertion point")
    func insertInMiddle() {
        var b = buffer("held", cursorAt: 2)
        b.insertText("llo wor")
        #expect(b.text == "hello world")
        #expect(b.selection == UTF16Range(location: 9, length: 0))
    }

    @Test("insertText replaces a non-empty selection")
    func insertReplacesSelection() {
        var b = TextBuffer(text: "hello world", selection: UTF16Range(location: 6, length: 5))
        b.insertText("there")
        #expect(b.text == "hello there")
        #expect(b.selection == UTF16Range(location: 11, length: 0))
    }

    @Test("insertText of an empty string deletes the selection")
    func insertEmptyDeletesSelection() {
        var b = TextBuffer(text: "abc", selection: UTF16Range(location: 1, length: 1))
        b.insertText("")
        #expect(b.text == "ac")
        #expect(b.selection == UTF16Range(location: 1, length: 0))
    }

    @Test("A combining accent inserted after e joins it: selection lands after the cluster")
    func insertCombiningAccentJoinsPreviousLetter() {
        var b = TextBuffer(text: "e")
        b.insertText("\u{301}")
        #expect(b.text == Sample.eAcute)
        #expect(b.text.count == 1)
        #expect(b.selection == UTF16Range(location: 2, length: 0))
        expectInvariants(b)
    }

    @Test("Typing a letter before a lone combining accent leaves a caret, not a selection")
    func insertBeforeLoneCombiningMarkLeavesCaret() {
        // A combining accent right after a newline is a cluster of its own; an "e" typed before it joins it.
        var b = TextBuffer(text: "\n\u{301}", selection: UTF16Range(location: 1, length: 0))
        b.insertText("e")
        #expect(b.text == "\n" + Sample.eAcute)
        #expect(b.selection == UTF16Range(location: 3, length: 0))   // actually {1, 2}: "é" is selected
        b.insertText("x")
        #expect(b.text == "\n" + Sample.eAcute + "x")              // actually "\nx": the next key replaced "é"
    }

    // MARK: deleteBackward

    @Test("deleteBackward deletes 👍🏽 whole (4 UTF-16 units), not just the skin tone")
    func deleteBackwardRemovesWholeSkinToneEmoji() {
        var b = TextBuffer(text: "a" + Sample.thumbsUpMedium)
        b.deleteBackward()
        #expect(b.text == "a")
        #expect(b.selection == UTF16Range(location: 1, length: 0))
    }

    @Test("deleteBackward deletes a flag 🇯🇵 whole, not one regional indicator")
    func deleteBackwardRemovesWholeFlag() {
        var b = TextBuffer(text: "x" + Sample.flagJapan + Sample.flagJapan)
        b.deleteBackward()
        #expect(b.text == "x" + Sample.flagJapan)
        #expect(b.selection.location == 5)
        b.deleteBackward()
        #expect(b.text == "x")
    }

    @Test("deleteBackward deletes a ZWJ family 👨‍👩‍👧 whole (8 UTF-16 units)")
    func deleteBackwardRemovesWholeZWJSequence() {
        var b = TextBuffer(text: Sample.family + "z", selection: UTF16Range(location: 8, length: 0))
        b.deleteBackward()
        #expect(b.text == "z")
        #expect(b.selection == UTF16Range(location: 0, length: 0))
    }

    @Test("deleteBackward deletes e plus its combining accent together")
    func deleteBackwardRemovesBaseLetterWithCombiningMark() {
        var b = TextBuffer(text: "caf" + Sample.eAcute)
        b.deleteBackward()
        #expect(b.text == "caf")
        #expect(b.selection.location == 3)
    }

    @Test("deleteBackward deletes one CJK character (1 UTF-16 unit) at a time")
    func deleteBackwardRemovesOneCJKCharacter() {
        var b = TextBuffer(text: Sample.nihon)
        b.deleteBackward()
        #expect(b.text == "日")
        #expect(b.selection.location == 1)
    }

    @Test("deleteBackward deletes conjoining Hangul jamo as one syllable")
    func deleteBackwardRemovesHangulSyllableCluster() {
        var b = TextBuffer(text: "a" + Sample.hangulJamo)
        b.deleteBackward()
        #expect(b.text == "a")
    }

    @Test("deleteBackward deletes only the selection when one exists")
    func deleteBackwardDeletesSelection() {
        var b = TextBuffer(text: "a" + Sample.thumbsUpMedium + "bc", selection: UTF16Range(location: 1, length: 5))
        b.deleteBackward()
        #expect(b.text == "ac")
        #expect(b.selection == UTF16Range(location: 1, length: 0))
    }

    @Test("deleteBackward at the start of the text does nothing")
    func deleteBackwardAtStartDoesNothing() {
        var b = buffer("abc", cursorAt: 0)
        let before = b
        b.deleteBackward()
        #expect(b == before)
        var empty = TextBuffer()
        empty.deleteBackward()
        #expect(empty == TextBuffer())
    }

    @Test("deleteBackward repeatedly empties mixed text without splitting any cluster")
    func deleteBackwardRepeatedlyEmptiesMixedText() {
        let text = "a" + Sample.family + Sample.eAcute + Sample.nihon + Sample.flagJapan + Sample.thumbsUpMedium
        var b = TextBuffer(text: text)
        var remaining = Array(text)
        while !remaining.isEmpty {
            b.deleteBackward()
            remaining.removeLast()
            #expect(b.text == String(remaining))
            expectInvariants(b)
        }
        #expect(b.text.isEmpty)
    }

    // MARK: adjustTextPosition

    @Test("adjustTextPosition moves by UTF-16 units over ASCII")
    func adjustMovesByCodeUnits() {
        var b = buffer("abcdef", cursorAt: 3)
        b.adjustTextPosition(byCharacterOffset: -2)
        #expect(b.selection == UTF16Range(location: 1, length: 0))
        b.adjustTextPosition(byCharacterOffset: 4)
        #expect(b.selection == UTF16Range(location: 5, length: 0))
    }

    @Test("adjustTextPosition -1 after 👍🏽 lands before the whole emoji (offset 1, not 3)")
    func adjustBackOneUnitFromAfterEmojiLandsBeforeIt() {
        var b = TextBuffer(text: "a" + Sample.thumbsUpMedium + "b", selection: UTF16Range(location: 5, length: 0))
        b.adjustTextPosition(byCharacterOffset: -1)
        #expect(b.selection == UTF16Range(location: 1, length: 0))
    }

    @Test("adjustTextPosition +1 before 👍🏽 lands after the whole emoji (offset 5, not 2)")
    func adjustForwardOneUnitFromBeforeEmojiLandsAfterIt() {
        var b = TextBuffer(text: "a" + Sample.thumbsUpMedium + "b", selection: UTF16Range(location: 1, length: 0))
        b.adjustTextPosition(byCharacterOffset: 1)
        #expect(b.selection == UTF16Range(location: 5, length: 0))
    }

    @Test("adjustTextPosition by -4 over 👍🏽 moves exactly over it (4 UTF-16 units)")
    func adjustByEmojiLengthMovesOverIt() {
        var b = TextBuffer(text: "a" + Sample.thumbsUpMedium)
        b.adjustTextPosition(byCharacterOffset: -4)
        #expect(b.selection.location == 1)
        b.adjustTextPosition(byCharacterOffset: 4)
        #expect(b.selection.location == 5)
    }

    @Test("adjustTextPosition by ±1 never lands inside a flag, a ZWJ sequence or e + accent",
          arguments: [Sample.flagJapan, Sample.family, Sample.eAcute])
    func adjustNeverLandsInsideCluster(cluster: String) {
        let text = "<" + cluster + ">"
        let n = cluster.utf16.count
        var back = TextBuffer(text: text, selection: UTF16Range(location: 1 + n, length: 0))
        back.adjustTextPosition(byCharacterOffset: -1)
        #expect(back.selection.location == 1)
        var forward = TextBuffer(text: text, selection: UTF16Range(location: 1, length: 0))
        forward.adjustTextPosition(byCharacterOffset: 1)
        #expect(forward.selection.location == 1 + n)
        for offset in -(n + 2)...(n + 2) {
            for start in clusterBoundaries(of: text) {
                var b = TextBuffer(text: text, selection: UTF16Range(location: start, length: 0))
                b.adjustTextPosition(byCharacterOffset: offset)
                expectInvariants(b)
            }
        }
    }

    @Test("adjustTextPosition moves 日本 one UTF-16 unit per character")
    func adjustOverCJK() {
        var b = TextBuffer(text: Sample.nihon)
        b.adjustTextPosition(byCharacterOffset: -1)
        #expect(b.selection.location == 1)
        #expect(b.textBeforeSelection == "日")
    }

    @Test("adjustTextPosition clamps to the start and the end of the text")
    func adjustClampsToEnds() {
        var b = buffer("abc", cursorAt: 1)
        b.adjustTextPosition(byCharacterOffset: -100)
        #expect(b.selection == UTF16Range(location: 0, length: 0))
        b.adjustTextPosition(byCharacterOffset: 100)
        #expect(b.selection == UTF16Range(location: 3, length: 0))
        b.adjustTextPosition(byCharacterOffset: Int(Int32.max))
        #expect(b.selection == UTF16Range(location: 3, length: 0))
        b.adjustTextPosition(byCharacterOffset: -Int(Int32.max))
        #expect(b.selection == UTF16Range(location: 0, length: 0))
    }

    @Test("adjustTextPosition moves back from the selection's start and forward from its end")
    func adjustCollapsesSelectionFromTheRightSide() {
        var back = TextBuffer(text: "abcdefgh", selection: UTF16Range(location: 3, length: 3))
        back.adjustTextPosition(byCharacterOffset: -1)
        #expect(back.selection == UTF16Range(location: 2, length: 0))
        var forward = TextBuffer(text: "abcdefgh", selection: UTF16Range(location: 3, length: 3))
        forward.adjustTextPosition(byCharacterOffset: 1)
        #expect(forward.selection == UTF16Range(location: 7, length: 0))
    }

    @Test("adjustTextPosition commits marked text and keeps it in the document")
    func adjustCommitsMarkedText() {
        var b = TextBuffer(text: "ab")
        b.setMarkedText("かな", selectedRange: UTF16Range(location: 2, length: 0))
        #expect(b.markedRange != nil)
        b.adjustTextPosition(byCharacterOffset: -1)
        #expect(b.markedRange == nil)
        #expect(b.text == "abかな")
        #expect(b.committedText == "abかな")
        #expect(b.selection == UTF16Range(location: 3, length: 0))
    }
}
