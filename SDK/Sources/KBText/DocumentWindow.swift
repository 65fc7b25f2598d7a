/// A bounded view of a document around its selection: what a keyboard may
/// read (documentContextBeforeInput / AfterInput are windows on iOS too, about
/// a paragraph). The worker keeps one as its mirror of the document and applies
/// the keyboard's own edits to it at once, so reads after an edit are fresh
/// without a round trip to the host.
public struct DocumentWindow: Hashable, Sendable {
    /// The window's text, selection and marked range (offsets within the window).
    public var buffer: TextBuffer
    /// Whether the document has text before / after the window.
    public var truncatedBefore: Bool
    public var truncatedAfter: Bool

    public init(buffer: TextBuffer = TextBuffer(), truncatedBefore: Bool = false, truncatedAfter: Bool = false) {
        self.buffer = buffer
        self.truncatedBefore = truncatedBefore
        self.truncatedAfter = truncatedAfter
    }

    /// The default bound, in UTF-16 code units on each side of the selection.
    public static let defaultLimit = 512

    /// A front end that keeps only a window of a field's text (the IBus engine, `attach`): the
    /// document cut back to `keep` code units each side of the selection once it has grown past
    /// four times that; nil while it has not, or while text is marked.
    public static func cutBack(_ document: TextBuffer, keep: Int) -> TextBuffer? {
        document.utf16Count > 4 * keep && document.markedRange == nil ? cut(from: document, limit: keep).window.buffer : nil
    }

    /// Cuts a window out of a whole document: up to `limit` code units each
    /// side of the selection (widened to cluster boundaries and to cover all
    /// marked text). `start` is where the window begins in the document.
    public static func cut(from document: TextBuffer, limit: Int = defaultLimit) -> (window: DocumentWindow, start: Int) {
        var lower = max(0, document.selection.location - limit)
        var upper = min(document.utf16Count, document.selection.end + limit)
        if let marked = document.markedRange {
            lower = min(lower, marked.location)
            upper = max(upper, marked.end)
        }
        lower = document.boundary(atOrBefore: lower)
        upper = document.boundary(atOrAfter: upper)
        let text = String(document.text[document.index(lower)..<document.index(upper)])
        let selection = UTF16Range(location: document.selection.location - lower, length: document.selection.length)
        let marked = document.markedRange.map { UTF16Range(location: $0.location - lower, length: $0.length) }
        let window = DocumentWindow(buffer: TextBuffer(text: text, selection: selection, markedRange: marked),
                                    truncatedBefore: lower > 0, truncatedAfter: upper < document.utf16Count)
        return (window, lower)
    }

    /// hasText: anything in the document at all.
    public var hasText: Bool { truncatedBefore || truncatedAfter || buffer.utf16Count > 0 }

    /// documentContextBeforeInput: nil when there is no text before the insertion point.
    public var contextBefore: String? {
        let s = buffer.textBeforeSelection
        return s.isEmpty ? nil : String(s)
    }

    /// documentContextAfterInput: nil when there is no text after the insertion point.
    public var contextAfter: String? {
        let s = buffer.textAfterSelection
        return s.isEmpty ? nil : String(s)
    }

    /// selectedText: nil when nothing is selected.
    public var selectedText: String? {
        buffer.selection.isEmpty ? nil : String(buffer.selectedText)
    }

    public var markedText: String? { buffer.markedText.map(String.init) }
}
