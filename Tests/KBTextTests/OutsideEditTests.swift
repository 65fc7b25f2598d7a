import KBText
import Testing

/// Edits from outside the keyboard (the app, the user, the host): replace,
/// select and moveInsertionPoint(byCharacters:), and the public cluster
/// boundary helpers they rely on.
@Suite("TextBuffer: edits from outside and cluster boundaries")
struct OutsideEditTests {
    /// "a👍🏽b": 'a' at 0, the emoji at 1..<5, 'b' at 5..<6.
    let emojiText = "a" + Sample.thumbsUpMedium + "b"

    // MARK: Boundaries

    @Test("boundary(atOrBefore:) and boundary(atOrAfter:) snap offsets inside 👍🏽 to its ends")
    func atOrBeforeAndAtOrAfterSnapToEmojiEnds() {
        let b = TextBuffer(text: emojiText)
        #expect((0...6).map { b.boundary(atOrBefore: $0) } == [0, 1, 1, 1, 1, 5, 6])
        #expect((0...6).map { b.boundary(atOrAfter: $0) } == [0, 1, 5, 5, 5, 5, 6])
    }

    @Test("boundary(before:) and boundary(after:) step over whole clusters")
    func beforeAndAfterStepOverClusters() {
        let b = TextBuffer(text: emojiText)
        #expect((0...6).map { b.boundary(before: $0) } == [0, 0, 1, 1, 1, 1, 5])
        #expect((0...6).map { b.boundary(after: $0) } == [1, 5, 5, 5, 5, 6, 6])
    }

    @Test("Boundaries fall exactly between the clusters of flags, ZWJ sequences, accents and CJK")
    func boundariesMatchCharacters() {
        let text = Sample.flagJapan + Sample.family + Sample.eAcute + Sample.nihon + Sample.hangulJamo + "!"
        let b = TextBuffer(text: text)
        let expected = clusterBoundaries(of: text)
        for offset in 0...b.utf16Count {
            let down = b.boundary(atOrBefore: offset), up = b.boundary(atOrAfter: offset)
            #expect(expected.contains(down) && expected.contains(up))
            #expect(down <= offset && offset <= up)
            #expect(expected.contains(offset) ? (down == offset && up == offset) : (down < offset && offset < up))
        }
    }

    // MARK: replace

    @Test("replace puts the insertion point after the new text, in UTF-16 units")
    func replacePutsCaretAfterNewText() {
        var b = TextBuffer(text: "hello world")
        b.replace(UTF16Range(location: 0, length: 5), with: Sample.flagJapan)
        #expect(b.text == Sample.flagJapan + " world")
        #expect(b.selection == UTF16Range(location: 4, length: 0))
    }

    @Test("replace snaps a range that cuts into 👍🏽 outward to the whole emoji")
    func replaceSnapsOutwardToClusters() {
        var b = TextBuffer(text: emojiText)
        b.replace(UTF16Range(location: 2, length: 1), with: "X")
        #expect(b.text == "aXb")
        #expect(b.selection == UTF16Range(location: 2, length: 0))
        var tail = TextBuffer(text: emojiText)
        tail.replace(UTF16Range(location: 4, length: 2), with: "")
        #expect(tail.text == "a")
    }

    @Test("replace clamps ranges that reach outside the text")
    func replaceClampsRange() {
        var b = TextBuffer(text: "abc")
        b.replace(UTF16Range(location: -5, length: 6), with: "X")
        #expect(b.text == "Xbc")
        b.replace(UTF16Range(location: 2, length: 100), with: "Y")
        #expect(b.text == "XbY")
        b.replace(UTF16Range(location: 50, length: 0), with: "Z")
        #expect(b.text == "XbYZ")
        #expect(b.selection == UTF16Range(location: 4, length: 0))
    }

    @Test("replace before the marked text keeps the marked text but, moving the caret out of it, unmarks it")
    func replaceBeforeMarkedTextUnmarks() {
        var b = TextBuffer(text: "ab")
        b.setMarkedText("かな", selectedRange: UTF16Range(location: 2, length: 0))
        b.replace(UTF16Range(location: 0, length: 1), with: "XYZ")
        #expect(b.text == "XYZbかな")
        #expect(b.selection == UTF16Range(location: 3, length: 0))
        #expect(b.markedRange == nil)
        expectInvariants(b)
    }

