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

    /// An App Group name: "group." and then letters, digits, '.', '-' or '_' (it becomes a folder name).
    public static func isValidGroupName(_ name: String) -> Bool {
        name.hasPrefix("group.") && name.count > 6 && name.count <= 200 && !name.contains("..")
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
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

        guard !raw.CFBundleIdentifier.isEmpty else { throw fail("CFBundleIdentifier", "must not be empty") }
        guard raw.CFBundleIdentifier.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else {
            throw fail("CFBundleIdentifier", "'\(raw.CFBundleIdentifier)' may hold only letters, digits, '.' and '-'")
        }
        guard raw.NSExtension.NSExtensionPointIdentifier == extensionPoint else {
            throw fail("NSExtension.NSExtensionPointIdentifier",
                       "expected '\(extensionPoint)', found '\(raw.NSExtension.NSExtensionPointIdentifier)'")
        }
        let principal = raw.NSExtension.NSExtensionPrincipalClass.replacingOccurrences(of: "$(PRODUCT_MODULE_NAME).", with: "")
        guard !principal.isEmpty else { throw fail("NSExtension.NSExtensionPrincipalClass", "must not be empty") }
        let executable = raw.CFBundleExecutable
        guard !executable.isEmpty else { throw fail("CFBundleExecutable", "must not be empty") }
        guard !executable.hasPrefix("/"), !executable.split(separator: "/").contains("..") else {
            throw fail("CFBundleExecutable", "'\(executable)' leaves the bundle; name a file inside it")
        }
        let attributes = raw.NSExtension.NSExtensionAttributes
        let language = attributes?.PrimaryLanguage ?? "en-US"
        guard isBCP47(language) else {
            throw fail("NSExtension.NSExtensionAttributes.PrimaryLanguage", "'\(language)' is not a BCP 47 language tag (like en-US or ja-JP)")
        }
        let groups = raw.applicationGroups ?? []
        for (i, group) in groups.enumerated() where !isValidGroupName(group) {
            throw fail("\(applicationGroupsKey).\(i)", "'\(group)' is not an App Group name: \"group.\" followed by letters, digits, '.', '-' or '_'")
        }
        let reads = raw.KBHostReadOnlyPaths ?? []
        for (i, p) in reads.enumerated() where !isAllowedReadOnlyPath(p) {
            throw fail("KBHostReadOnlyPaths.\(i)", "'\(p)' is not system data a keyboard may read: name a folder or file under /usr, /etc or /opt (not the system's secrets)")
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

    public var description: String {
        if let keyPath { return "\(file): \(keyPath) \(problem)" }
        return "\(file): \(problem)"
    }
}
