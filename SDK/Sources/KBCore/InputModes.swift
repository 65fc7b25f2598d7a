public import KBText

/// The focused field, as far as choosing a keyboard goes.
public struct FieldContext: Hashable, Sendable {
    public var traits: TextInputTraits
    /// An app may refuse third-party keyboards altogether.
    public var allowsThirdPartyKeyboards: Bool

    public init(traits: TextInputTraits = TextInputTraits(), allowsThirdPartyKeyboards: Bool = true) {
        self.traits = traits
        self.allowsThirdPartyKeyboards = allowsThirdPartyKeyboards
    }
}

/// The rules of iOS's input mode list: which keyboards may serve a field, and
/// which comes next when the user taps the globe key. Pure: the caller passes
/// the time and how to find a keyboard (KBHost's `InputModes+Registry` passes the
/// clock and the registry).
public enum InputModes {
    /// Why a keyboard may not serve a field; nil when it may.
    public static func ineligibility(of entry: KeyboardEntry, for field: FieldContext) -> String? {
        if entry.isSystem { return nil }
        if field.traits.isSecureTextEntry { return "secure text fields always use the system keyboard" }
        if field.traits.keyboardType == .phonePad || field.traits.keyboardType == .namePhonePad {
            return "phone pads always use the system keyboard"
        }
        if !field.allowsThirdPartyKeyboards { return "the app refuses third-party keyboards" }
        if field.traits.keyboardType.requiresASCII && !entry.manifest.isASCIICapable {
            return "the field takes ASCII only and the keyboard is not ASCII-capable"
        }
        return nil
    }

    /// The keyboard to use for a field: the current one if eligible, else the
    /// next eligible one in the enabled order, else the system keyboard. `entry`
    /// finds a keyboard by identifier (nil: it does not exist); `now` is seconds
    /// since 1970, for the failure backoff.
    public static func active(_ settings: KeyboardSettings, field: FieldContext, at now: Double,
                              entry: (String) -> KeyboardEntry?) -> String {
        candidates(settings, field: field, startingAfter: nil, at: now, entry: entry).first ?? SystemKeyboard.identifier
    }

    /// advanceToNextInputMode: the next eligible enabled keyboard after the
    /// current one, wrapping; the system keyboard when nothing else is eligible.
    public static func next(_ settings: KeyboardSettings, field: FieldContext, at now: Double,
                            entry: (String) -> KeyboardEntry?) -> String {
        candidates(settings, field: field, startingAfter: settings.current, at: now, entry: entry).first
            ?? SystemKeyboard.identifier
    }

    /// Enabled keyboards that exist and may serve the field, in cycling order:
    /// from the current one (or the one after it), wrapping around.
    public static func candidates(_ settings: KeyboardSettings, field: FieldContext, startingAfter current: String?,
                                  at now: Double, entry: (String) -> KeyboardEntry?) -> [String] {
        let order = settings.enabled
        guard !order.isEmpty else { return [] }
        let start: Int
        if let current, let i = order.firstIndex(of: current) { start = i + 1 } else {
            start = order.firstIndex(of: settings.current) ?? 0
        }
        return (0..<order.count).map { order[(start + $0) % order.count] }.filter { id in
            guard let found = entry(id), settings.mayStart(id, at: now) else { return false }
            return ineligibility(of: found, for: field) == nil
        }
    }

    /// needsInputModeSwitchKey: false when only one keyboard is enabled, or
    /// when the device draws its own globe key.
    public static func needsInputModeSwitchKey(_ settings: KeyboardSettings, deviceDrawsGlobeKey: Bool) -> Bool {
        settings.enabled.count > 1 && !deviceDrawsGlobeKey
    }
}
