/// A range of UTF-16 code units, the unit of every offset in the proxy API
/// (UITextDocumentProxy counts in UTF-16, as NSString does).
public struct UTF16Range: Hashable, Sendable, CustomStringConvertible {
    public var location: Int
    public var length: Int

    public init(location: Int, length: Int) {
        self.location = location
        self.length = length
    }

    public var end: Int { location + length }
    public var isEmpty: Bool { length == 0 }
    public var description: String { "{\(location), \(length)}" }
}

/// Text with a selection and optional marked (provisional, IME) text: the
/// editing model behind the host's documents, the worker's context mirror and
/// the in-process testing kit. Every edit keeps these invariants:
///
/// - the selection and the marked range lie inside the text;
/// - both fall on grapheme-cluster boundaries: no edit ever splits an emoji,
///   a base letter from its combining marks, or a CJK character;
/// - the marked range, when present, contains the selection.
///
/// Offsets are UTF-16 code units. A move that would land inside a cluster
/// lands on the cluster's boundary in the direction of the move.
public struct TextBuffer: Hashable, Sendable {
    public private(set) var text: String
    public private(set) var selection: UTF16Range
    public private(set) var markedRange: UTF16Range?
    /// The text's length in UTF-16 code units, kept up to date by every edit.
    public private(set) var utf16Count: Int

    public init(text: String = "", selection: UTF16Range? = nil, markedRange: UTF16Range? = nil) {
        self.text = text
        let count = text.utf16.count
        self.utf16Count = count
        self.selection = selection ?? UTF16Range(location: count, length: 0)
        self.markedRange = markedRange
        normalize()
    }

    // MARK: Reads

    /// Text before the selection (or before the insertion point).
    public var textBeforeSelection: Substring { text[..<index(selection.location)] }
    /// Text after the selection.
    public var textAfterSelection: Substring { text[index(selection.end)...] }
    public var selectedText: Substring { text[index(selection.location)..<index(selection.end)] }
    public var markedText: Substring? {
        markedRange.map { text[index($0.location)..<index($0.end)] }
    }
    /// The selection relative to the marked text (setMarkedText's selectedRange).
    public var markedSelectedRange: UTF16Range? {
        markedRange.map { UTF16Range(location: selection.location - $0.location, length: selection.length) }
    }
    /// The text that is not marked: what a keyboard has committed.
    public var committedText: String {
        guard let marked = markedRange else { return text }
        return String(text[..<index(marked.location)]) + String(text[index(marked.end)...])
    }

    // MARK: Edits a keyboard makes through the proxy

    /// insertText: replaces the marked text (committing the insertion) or the selection.
    public mutating func insertText(_ string: String) {
        let target = markedRange ?? selection
        markedRange = nil
        edit(target, with: string)
    }

    /// deleteBackward: deletes the selection, or the grapheme cluster before the
    /// insertion point. With marked text, deletes inside the marked text only.
    public mutating func deleteBackward() {
        if !selection.isEmpty {
            edit(selection, with: "")
        } else {
            let lowerLimit = markedRange?.location ?? 0
            guard selection.location > lowerLimit else { return }
            let start = max(lowerLimit, boundary(before: selection.location))
            edit(UTF16Range(location: start, length: selection.location - start), with: "")
        }
        if let marked = markedRange, marked.isEmpty { markedRange = nil }
    }

    /// adjustTextPosition(byCharacterOffset:): moves the insertion point by a
    /// number of UTF-16 code units, from the selection's start when moving
    /// back and its end when moving forward, landing on a cluster boundary
    /// (never inside an emoji) and clamped to the text. Marked text is
    /// committed first, as a tap outside it would.
    public mutating func adjustTextPosition(byCharacterOffset offset: Int) {
        markedRange = nil
        let base = offset < 0 ? selection.location : selection.end
        let raw = min(max(base + offset, 0), utf16Count)
        let position = offset < 0 ? boundary(atOrBefore: raw) : boundary(atOrAfter: raw)
        selection = UTF16Range(location: position, length: 0)
    }

    /// setMarkedText(_:selectedRange:): replaces the marked text (or the
    /// selection) with `string`, marks it, and selects `selectedRange` inside it.
    /// Setting empty marked text removes it and unmarks.
    public mutating func setMarkedText(_ string: String, selectedRange: UTF16Range) {
        let target = markedRange ?? selection
        let start = edit(target, with: string)
        let length = string.utf16.count
        guard length > 0 else { markedRange = nil; return }
        // Marked text that joins the cluster before it (a lone combining mark)
        // marks that whole cluster: no range ever splits one.
        markedRange = UTF16Range(location: start, length: length)
        let lower = start + min(max(selectedRange.location, 0), length)
        let upper = min(lower + max(selectedRange.length, 0), start + length)
        selection = UTF16Range(location: lower, length: upper - lower)
        normalize()
    }

    /// unmarkText: the marked text becomes ordinary (committed) text; the
    /// insertion point moves to its end.
    public mutating func unmarkText() {
        guard let marked = markedRange else { return }
        markedRange = nil
        selection = UTF16Range(location: marked.end, length: 0)
    }

    // MARK: Edits from outside the keyboard (the app, the user, the host)

