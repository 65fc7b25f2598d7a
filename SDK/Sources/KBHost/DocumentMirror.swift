import KBText

/// What the host knows of the window of the document the worker holds: where it
/// starts, how long it is now, how much text lay after it when it was cut, and
/// whether a fresh one must be cut or sent.
struct DocumentMirror {
    /// How long a window may be (see `DocumentWindow.cut`).
    let limit: Int
    /// The window last cut, kept only until it is sent.
    private(set) var window = DocumentWindow()
    /// Where the worker's window starts in the document, and how long it is now.
    private(set) var start = 0
    var length = 0
    /// How much of the document lies after the window when it was cut; the
    /// keyboard's edits happen inside the window, so this stays put while the mirror is faithful.
    private(set) var tail = 0
    var isStale = false
    /// A freshly cut window the worker has not been sent yet.
    var isPending = false

    init(limit: Int) { self.limit = limit }

    /// Cuts a fresh window from the document; the next delivery carries it.
    mutating func cut(from buffer: TextBuffer) {
        let cut = DocumentWindow.cut(from: buffer, limit: limit)
        window = cut.window
        start = cut.start
        length = cut.window.buffer.utf16Count
        tail = buffer.utf16Count - cut.start - cut.window.buffer.utf16Count
        isStale = false
        isPending = true
    }

    /// Whether the worker's window is still a faithful view of the document.
    /// Both sides apply the same edits with the same code, so they can only part
    /// where an edit reached past the window's edge (deleting before its start,
    /// moving beyond it), and that always leaves the selection or the marked
    /// text outside the window as the host counts it. The window is also recut
    /// when the insertion point nears an edge with more text beyond, or it grows
    /// too long. No text is compared: this is on every key's path.
    func matches(_ doc: TextBuffer) -> Bool {
        let end = start + length
        func inside(_ r: UTF16Range) -> Bool { r.location >= start && r.end <= end }
        return length >= 0 && doc.utf16Count - end == tail
            && inside(doc.selection) && (doc.markedRange.map(inside) ?? true)
            && !(start > 0 && doc.selection.location - start < limit / 4)
            && !(tail > 0 && end - doc.selection.end < limit / 4)
            && length <= 4 * limit
    }
}
