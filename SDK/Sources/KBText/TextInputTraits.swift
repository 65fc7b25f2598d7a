/// UITextInputTraits of the focused field. Raw values match kbhost_keyboard.h.
public struct TextInputTraits: Hashable, Sendable {
    public enum KeyboardType: Int, CaseIterable, Sendable {
        case `default` = 0, asciiCapable, numbersAndPunctuation, url, numberPad, phonePad,
             namePhonePad, emailAddress, decimalPad, twitter, webSearch, asciiCapableNumberPad

        /// Fields whose text must be ASCII: only ASCII-capable keyboards may serve them.
        public var requiresASCII: Bool {
            switch self {
            case .asciiCapable, .url, .emailAddress, .twitter, .webSearch, .asciiCapableNumberPad,
                 .numberPad, .decimalPad, .phonePad, .namePhonePad: return true
            case .default, .numbersAndPunctuation: return false
            }
        }
    }

    public enum ReturnKeyType: Int, CaseIterable, Sendable {
        case `default` = 0, go, google, join, next, route, search, send, yahoo, done, emergencyCall, `continue`
    }

    public enum Autocapitalization: Int, CaseIterable, Sendable {
        case none = 0, words, sentences, allCharacters
    }

    /// UITextAutocorrectionType / UITextSpellCheckingType.
    public enum Tristate: Int, CaseIterable, Sendable {
        case `default` = 0, no, yes
    }

    public enum Appearance: Int, CaseIterable, Sendable {
        case `default` = 0, dark, light
    }

    public var keyboardType: KeyboardType
    public var returnKeyType: ReturnKeyType
    public var autocapitalization: Autocapitalization
    public var autocorrection: Tristate
    public var spellChecking: Tristate
    public var appearance: Appearance
    public var isSecureTextEntry: Bool
    public var enablesReturnKeyAutomatically: Bool

    public init(keyboardType: KeyboardType = .default, returnKeyType: ReturnKeyType = .default,
                autocapitalization: Autocapitalization = .sentences, autocorrection: Tristate = .default,
                spellChecking: Tristate = .default, appearance: Appearance = .default,
                isSecureTextEntry: Bool = false, enablesReturnKeyAutomatically: Bool = false) {
        self.keyboardType = keyboardType
        self.returnKeyType = returnKeyType
        self.autocapitalization = autocapitalization
        self.autocorrection = autocorrection
        self.spellChecking = spellChecking
        self.appearance = appearance
        self.isSecureTextEntry = isSecureTextEntry
        self.enablesReturnKeyAutomatically = enablesReturnKeyAutomatically
    }
}
