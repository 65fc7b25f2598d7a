public import KBText

/// A text field the input manager owns: the text with its selection and
/// marked text, the field's traits and an identifier. Keyboards only ever
/// see a window of it through their proxy; what they commit stays here even
/// if they die.
public struct TextDocument: Hashable, Sendable {
    public var buffer: TextBuffer
    public var traits: TextInputTraits
    public var identifier: String

    public init(text: String = "", traits: TextInputTraits = TextInputTraits(), identifier: String? = nil) {
        self.buffer = TextBuffer(text: text)
        self.traits = traits
        self.identifier = identifier ?? TextDocument.makeIdentifier()
    }

    public var text: String { buffer.text }

    nonisolated(unsafe) private static var counter = 0
    private static func makeIdentifier() -> String {
        counter += 1
        return "document-\(counter)"
    }
}
