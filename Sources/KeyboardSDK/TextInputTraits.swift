/// The focused field's UITextInputTraits, as a keyboard sees them.
/// Raw values match kbhost_keyboard.h.
public struct TextInputTraits: Hashable, Sendable {
    public enum KeyboardType: Int32, Sendable {
        case `default` = 0, asciiCapable, numbersAndPunctuation, url, numberPad, phonePad,
             namePhonePad, emailAddress, decimalPad, twitter, webSearch, asciiCapableNumberPad
    }
    public enum ReturnKeyType: Int32, Sendable {
        case `default` = 0, go, google, join, next, route, search, send, yahoo, done, emergencyCall, `continue`
    }
    public enum AutocapitalizationType: Int32, Sendable { case none = 0, words, sentences, allCharacters }
    public enum AutocorrectionType: Int32, Sendable { case `default` = 0, no, yes }
    public enum SpellCheckingType: Int32, Sendable { case `default` = 0, no, yes }
    public enum KeyboardAppearance: Int32, Sendable { case `default` = 0, dark, light }

    public var keyboardType: KeyboardType = .default
    public var returnKeyType: ReturnKeyType = .default
    public var autocapitalizationType: AutocapitalizationType = .sentences
    public var autocorrectionType: AutocorrectionType = .default
    public var spellCheckingType: SpellCheckingType = .default
    public var keyboardAppearance: KeyboardAppearance = .default
    public var isSecureTextEntry = false
    public var enablesReturnKeyAutomatically = false

    public init() {}
}
