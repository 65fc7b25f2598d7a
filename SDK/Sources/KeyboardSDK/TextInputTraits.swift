/// The focused field's UITextInputTraits, as a keyboard sees them.
/// Raw values match kbhost_keyboard.h.
public struct TextInputTraits: Hashable, Sendable {
    /// UIKeyboardType: which keys the field wants.
    public enum KeyboardType: Int32, Sendable {
        case `default` = 0, asciiCapable, numbersAndPunctuation, url, numberPad, phonePad,
             namePhonePad, emailAddress, decimalPad, twitter, webSearch, asciiCapableNumberPad
    }
    /// UIReturnKeyType: what return does in the field.
    public enum ReturnKeyType: Int32, Sendable {
        case `default` = 0, go, google, join, next, route, search, send, yahoo, done, emergencyCall, `continue`
    }
    /// UITextAutocapitalizationType: when to capitalize.
    public enum AutocapitalizationType: Int32, Sendable { case none = 0, words, sentences, allCharacters }
    /// UITextAutocorrectionType: whether to autocorrect.
    public enum AutocorrectionType: Int32, Sendable { case `default` = 0, no, yes }
    /// UITextSpellCheckingType: whether to check spelling.
    public enum SpellCheckingType: Int32, Sendable { case `default` = 0, no, yes }
    /// UIKeyboardAppearance: dark or light keys.
    public enum KeyboardAppearance: Int32, Sendable { case `default` = 0, dark, light }

    /// Which keys the field wants.
    public var keyboardType: KeyboardType = .default
    /// What return does in the field.
    public var returnKeyType: ReturnKeyType = .default
    /// When to capitalize.
    public var autocapitalizationType: AutocapitalizationType = .sentences
    /// Whether to autocorrect.
    public var autocorrectionType: AutocorrectionType = .default
    /// Whether to check spelling.
    public var spellCheckingType: SpellCheckingType = .default
    /// Dark or light keys.
    public var keyboardAppearance: KeyboardAppearance = .default
    /// A password field: no suggestions, no learning.
    public var isSecureTextEntry = false
    /// Return is disabled while the field is empty.
    public var enablesReturnKeyAutomatically = false

    /// UIKit's defaults: sentences capitalized, everything else default.
    public init() {}
}
