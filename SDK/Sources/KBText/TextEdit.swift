/// One edit a keyboard makes through its text document proxy. The worker
/// records these in order and the host replays them on the real document.
public enum TextEdit: Hashable, Sendable {
    case insertText(String)
    case deleteBackward
    case adjustTextPosition(Int)
    case setMarkedText(String, selectedRange: UTF16Range)
    case unmarkText

    /// Applies the edit to a buffer: the one definition of what each proxy call does.
    public func apply(to buffer: inout TextBuffer) {
        switch self {
        case .insertText(let s): buffer.insertText(s)
        case .deleteBackward: buffer.deleteBackward()
        case .adjustTextPosition(let n): buffer.adjustTextPosition(byCharacterOffset: n)
        case .setMarkedText(let s, let range): buffer.setMarkedText(s, selectedRange: range)
        case .unmarkText: buffer.unmarkText()
        }
    }
}
