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

    /// An app with surrounding text, as far as one action goes: committed text at the cursor, a preedit.
    struct App: Equatable {
        var text: [Unicode.Scalar] = Array("kept ".unicodeScalars)
        var preedit = ""
        mutating func apply(_ operations: [ClientEdit]) {
            for operation in operations {
                switch operation {
                case .commit(let t): text += t.unicodeScalars
                case .deleteBackward(let n): text.removeLast(min(n, text.count))
                case .preedit(let p, _, _): preedit = p
                case .deleteSelection, .moveCursor: break
                }
            }
        }
    }

    @Test func anInsertionDeletedAtOnceSendsNothingAndTheRestKeepsItsResult() {
        var flood: [ClientEdit] = []
        for _ in 0..<32_000 { flood += [.commit("a"), .deleteBackward(characters: 1)] }
        #expect(ClientEdit.coalesced(flood) == [])
        #expect(ClientEdit.coalesced([.commit("ab"), .commit("c"), .deleteBackward(characters: 1)]) == [.commit("ab")])
        // A deletion past the text just committed reaches the app's own text.
        #expect(ClientEdit.coalesced([.commit("\u{301}"), .deleteBackward(characters: 2)]) == [.deleteBackward(characters: 1)])
        // Kept as they are: an autocorrection (a deletion, then text), a return, moves, a preedit's last state.
        let kept: [ClientEdit] = [.deleteBackward(characters: 3), .commit("the "), .commit("\n"), .commit("x"),
                                  .moveCursor(characters: -1), .moveCursor(characters: 1), .preedit("か", cursor: 1)]
        #expect(ClientEdit.coalesced(kept) == kept)
        #expect(ClientEdit.coalesced([.preedit("か", cursor: 1), .preedit("かな", cursor: 2)]) == [.preedit("かな", cursor: 2)])
    }

    @Test("Coalesced operations leave an app with the text and preedit the keyboard's edits leave it", arguments: [1, 2, 3] as [UInt64])
    func coalescedOperationsGiveTheSameResult(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let pieces = ["a", "é", "e\u{301}", "👍🏽", "か", "\u{301}", "\n", ""]
        for _ in 0..<200 {
            var buffer = TextBuffer(text: "kept ")
            var operations: [ClientEdit] = []
            for _ in 0..<Int(random.next() % 12) {
                let piece = pieces[Int(random.next() % UInt64(pieces.count))]
                let edit: TextEdit = switch random.next() % 4 {
                case 0, 1: .insertText(piece)
                case 2: .deleteBackward
                default: random.next() % 2 == 0 ? .setMarkedText(piece, selectedRange: UTF16Range(location: 0, length: 0)) : .unmarkText
                }
                let before = buffer
                edit.apply(to: &buffer)
                operations += ClientEdit.operations(for: edit, before: before, after: buffer)
            }
            var plain = App(), coalesced = App()
            plain.apply(operations)
            coalesced.apply(ClientEdit.coalesced(operations))
            #expect(plain == coalesced, "\(operations)")
        }
    }
}
