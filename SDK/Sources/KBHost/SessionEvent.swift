/// Something the session saw the keyboard do, or did to it.
public struct SessionEvent: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var detail: String?

    public init(_ name: String, _ detail: String? = nil) {
        self.name = name
        self.detail = detail
    }

    public var description: String { detail.map { "\(name): \($0)" } ?? name }

    /// The first Unicode scalars of `text` that fit in `limit` UTF-8 bytes, and how much was cut.
    /// Cut at a scalar (at most three steps back), not a character: finding a character boundary
    /// inside one cluster of a million combining marks costs the cluster at each step, and one log
    /// line of it held the IBus engine — every app's keys — for a minute (eighteenth red team).
    public static func cut(_ text: String, to limit: Int) -> String {
        let utf8 = text.utf8
        guard utf8.count > limit else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: limit)
        while end > utf8.startIndex, UTF8.isContinuation(utf8[end]) { end = utf8.index(before: end) }
        let head = String(text.unicodeScalars[..<end])
        return head + "… (\(utf8.count - head.utf8.count) more bytes not kept)"
    }
}

public enum SessionError: Error, Hashable, Sendable, CustomStringConvertible {
    case keyboardFailed(KeyboardFailure)
    case noSuchKey(name: String, keyboardID: String, labels: [String])
    /// The key offers no such alternate on a long press (`alternates`: those it does).
    case noSuchAlternate(name: String, choice: String, keyboardID: String, alternates: [String])

    /// The script named a key, or an alternate of one, that the keyboard does not have (not a failure of the keyboard).
    public var isNoSuchKeyOrAlternate: Bool {
        switch self {
        case .noSuchKey, .noSuchAlternate: true
        case .keyboardFailed: false
        }
    }

    public var description: String {
        switch self {
        case .keyboardFailed(let f): f.description
        case .noSuchKey(let name, let id, let labels):
            // Empty slots (a suggestion row with nothing in it yet) are no keys to name.
            TerminalText.line("keyboard \(id) has no key '\(name)'; its keys are: \(labels.filter { !$0.isEmpty }.joined(separator: " "))")
        case .noSuchAlternate(let name, let choice, let id, let alternates):
            TerminalText.line("key '\(name)' of keyboard \(id) offers no alternate '\(choice)'; "
                              + (alternates.isEmpty ? "it offers none" : "it offers: \(alternates.joined(separator: " "))"))
        }
    }
}