    @Test("replace that touches the marked text unmarks it (as its documentation says)")
    func replaceTouchingMarkedTextUnmarks() {
        // Overlapping the start of the marked text "cd".
        var overlap = TextBuffer(text: "abcdef", selection: UTF16Range(location: 3, length: 0),
                                 markedRange: UTF16Range(location: 2, length: 2))
        overlap.replace(UTF16Range(location: 1, length: 2), with: "X")
        #expect(overlap.text == "aXdef")
        #expect(overlap.markedRange == nil)   // actually {1, 2}: "Xd" is marked
        // Inside the marked text "かな".
        var inside = TextBuffer(text: "ab")
        inside.setMarkedText("かな", selectedRange: UTF16Range(location: 2, length: 0))
        inside.replace(UTF16Range(location: 3, length: 0), with: "X")
        #expect(inside.text == "abかXな")
        #expect(inside.markedRange == nil)    // actually {2, 3}: the app's "X" became provisional
    }

    // MARK: select

    @Test("select snaps a range inside 👍🏽 outward to the whole emoji")
    func selectSnapsOutward() {
        var b = TextBuffer(text: emojiText)
        b.select(UTF16Range(location: 3, length: 1))
        #expect(b.selection == UTF16Range(location: 1, length: 4))
        #expect(b.selectedText == Substring(Sample.thumbsUpMedium))
        b.select(UTF16Range(location: 0, length: 2))
        #expect(b.selection == UTF16Range(location: 0, length: 5))
    }

    @Test("select clamps to the text")
    func selectClamps() {
        var b = TextBuffer(text: "abc")
        b.select(UTF16Range(location: -3, length: 100))
        #expect(b.selection == UTF16Range(location: 0, length: 3))
        b.select(UTF16Range(location: 10, length: 1))
        #expect(b.selection == UTF16Range(location: 3, length: 0))
    }

    @Test("select inside the marked text keeps it marked; select outside unmarks it")
    func selectAndMarkedText() {
        var b = TextBuffer(text: "ab")
        b.setMarkedText("かなx", selectedRange: UTF16Range(location: 3, length: 0))
        b.select(UTF16Range(location: 2, length: 2))
        #expect(b.markedRange == UTF16Range(location: 2, length: 3))
        #expect(b.markedSelectedRange == UTF16Range(location: 0, length: 2))
        b.select(UTF16Range(location: 1, length: 0))
        #expect(b.markedRange == nil)
        #expect(b.text == "abかなx")
    }

    // MARK: moveInsertionPoint

    @Test("moveInsertionPoint(byCharacters:) moves by whole grapheme clusters")
    func moveByCharactersStepsOverClusters() {
        var b = buffer("a" + Sample.thumbsUpMedium + Sample.flagJapan + Sample.family + "b", cursorAt: 0)
        b.moveInsertionPoint(byCharacters: 2)
        #expect(b.selection.location == 5)
        b.moveInsertionPoint(byCharacters: 1)
        #expect(b.selection.location == 9)
        b.moveInsertionPoint(byCharacters: 1)
        #expect(b.selection.location == 17)
        b.moveInsertionPoint(byCharacters: -3)
        #expect(b.selection.location == 1)
    }

    @Test("moveInsertionPoint(byCharacters:) stops at both ends")
    func moveByCharactersClamps() {
        var b = buffer(Sample.eAcute + "x", cursorAt: 2)
        b.moveInsertionPoint(byCharacters: -10)
        #expect(b.selection == UTF16Range(location: 0, length: 0))
        b.moveInsertionPoint(byCharacters: 10)
        #expect(b.selection == UTF16Range(location: 3, length: 0))
    }

    @Test("moveInsertionPoint collapses a selection from the side it moves toward")
    func moveByCharactersCollapsesSelection() {
        var left = TextBuffer(text: "abcdef", selection: UTF16Range(location: 2, length: 2))
        left.moveInsertionPoint(byCharacters: -1)
        #expect(left.selection == UTF16Range(location: 1, length: 0))
        var right = TextBuffer(text: "abcdef", selection: UTF16Range(location: 2, length: 2))
        right.moveInsertionPoint(byCharacters: 1)
        #expect(right.selection == UTF16Range(location: 5, length: 0))
        var zero = TextBuffer(text: "abcdef", selection: UTF16Range(location: 2, length: 2))
        zero.moveInsertionPoint(byCharacters: 0)
        #expect(zero.selection == UTF16Range(location: 4, length: 0))
    }

    @Test("moveInsertionPoint commits marked text")
    func moveByCharactersCommitsMarkedText() {
        var b = TextBuffer(text: "ab")
        b.setMarkedText("かな", selectedRange: UTF16Range(location: 2, length: 0))
        b.moveInsertionPoint(byCharacters: -1)
        #expect(b.markedRange == nil)
        #expect(b.text == "abかな")
        #expect(b.selection.location == 3)
    }
}
