import Foundation

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
    static func reverseDNSProblem(_ s: String, extra: String, minimumComponents: Int) -> String? {
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
    static func textProblem(_ text: String) -> String? {
        guard text.unicodeScalars.contains(where: { TerminalText.isEscaped($0, in: .line) }) else { return nil }
        return "holds control characters (a newline, a tab, ESC…), line separators or bidi overrides"
    }

    /// The folder holding the Info.plist: the bundle.
    public var bundleDirectory: String { (path as NSString).deletingLastPathComponent }

    /// Reads and checks a manifest, XML or binary.
    public static func load(contentsOf path: String) throws(ManifestError) -> KeyboardManifest {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ManifestError(file: path, keyPath: nil, problem: FileManager.default.fileExists(atPath: path)
                                ? "cannot be read" : "does not exist")
        }
        return try decode(data, path: path)
    }

    public static func decode(_ data: Data, path: String) throws(ManifestError) -> KeyboardManifest {
        let raw: RawManifest
        do {
            raw = try PropertyListDecoder().decode(RawManifest.self, from: data)
        } catch let error as DecodingError {
            throw ManifestError(decoding: error, file: path)
        } catch {
            throw ManifestError(file: path, keyPath: nil, problem: "is not a property list (\(error.localizedDescription))")
        }
        func fail(_ key: String, _ problem: String) -> ManifestError { ManifestError(file: path, keyPath: key, problem: problem) }

        if let problem = bundleIdentifierProblem(raw.CFBundleIdentifier) {
            throw fail("CFBundleIdentifier", "\(TerminalText.quoted(raw.CFBundleIdentifier)) is not a reverse-DNS bundle identifier (like com.example.keyboard): it \(problem)")
        }
        for (key, value) in [("CFBundleDisplayName", raw.CFBundleDisplayName), ("CFBundleName", raw.CFBundleName)] {
            if let value, let problem = textProblem(value) { throw fail(key, "\(TerminalText.quoted(value)) \(problem); a name is one line of text") }
        }
        guard raw.NSExtension.NSExtensionPointIdentifier == extensionPoint else {
            throw fail("NSExtension.NSExtensionPointIdentifier",
                       "expected '\(extensionPoint)', found \(TerminalText.quoted(raw.NSExtension.NSExtensionPointIdentifier))")
        }
        let principal = raw.NSExtension.NSExtensionPrincipalClass.replacingOccurrences(of: "$(PRODUCT_MODULE_NAME).", with: "")
        guard !principal.isEmpty else { throw fail("NSExtension.NSExtensionPrincipalClass", "must not be empty") }
        if let problem = textProblem(principal) { throw fail("NSExtension.NSExtensionPrincipalClass", "\(TerminalText.quoted(principal)) \(problem)") }
        let executable = raw.CFBundleExecutable
        guard !executable.isEmpty else { throw fail("CFBundleExecutable", "must not be empty") }
        guard !executable.hasPrefix("/"), !executable.split(separator: "/").contains("..") else {
            throw fail("CFBundleExecutable", "\(TerminalText.quoted(executable)) leaves the bundle; name a file inside it")
        }
        if let problem = textProblem(executable) { throw fail("CFBundleExecutable", "\(TerminalText.quoted(executable)) \(problem)") }
        let attributes = raw.NSExtension.NSExtensionAttributes
        let language = attributes?.PrimaryLanguage ?? "en-US"
        guard isBCP47(language) else {
            throw fail("NSExtension.NSExtensionAttributes.PrimaryLanguage", "\(TerminalText.quoted(language)) is not a BCP 47 language tag (like en-US or ja-JP)")
        }
        let groups = raw.applicationGroups ?? []
        for (i, group) in groups.enumerated() {
            if let problem = groupNameProblem(group) {
                throw fail("\(applicationGroupsKey).\(i)", "\(TerminalText.quoted(group)) is not an App Group name (like group.com.example.keyboard): it \(problem)")
            }
        }
        let reads = raw.KBHostReadOnlyPaths ?? []
        for (i, p) in reads.enumerated() where !isAllowedReadOnlyPath(p) {
            throw fail("KBHostReadOnlyPaths.\(i)", "\(TerminalText.quoted(p)) is not system data a keyboard may read: name a folder or file under /usr, /etc or /opt (not the system's secrets)")
        }
        return KeyboardManifest(path: path, bundleIdentifier: raw.CFBundleIdentifier,
                                displayName: raw.CFBundleDisplayName ?? raw.CFBundleName ?? raw.CFBundleIdentifier,
                                executable: executable, principalClass: principal, primaryLanguage: language,
                                isASCIICapable: attributes?.IsASCIICapable ?? false,
                                prefersRightToLeft: attributes?.PrefersRightToLeft ?? false,
                                requestsOpenAccess: attributes?.RequestsOpenAccess ?? false,
                                applicationGroups: Array(Set(groups)).sorted(), readOnlyPaths: reads)
    }

    /// A light check of BCP 47's shape: a 2–3 (or 4–8) letter language, then
    /// subtags of 1–8 letters or digits.
    static func isBCP47(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return false
        }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}

