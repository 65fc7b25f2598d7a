public import KBText

/// The app's text as an asynchronous front end (IBus, Fcitx) learns it, reconciled with
/// the keyboard's own document.
///
/// The front end sends the app edits (commits, deletions) and the app reports its text
/// (IBus's surrounding text) when it likes: after applying an edit, before a key. Both
/// travel through a daemon, so a report may describe the app before it received edits the
/// keyboard made since. Taking every report as the app's text then loses those edits: under
/// load, typing "teh " after the app emptied its field left the keyboard one key behind the
/// app for the whole word (its document "te " while the app showed "teh "), so the word it
/// would correct was not the word on the screen.
///
/// A report is one of three things:
/// - an echo: a text the keyboard's document had after one of the edits still in flight.
///   Those edits up to it have arrived; nothing changes.
/// - a change the app made itself (the user cleared the field, clicked, pasted). Some of the
///   edits in flight may have reached the app after that change and be in the report; the
///   rest land on top of it. The report is read as including the longest run of them it is
///   consistent with (every insertion they make is there, before the cursor), and the rest
///   are applied to it again: typed after the app emptied its field, "t" in flight and the
///   report "" make "t"; the report "it works. T" with "T" in flight is the document as it is.
/// - an edit applied again once, at an earlier report, is taken as arrived at the next
///   report that is not an echo: it is never applied a second time.
///
/// Only a window of the text is kept (`window(_:)`: `keep` UTF-16 units each side of the
/// selection, eight times what a keyboard reads): an app's field can hold megabytes, and a
/// keyboard can type them (third red team, F4: the engine mirrored 80 MiB typed into one
/// field). Reports and the documents after edits are compared as windows.
///
/// Values only: no clock, no IBus. `inFlightLimit` and `inFlightTextLimit` bound the edits
/// kept; beyond them the next report is taken as it is (what a front end without this does).
public struct ReportedText: Sendable {
    struct Sent: Sendable {
        var edit: TextEdit
        /// The document's window after this edit, as a hash; nil while text is marked (apps report
        /// their text without the preedit, so such a state is never echoed).
        var after: Int?
        /// What the edit does to the app's text (which never holds the preedit).
        var effect: Effect
        /// Already applied again once, on a report the app made before receiving it.
        var reappliedOnce = false
        var insertedLength: Int {
            if case .inserted(let string) = effect { return string.utf16.count }
            return 0
        }
    }

    enum Effect: Sendable {
        case inserted(String)  // before the cursor
        case deleted(Character)  // from before the cursor
        case none  // the preedit changed
        case unknown  // a cursor move, a deleted selection
    }

    /// The edits sent and not yet seen back, oldest first, and the text they insert.
    private(set) var inFlight: [Sent] = []
    public static let inFlightLimit = 256
    public static let inFlightTextLimit = 1 << 16

    /// UTF-16 units kept each side of the selection.
    public let keep: Int
    public static let defaultKeep = 8 * DocumentWindow.defaultLimit

    public init(keep: Int = defaultKeep) { self.keep = keep }

    /// The part of a text that is kept: `keep` units each side of the selection (all of
    /// the marked text), cut at character boundaries. A window of a text that holds this
    /// window is the same window (a front end may cut reports wider first).
    public func window(_ text: TextBuffer) -> TextBuffer {
        DocumentWindow.cut(from: text, limit: keep).window.buffer
    }

    /// The window a document is cut back to once it has grown to four times its size (nil:
    /// not yet, or text is marked).
    public func cutBack(_ text: TextBuffer) -> TextBuffer? { DocumentWindow.cutBack(text, keep: keep) }

    func hash(_ text: TextBuffer) -> Int? { text.markedRange == nil ? window(text).hashValue : nil }

    /// How many edits are in flight (for tests and traces).
    public var pending: Int { inFlight.count }

    /// The front end sent an edit that took the keyboard's document from `before` to `after`.
    public mutating func sent(_ edit: TextEdit, before: TextBuffer, after: TextBuffer) {
        let inFlightText = inFlight.reduce(0) { $0 + $1.insertedLength }  // a few edits: apps report after each
        guard inFlight.count < Self.inFlightLimit, inFlightText < Self.inFlightTextLimit else { return forget() }
        let effect: Effect
        switch edit {
        case .insertText(let string): effect = .inserted(string)
        case .unmarkText: effect = before.markedText.map { .inserted(String($0)) } ?? .none
        case .setMarkedText: effect = .none
        case .deleteBackward where before.markedRange != nil: effect = .none
        case .deleteBackward where before.selection.length == 0:
            effect = before.textBeforeSelection.last.map(Effect.deleted) ?? .none
        default: effect = .unknown
        }
        inFlight.append(Sent(edit: edit, after: hash(after), effect: effect))
    }

    /// The app's text is known to include everything sent (focus moved, a new field).
    public mutating func forget() { inFlight.removeAll() }

    /// The app reported its text: nil when the report is an echo (the document stays), or
    /// the text the document becomes.
    public mutating func reported(_ report: TextBuffer) -> TextBuffer? {
        let text = window(report)
        let reportHash = text.hashValue
        if let index = inFlight.firstIndex(where: { $0.after == reportHash }) {
            inFlight.removeFirst(index + 1)
            return nil
        }
        inFlight.removeAll { $0.reappliedOnce }
        var arrived = (0...inFlight.count).last { includes(text, inFlight.prefix($0)) } ?? 0
        // Preedit changes leave no mark in the app's text: those last in the run are not known
        // to have arrived, and the edits after them need them (a commit of marked text).
        while arrived > 0, case .none = inFlight[arrived - 1].effect { arrived -= 1 }
        inFlight.removeFirst(arrived)
        var document = text
        for index in inFlight.indices {
            inFlight[index].edit.apply(to: &document)
            inFlight[index].after = hash(document)
            inFlight[index].reappliedOnce = true
        }
        return document
    }

    /// Whether `text` can be what these edits left, last: read back from its cursor, each
    /// insertion is there and each deleted character put back (a commit of marked text is an
    /// insertion; the preedit is not the app's). Edits that cannot be read back (cursor moves,
    /// deleted selections) end the reading: consistent.
    func includes(_ text: TextBuffer, _ edits: ArraySlice<Sent>) -> Bool {
        var before = Substring(text.textBeforeSelection)
        for sent in edits.reversed() {
            switch sent.effect {
            case .inserted(let string):
                guard before.hasSuffix(string) else { return false }
                before = before.dropLast(string.count)
            case .deleted(let character): before += String(character)
            case .none: continue
            case .unknown: return true
            }
        }
        return true
    }
}
