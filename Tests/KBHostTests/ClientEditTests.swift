import KBHost
import KBText
import Testing

/// What an app that holds the text (an IBus client) is told after each of a keyboard's edits.
@Suite("ClientEdit: a keyboard's edits as an app's commits, preedit and deletions")
struct ClientEditTests {
    func ops(_ edit: TextEdit, on start: TextBuffer) -> [ClientEdit] {
        var after = start
        edit.apply(to: &after)
        return ClientEdit.operations(for: edit, before: start, after: after)
    }

    func marked(_ text: String, _ mark: String) -> TextBuffer {
        var b = TextBuffer(text: text)
        b.setMarkedText(mark, selectedRange: UTF16Range(location: mark.utf16.count, length: 0))
        return b
    }

    @Test func insertCommitsAndReplacesThePreedit() {
        #expect(ops(.insertText("a"), on: TextBuffer(text: "x")) == [.commit("a")])
        #expect(ops(.insertText("日本"), on: marked("x", "にほ")) == [.preedit("", cursor: 0), .commit("日本")])
        #expect(ops(.insertText(""), on: TextBuffer(text: "x")) == [])
    }

    @Test func markedTextIsThePreeditWithItsCursorInCodePoints() {
        // 👍 is two UTF-16 units but one code point: the cursor after it is 1, after か 2.
        let edit = TextEdit.setMarkedText("👍か", selectedRange: UTF16Range(location: 3, length: 0))
        #expect(ops(edit, on: TextBuffer(text: "a")) == [.preedit("👍か", cursor: 2)])
        // A selected range (the segment being converted) is set apart, counted in code points.
        let segment = TextEdit.setMarkedText("日本語です", selectedRange: UTF16Range(location: 0, length: 3))
        #expect(ops(segment, on: TextBuffer(text: "")) == [.preedit("日本語です", cursor: 0, selected: 3)])
        #expect(ops(.setMarkedText("", selectedRange: UTF16Range(location: 0, length: 0)), on: marked("a", "か"))
            == [.preedit("", cursor: 0)])
    }

    @Test func unmarkCommitsThePreedit() {
        #expect(ops(.unmarkText, on: marked("a", "かな")) == [.preedit("", cursor: 0), .commit("かな")])
        #expect(ops(.unmarkText, on: TextBuffer(text: "a")) == [])
    }

    @Test func deleteBackwardCountsCodePointsOrEditsThePreedit() {
        #expect(ops(.deleteBackward, on: TextBuffer(text: "ab")) == [.deleteBackward(characters: 1)])
        // A flag is one grapheme of two code points: both go.
        #expect(ops(.deleteBackward, on: TextBuffer(text: "a🇯🇵")) == [.deleteBackward(characters: 2)])
        #expect(ops(.deleteBackward, on: TextBuffer(text: "")) == [])
        #expect(ops(.deleteBackward, on: marked("a", "かな")) == [.preedit("か", cursor: 1)])
        let selected = TextBuffer(text: "abc", selection: UTF16Range(location: 1, length: 2))
        #expect(ops(.deleteBackward, on: selected) == [.deleteSelection])
    }

    @Test func adjustingTheCursorCommitsThePreeditThenMovesByCharacters() {
        #expect(ops(.adjustTextPosition(-2), on: TextBuffer(text: "abc")) == [.moveCursor(characters: -2)])
        // Two UTF-16 units of an emoji are one user-perceived character.
        #expect(ops(.adjustTextPosition(-2), on: TextBuffer(text: "a👍")) == [.moveCursor(characters: -1)])
        #expect(ops(.adjustTextPosition(0), on: marked("a", "か")) == [.preedit("", cursor: 0), .commit("か")])
        #expect(ops(.adjustTextPosition(5), on: TextBuffer(text: "ab")) == [])
    }
}
