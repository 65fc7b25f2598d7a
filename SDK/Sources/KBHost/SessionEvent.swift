/// Something the session saw the keyboard do, or did to it.
public struct SessionEvent: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var detail: String?

    public init(_ name: String, _ detail: String? = nil) {
        self.name = name
        self.detail = detail
    }

    public var description: String { detail.map { "\(name): \($0)" } ?? name }
}

public enum SessionError: Error, Hashable, Sendable, CustomStringConvertible {
    case keyboardFailed(KeyboardFailure)
    case noSuchKey(name: String, keyboardID: String, labels: [String])

    public var description: String {
        switch self {
        case .keyboardFailed(let f): f.description
        case .noSuchKey(let name, let id, let labels):
            // Empty slots (a suggestion row with nothing in it yet) are no keys to name.
            TerminalText.line("keyboard \(id) has no key '\(name)'; its keys are: \(labels.filter { !$0.isEmpty }.joined(separator: " "))")
        }
    }
}
