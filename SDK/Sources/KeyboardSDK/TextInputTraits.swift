/// The focused field's UITextInputTraits, as a keyboard sees them.
/// Raw values match kbhost_keyboard.h.
public struct TextInputTraits: Hashable, Sendable {
    /// UIKeyboardType: which keys the field wants.
    public enum KeyboardType: Int32, Sendable {
        /// Any text: the keyboard's usual keys.
        case `default` = 0
        /// Letters and symbols of ASCII only.
        case asciiCapable
        /// Digits and punctuation first.
        case numbersAndPunctuation
        /// A web address: "/", ".", ".com" at hand.
        case url
        /// Digits only.
        case numberPad
        /// A telephone number: digits, "*", "#", "+".
        case phonePad
        /// A person's name or a telephone number.
        case namePhonePad
        /// An e-mail address: "@" and "." at hand.
        case emailAddress
        /// Digits and a decimal separator.
        case decimalPad
        /// Text with "@" and "#" at hand.
        case twitter
        /// A search query: space and "." at hand, return searches.
        case webSearch
        /// Digits of ASCII only.
        case asciiCapableNumberPad
    }
    /// UIReturnKeyType: what return does in the field.
    public enum ReturnKeyType: Int32, Sendable {
        /// A newline, or the field's own action ("return").
        case `default` = 0
        /// "Go": opens what was typed.
        case go
        /// "Google": searches.
        case google
        /// "Join": joins a network.
        case join
        /// "Next": the next field.
        case next
        /// "Route": directions.
        case route
        /// "Search".
        case search
        /// "Send".
        case send
        /// "Yahoo": searches.
        case yahoo
        /// "Done": ends the editing.
        case done
        /// "Emergency Call".
        case emergencyCall
        /// "Continue".
        case `continue`
    }
    /// UITextAutocapitalizationType: when to capitalize.
    public enum AutocapitalizationType: Int32, Sendable {
        /// Never.
        case none = 0
        /// The first letter of each word.
        case words
        /// The first letter of each sentence (UIKit's default).
        case sentences
        /// Every letter.
        case allCharacters
    }
    /// UITextAutocorrectionType: whether to autocorrect.
    public enum AutocorrectionType: Int32, Sendable {
        /// As the keyboard and the user's settings decide.
        case `default` = 0
        /// Never: the field holds codes, names, commands.
        case no
        /// Yes.
        case yes
    }
    /// UITextSpellCheckingType: whether to check spelling.
    public enum SpellCheckingType: Int32, Sendable {
        /// As the keyboard and the user's settings decide.
        case `default` = 0
        /// Never.
        case no
        /// Yes.
        case yes
    }
    /// UIKeyboardAppearance: dark or light keys.
    public enum KeyboardAppearance: Int32, Sendable {
        /// The system's appearance.
        case `default` = 0
        /// Dark keys.
        case dark
        /// Light keys.
        case light
    }

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