/// The keys of a manifest, as the property list decoder sees them.
private struct RawManifest: Decodable {
    struct Extension: Decodable {
        struct Attributes: Decodable {
            var IsASCIICapable: Bool?
            var PrefersRightToLeft: Bool?
            var PrimaryLanguage: String?
            var RequestsOpenAccess: Bool?
        }
        var NSExtensionPointIdentifier: String
        var NSExtensionPrincipalClass: String
        var NSExtensionAttributes: Attributes?
    }
    var CFBundleIdentifier: String
    var CFBundleDisplayName: String?
    var CFBundleName: String?
    var CFBundleExecutable: String
    var NSExtension: Extension
    var applicationGroups: [String]?
    var KBHostReadOnlyPaths: [String]?

    enum CodingKeys: String, CodingKey {
        case CFBundleIdentifier, CFBundleDisplayName, CFBundleName, CFBundleExecutable, NSExtension, KBHostReadOnlyPaths
        case applicationGroups = "com.apple.security.application-groups"
    }
}

/// What is wrong with a manifest: the file, the key path and what was expected.
public struct ManifestError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var keyPath: String?
    public var problem: String

    public init(file: String, keyPath: String?, problem: String) {
        self.file = file
        self.keyPath = keyPath
        self.problem = problem
    }

    init(decoding error: DecodingError, file: String) {
        func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
            (context.codingPath + (last.map { [$0] } ?? [])).map(\.stringValue).joined(separator: ".")
        }
        func typeName(_ type: Any.Type) -> String {
            switch type {
            case is Bool.Type, is Bool?.Type: "a boolean (<true/> or <false/>)"
            case is String.Type, is String?.Type: "a string"
            case is [String].Type, is [String]?.Type: "an array of strings"
            default: "a dictionary"
            }
        }
        switch error {
        case .keyNotFound(let key, let context):
            self.init(file: file, keyPath: path(context, key), problem: "is missing")
        case .typeMismatch(let type, let context):
            self.init(file: file, keyPath: path(context), problem: "expected \(typeName(type))")
        case .valueNotFound(let type, let context):
            self.init(file: file, keyPath: path(context), problem: "expected \(typeName(type)), found nothing")
        case .dataCorrupted(let context):
            self.init(file: file, keyPath: context.codingPath.isEmpty ? nil : path(context),
                      problem: "is not a valid property list (\(context.debugDescription))")
        @unknown default:
            self.init(file: file, keyPath: nil, problem: "\(error)")
        }
    }

    /// One line: the values it quotes and the file's name are escaped (TerminalText), whatever the manifest holds.
    public var description: String {
        TerminalText.line(keyPath.map { "\(file): \($0) \(problem)" } ?? "\(file): \(problem)")
    }
}
