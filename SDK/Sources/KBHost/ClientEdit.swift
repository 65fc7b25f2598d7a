public import KBText

/// What an application that holds the text itself must be told so that its
/// field matches the keyboard's document after one edit: the committed text
/// is the app's, the marked text is shown as a preedit (an input-method
/// framework's composition). Input-method front ends (the IBus engine) replay
/// these; the rules live here, once, and are tested without a framework.
public enum ClientEdit: Hashable, Sendable {
    /// Text inserted at the cursor as committed text (it replaces the app's selection, if any).
    case commit(String)
    /// The preedit to show, with the cursor at a character (code point) offset
    /// in it and the `selected` characters from the cursor on (the segment being
    /// converted) set apart; the empty string hides it.
    case preedit(String, cursor: Int, selected: Int = 0)
    /// Delete this many characters (code points) before the cursor.
    case deleteBackward(characters: Int)
    /// Delete the app's selection (a Backspace in the app).
    case deleteSelection
    /// Move the cursor by this many user-perceived characters (negative: left).
    case moveCursor(characters: Int)

    /// The operations for one edit, given the document before and after it.
    public static func operations(for edit: TextEdit, before: TextBuffer, after: TextBuffer) -> [ClientEdit] {
        let hadPreedit = before.markedRange != nil
        let clear: [ClientEdit] = hadPreedit ? [.preedit("", cursor: 0)] : []
        switch edit {
        case .insertText(let text):
            return clear + (text.isEmpty ? [] : [.commit(text)])
        case .setMarkedText:
            return [preedit(of: after)]
        case .unmarkText:
            guard let marked = before.markedText else { return [] }
            return clear + (marked.isEmpty ? [] : [.commit(String(marked))])
        case .deleteBackward:
            if hadPreedit { return [preedit(of: after)] }
            if !before.selection.isEmpty { return [.deleteSelection] }
            let removed = before.textBeforeSelection.unicodeScalars.count - after.textBeforeSelection.unicodeScalars.count
            return removed > 0 ? [.deleteBackward(characters: removed)] : []
        case .adjustTextPosition:
            // Marked text is committed first (TextBuffer.adjustTextPosition), then the cursor moves.
            var committed = before
            committed.unmarkText()
            let commit: [ClientEdit] = before.markedText.map { $0.isEmpty ? [] : [.commit(String($0))] } ?? []
            let from = committed.selection.isEmpty ? committed.selection.location
                : (after.selection.location < committed.selection.location ? committed.selection.location : committed.selection.end)
            let to = after.selection.location
            let moved = to >= from ? characters(in: after, from: from, to: to) : -characters(in: after, from: to, to: from)
            return clear + commit + (moved != 0 ? [.moveCursor(characters: moved)] : [])
        }
    }

    /// One action's operations as few as give the app the same text: text committed and then
    /// deleted is not sent (a keyboard that inserts a letter and deletes it 32,000 times in one
    /// call sent an app 64,000 messages through IBus, 7 to 15 s of them), consecutive commits
    /// are one, and a preedit replaced before anything else happens is not shown. A return
    /// ("\n", sent as the Return key), deletions of the app's text, and cursor moves (the app
    /// stops them at its edges) are kept as they are.
    public static func coalesced(_ operations: [ClientEdit]) -> [ClientEdit] {
        var out: [ClientEdit] = []
        out.reserveCapacity(operations.count)
        for operation in operations {
            switch (out.last, operation) {
            case (.commit(let a)?, .commit(let b)) where a != "\n" && b != "\n":
                out[out.count - 1] = .commit(a + b)
            case (.commit(let a)?, .deleteBackward(let n)) where a != "\n":
                // The deletion takes the end of the text just committed, then what was there before it.
                let scalars = a.unicodeScalars
                let taken = min(n, scalars.count)
                let kept = String(String.UnicodeScalarView(scalars.dropLast(taken)))
                if kept.isEmpty { out.removeLast() } else { out[out.count - 1] = .commit(kept) }
                if n > taken { out.append(.deleteBackward(characters: n - taken)) }
            case (.preedit?, .preedit):
                out[out.count - 1] = operation
            default:
                out.append(operation)
            }
        }
        return out
    }

    /// The preedit a buffer shows: its marked text, the cursor at the start of the selection inside it.
    static func preedit(of buffer: TextBuffer) -> ClientEdit {
        guard let marked = buffer.markedText, let range = buffer.markedRange, !marked.isEmpty else {
            return .preedit("", cursor: 0)
        }
        let start = max(0, min(buffer.selection.location - range.location, range.length))
        let end = max(start, min(buffer.selection.end - range.location, range.length))
        let scalars = { (units: Int) in String(decoding: Array(marked.utf16.prefix(units)), as: UTF16.self).unicodeScalars.count }
        return .preedit(String(marked), cursor: scalars(start), selected: scalars(end) - scalars(start))
    }

    /// User-perceived characters between two UTF-16 offsets of a buffer's text.
    static func characters(in buffer: TextBuffer, from: Int, to: Int) -> Int {
        let utf16 = buffer.text.utf16
        let start = utf16.index(utf16.startIndex, offsetBy: min(from, utf16.count))
        let end = utf16.index(utf16.startIndex, offsetBy: min(to, utf16.count))
        return buffer.text[start..<end].count
    }
}
