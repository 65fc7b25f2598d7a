import Foundation

/// What `kbhost new` accepts as a keyboard's name: any Swift identifier that can name a module
/// in a keyboard's package. The name becomes the code's module and target (`NAME`), the export's
/// (`NAMEKeyboard`, also the library, libNAMEKeyboard.so), the tests' (`NAMETests`) and the
/// principal class (`NAMEViewController`).
enum NewKeyboardName {
    /// The modules a keyboard's package cannot have as its own: the SDK's (SDK/Package.swift's
    /// targets; CommandTests checks the list against it), and the toolchain's that its graph
    /// imports (the standard library, Foundation, Glibc, Dispatch, the test libraries). Any other
    /// name is free: the package depends on the SDK alone, which has no sample keyboard in it.
    static let sdkModules: Set<String> = [
        "CKeyboardABI", "CKBShims", "CFFI", "KBText", "KBWire", "KBCore", "KBSystem", "KBExtensionRuntime", "KBHost",
        "KeyboardSDK", "KeyboardTesting", "KeyboardUIKitCompat",
    ]
    static let toolchainModules: Set<String> = [
        "Swift", "SwiftShims", "SwiftOnoneSupport", "_Concurrency", "_StringProcessing", "_RegexParser",
        "Glibc", "SwiftGlibc", "Musl", "Dispatch", "CDispatch", "Synchronization",
        "Foundation", "FoundationEssentials", "FoundationInternationalization", "CoreFoundation",
        "_FoundationCShims", "_FoundationCollections", "_FoundationUnicode", "FoundationNetworking", "FoundationXML",
        "Testing", "_TestingInternals", "_TestingInterop", "_Testing_Foundation", "_TestDiscovery", "XCTest",
    ]

    /// Swift's keywords, which cannot be a module's name (`import class` is not Swift).
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "package", "private",
        "precedencegroup", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard",
        "if", "in", "repeat", "return", "throw", "switch", "where", "while",
        "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "_",
    ]

    /// Why `name` cannot name a keyboard, or nil.
    static func problem(_ name: String) -> String? {
        guard let first = name.unicodeScalars.first else { return "a name is needed" }
        if name.unicodeScalars.count > 64 { return "it is longer than 64 characters" }
        guard isHead(first), name.unicodeScalars.dropFirst().allSatisfy(isBody) else {
            return "a keyboard's name is a Swift identifier: a letter or '_' first, then letters, digits or '_' (Acme, my_keys, Clavier2)"
        }
        if keywords.contains(name) { return "it is a Swift keyword" }
        if sdkModules.contains(name) {
            return "it is one of the SDK's modules, which every keyboard's package imports; call it \(name)Keys, for example"
        }
        if toolchainModules.contains(name) {
            return "it is one of the Swift toolchain's modules, which every keyboard's package imports; call it \(name)Keys, for example"
        }
        return nil
    }

    private static func isHead(_ s: Unicode.Scalar) -> Bool {
        s == "_" || s.properties.isAlphabetic
    }

    private static func isBody(_ s: Unicode.Scalar) -> Bool {
        if isHead(s) { return true }
        switch s.properties.generalCategory {
        case .decimalNumber, .nonspacingMark, .spacingMark, .connectorPunctuation: return true
        default: return false
        }
    }

    /// The bundle identifier `kbhost new NAME` proposes: com.example. and the name's letters and
    /// digits, lowercased and without accents (`my_keys` → com.example.my-keys, `Ü2` → com.example.u2).
    static func defaultIdentifier(_ name: String) -> String {
        let plain = name.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
        var component = ""
        var pendingDash = false
        for c in plain where !c.isWhitespace {
            if c.isASCII, c.isLetter || c.isNumber {
                if pendingDash, !component.isEmpty { component += "-" }
                component += c.lowercased()
                pendingDash = false
            } else {
                pendingDash = true
            }
        }
        return "com.example." + (component.isEmpty ? "keyboard" : component)
    }
}
