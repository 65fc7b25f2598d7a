/// A keyboard extension's Info.plist, as iOS reads it: the bundle's
/// identity, its plugin library, and NSExtension's attributes, with iOS's
/// defaults where a key is absent.
public struct KeyboardManifest: Hashable, Sendable {
    /// The Info.plist this came from.
    public var path: String
    public var bundleIdentifier: String
    public var displayName: String
    /// CFBundleExecutable: the plugin library's file name, inside the bundle.
    public var executable: String
    public var principalClass: String
    /// BCP 47; "en-US" when absent.
    public var primaryLanguage: String
    public var isASCIICapable: Bool
    public var prefersRightToLeft: Bool
    public var requestsOpenAccess: Bool
    /// The App Groups it shares with its containing app (com.apple.security.application-groups).
    public var applicationGroups: [String]
    /// System data the keyboard reads beyond /usr (a dictionary's configuration in /etc…): KBHostReadOnlyPaths.
    public var readOnlyPaths: [String]

    public static let extensionPoint = "com.apple.keyboard-service"

    public init(path: String, bundleIdentifier: String, displayName: String, executable: String, principalClass: String,
                primaryLanguage: String = "en-US", isASCIICapable: Bool = false, prefersRightToLeft: Bool = false,
                requestsOpenAccess: Bool = false, applicationGroups: [String] = [], readOnlyPaths: [String] = []) {
        self.path = path
        self.bundleIdentifier = bundleIdentifier
        self.displayName = displayName
        self.executable = executable
        self.principalClass = principalClass
        self.primaryLanguage = primaryLanguage
        self.isASCIICapable = isASCIICapable
        self.prefersRightToLeft = prefersRightToLeft
        self.requestsOpenAccess = requestsOpenAccess
        self.applicationGroups = applicationGroups
        self.readOnlyPaths = readOnlyPaths
    }

    /// Whether a KBHostReadOnlyPaths entry is system data a keyboard may read:
    /// absolute, under /usr, /etc or /opt, and none of the system's secrets.
    public static func isAllowedReadOnlyPath(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        guard path.hasPrefix("/"), !parts.contains(".."), !parts.contains("."), parts.count >= 2,
              ["usr", "etc", "opt"].contains(parts[0]) else { return false }
        let secrets: Set<Substring> = ["shadow", "gshadow", "shadow-", "gshadow-", "sudoers", "sudoers.d", "ssh", "ssl", "security", "krb5.keytab"]
        return !(parts[0] == "etc" && secrets.contains(parts[1]))
    }

    /// The manifest key that declares App Groups (the entitlement's name on iOS).
    public static let applicationGroupsKey = "com.apple.security.application-groups"

    /// The longest bundle identifier or App Group name (each becomes a folder name).
    public static let identifierLimit = 255

    /// Why `id` is not a bundle identifier kbhost accepts, or nil when it is one.
    ///
    /// Reverse DNS, as on iOS: at least two components (`dev.kbhost.Calculator`)
    /// separated by single dots, each of ASCII letters, digits and '-', at most
    /// 255 characters in all. The identifier names the keyboard's container and
    /// its installed copy (`Containers/Keyboards/ID`, `Keyboards/ID`), so no
    /// component can be empty, `.` or `..`, and nothing else can name a path.
    public static func bundleIdentifierProblem(_ id: String) -> String? {
        reverseDNSProblem(id, extra: "-", minimumComponents: 2)
    }

    public static func isValidBundleIdentifier(_ id: String) -> Bool { bundleIdentifierProblem(id) == nil }

    /// Why `name` is not an App Group name, or nil when it is one: "group." and then
    /// components as in a bundle identifier (letters, digits, '-' and also '_'), e.g.
    /// group.com.example.keyboard. It names a folder, `Containers/Groups/GROUP`.
    public static func groupNameProblem(_ name: String) -> String? {
        guard name.hasPrefix("group.") else { return "does not start with \"group.\"" }
        return reverseDNSProblem(name, extra: "-_", minimumComponents: 2)
    }

    /// An App Group name (see groupNameProblem).
    public static func isValidGroupName(_ name: String) -> Bool { groupNameProblem(name) == nil }

    /// Dot-separated components of ASCII letters, digits and `extra`: the shape of bundle identifiers and App Groups.
    package static func reverseDNSProblem(_ s: String, extra: String, minimumComponents: Int) -> String? {
        let allowed = "letters, digits" + extra.map { ", '\($0)'" }.joined()
        if s.isEmpty { return "is empty" }
        if s.utf8.count > identifierLimit { return "is longer than \(identifierLimit) characters" }
        guard s.allSatisfy({ $0 == "." || ($0.isASCII && ($0.isLetter || $0.isNumber || extra.contains($0))) }) else {
            return "may hold only \(allowed) and '.'"
        }
        let components = s.split(separator: ".", omittingEmptySubsequences: false)
        if components.contains(where: \.isEmpty) { return "has an empty component (a dot at the start or the end, or two in a row)" }
        if components.count < minimumComponents { return "needs at least \(minimumComponents) components, like com.example.keyboard" }
        return nil
    }

    /// Why a name a person reads (CFBundleDisplayName…) is not one line of text, or nil.
    package static func textProblem(_ text: String) -> String? {
        guard text.unicodeScalars.contains(where: { TerminalText.isEscaped($0, in: .line) }) else { return nil }
        return "holds control characters (a newline, a tab, ESC…), line separators or bidi overrides"
    }

    /// A light check of BCP 47's shape: a 2–3 (or 4–8) letter language, then
    /// subtags of 1–8 letters or digits.
    package static func isBCP47(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return false
        }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
