public import KeyboardSDK

/// UIKit's names of the focused field's traits: KeyboardSDK's `TextInputTraits` types.

/// Which keys the field wants (UIKeyboardType).
public typealias UIKeyboardType = TextInputTraits.KeyboardType
/// What return does in the field (UIReturnKeyType).
public typealias UIReturnKeyType = TextInputTraits.ReturnKeyType
/// When to capitalize (UITextAutocapitalizationType).
public typealias UITextAutocapitalizationType = TextInputTraits.AutocapitalizationType
/// Whether to autocorrect (UITextAutocorrectionType).
public typealias UITextAutocorrectionType = TextInputTraits.AutocorrectionType
/// Whether to check spelling (UITextSpellCheckingType).
public typealias UITextSpellCheckingType = TextInputTraits.SpellCheckingType
/// Dark or light keys (UIKeyboardAppearance).
public typealias UIKeyboardAppearance = TextInputTraits.KeyboardAppearance
/// The document, opaque, in the UITextInputDelegate callbacks (`textWillChange(_:)`…).
public typealias UITextInput = TextInput

extension TextInputTraits.KeyboardType {
    /// UIKit's spelling of `.url`.
    public static var URL: Self { .url }
}

/// The field's traits, as the proxy reports them (UITextInputTraits).
///
/// On iOS these requirements are optional, so reading one through the protocol gives an
/// optional (`UIReturnKeyType?`); here it never is. `proxy.returnKeyType == .search`
/// compiles on both.
public protocol UITextInputTraits: AnyObject {
    /// Which keys the field wants.
    var keyboardType: UIKeyboardType { get }
    /// What return does in the field.
    var returnKeyType: UIReturnKeyType { get }
    /// When to capitalize.
    var autocapitalizationType: UITextAutocapitalizationType { get }
    /// Whether to autocorrect.
    var autocorrectionType: UITextAutocorrectionType { get }
    /// Whether to check spelling.
    var spellCheckingType: UITextSpellCheckingType { get }
    /// Dark or light keys.
    var keyboardAppearance: UIKeyboardAppearance { get }
    /// A password field.
    var isSecureTextEntry: Bool { get }
}

/// Inserting and deleting (UIKeyInput).
public protocol UIKeyInput: UITextInputTraits {
    /// Whether the document has any text.
    var hasText: Bool { get }
    /// Inserts text at the insertion point.
    func insertText(_ text: String)
    /// Deletes the selection or the character before the insertion point.
    func deleteBackward()
}

/// The keyboard's view of the document (UITextDocumentProxy); KeyboardSDK's
/// `TextDocumentProxy` is one. Write shared logic against `any UITextDocumentProxy`.
public protocol UITextDocumentProxy: UIKeyInput {
    /// Text before the insertion point, within the host's window; nil if none.
    var documentContextBeforeInput: String? { get }
    /// Text after the insertion point, within the host's window; nil if none.
    var documentContextAfterInput: String? { get }
    /// The selected text; nil when the selection is empty.
    var selectedText: String? { get }
    /// Moves the insertion point by UTF-16 code units.
    func adjustTextPosition(byCharacterOffset offset: Int)
    /// Marks provisional text and selects `selectedRange` (UTF-16 units) within it.
    func setMarkedText(_ markedText: String, selectedRange: NSRange)
    /// Commits the marked text as it is.
    func unmarkText()
}

extension TextDocumentProxy: UITextDocumentProxy {
    /// UIKit's `setMarkedText(_:selectedRange:)`: `selectedRange` in UTF-16 units within
    /// `markedText`. A location of `NSNotFound` puts the insertion point at the marked
    /// text's end; a range past the end is cut to it (iOS clamps it likewise).
    public func setMarkedText(_ markedText: String, selectedRange: NSRange) {
        let count = markedText.utf16.count
        let location = selectedRange.location == NSNotFound ? count : min(max(selectedRange.location, 0), count)
        let length = min(max(selectedRange.length, 0), count - location)
        setMarkedText(markedText, selectedRange: location..<(location + length))
    }
}