    /// Replaces a range (snapped outward to cluster boundaries) and puts the
    /// insertion point after the new text. Marked text it touches is unmarked
    /// first (committed as it is), as when an app edits under a composition.
    public mutating func replace(_ range: UTF16Range, with string: String) {
        if let marked = markedRange, range.location <= marked.end, range.end >= marked.location {
            markedRange = nil
        }
        edit(range, with: string)
    }

    /// The one primitive edit: replaces a range (snapped outward) and puts the
    /// insertion point after the new text. Marked text it overlaps grows or
    /// shrinks with it (the keyboard's own edits inside its composition).
    /// Returns where the new text starts.
    @discardableResult
    private mutating func edit(_ range: UTF16Range, with string: String) -> Int {
        let lower = boundary(atOrBefore: min(max(range.location, 0), utf16Count))
        let upper = boundary(atOrAfter: min(max(range.end, lower), utf16Count))
        let start = index(lower), end = index(upper)
        text.replaceSubrange(start..<end, with: string)
        let inserted = string.utf16.count
        let delta = inserted - (upper - lower)
        utf16Count += delta
        if let marked = markedRange {
            if marked.end <= lower {
                // unaffected
            } else if marked.location >= upper {
                markedRange = UTF16Range(location: marked.location + delta, length: marked.length)
            } else {
                // The edit is inside (or overlaps) the marked text: it grows or shrinks.
                let newLower = min(marked.location, lower)
                let newEnd = max(marked.end + delta, lower + inserted)
                markedRange = UTF16Range(location: newLower, length: newEnd - newLower)
            }
        }
        selection = UTF16Range(location: lower + inserted, length: 0)
        normalize()
        return lower
    }

    /// Selects a range (snapped outward to cluster boundaries).
    public mutating func select(_ range: UTF16Range) {
        let lower = boundary(atOrBefore: min(max(range.location, 0), utf16Count))
        let upper = boundary(atOrAfter: min(max(range.end, lower), utf16Count))
        selection = UTF16Range(location: lower, length: upper - lower)
        if let marked = markedRange, lower < marked.location || upper > marked.end {
            markedRange = nil
        }
    }

    /// Moves the insertion point by whole grapheme clusters (arrow keys).
    public mutating func moveInsertionPoint(byCharacters count: Int) {
        var position = count < 0 ? selection.location : selection.end
        if count < 0 {
            for _ in 0 ..< -count where position > 0 { position = boundary(before: position) }
        } else {
            for _ in 0 ..< count where position < utf16Count { position = boundary(after: position) }
        }
        markedRange = nil
        selection = UTF16Range(location: position, length: 0)
    }

    /// Commits marked text as plain text (what the host does when a keyboard dies).
    public mutating func commitMarkedText() { unmarkText() }

    // MARK: Grapheme boundaries in UTF-16 offsets

    /// The cluster boundary at or before a UTF-16 offset.
    public func boundary(atOrBefore offset: Int) -> Int {
        let i = index(offset)
        guard i < text.endIndex else { return utf16Count }
        return text.index(before: text.index(after: i)).utf16Offset(in: text)
    }

    /// The cluster boundary at or after a UTF-16 offset.
    public func boundary(atOrAfter offset: Int) -> Int {
        let floor = boundary(atOrBefore: offset)
        guard floor != offset, floor < utf16Count else { return floor }
        return text.index(after: index(floor)).utf16Offset(in: text)
    }

    /// The start of the cluster that ends at (or contains) `offset`.
    public func boundary(before offset: Int) -> Int {
        let floor = boundary(atOrBefore: offset)
        if floor < offset { return floor }
        guard offset > 0 else { return 0 }
        return text.index(before: index(offset)).utf16Offset(in: text)
    }

    /// The end of the cluster that starts at (or contains) `offset`.
    public func boundary(after offset: Int) -> Int {
        guard offset < utf16Count else { return utf16Count }
        return text.index(after: index(boundary(atOrBefore: offset))).utf16Offset(in: text)
    }

    func index(_ utf16Offset: Int) -> String.Index {
        text.utf16.index(text.utf16.startIndex, offsetBy: min(max(utf16Offset, 0), utf16Count))
    }

    /// Puts the selection and the marked range back on cluster boundaries: a
    /// caret moves to the end of a cluster it landed in (typing that joins the
    /// next cluster leaves the caret after it, not a selection of it); a range
    /// widens outward.
    private mutating func normalize() {
        let count = utf16Count
        if selection.isEmpty {
            let caret = boundary(atOrAfter: min(max(selection.location, 0), count))
            selection = UTF16Range(location: caret, length: 0)
        } else {
            let lower = boundary(atOrBefore: min(max(selection.location, 0), count))
            let upper = boundary(atOrAfter: min(max(selection.end, lower), count))
            selection = UTF16Range(location: lower, length: upper - lower)
        }
        if let marked = markedRange {
            let mLower = boundary(atOrBefore: min(max(marked.location, 0), count))
            let mUpper = boundary(atOrAfter: min(max(marked.end, mLower), count))
            if mUpper == mLower || selection.location < mLower || selection.end > mUpper {
                markedRange = mUpper == mLower ? nil : UTF16Range(location: mLower, length: mUpper - mLower)
                if let m = markedRange, selection.location < m.location || selection.end > m.end {
                    markedRange = nil
                }
            } else {
                markedRange = UTF16Range(location: mLower, length: mUpper - mLower)
            }
        }
    }
}
