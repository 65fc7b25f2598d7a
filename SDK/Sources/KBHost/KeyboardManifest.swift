import Foundation
import KBSystem

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

    /// The largest manifest kbhost reads, in bytes (1 MiB; a real Info.plist is a few KiB).
    public static let sizeLimit = PropertyList.Limits.bytes
    /// How deep dictionaries and arrays may nest in a manifest, the root dictionary included.
    public static let depthLimit = PropertyList.Limits.depth
    /// The longest string, key or data value in a manifest, in bytes.
    public static let stringLimit = PropertyList.Limits.stringBytes

    /// Reads and checks a manifest, XML or binary: a regular file of at most `sizeLimit`
    /// bytes (a FIFO or a device in its place is refused, never waited on).
    public static func load(contentsOf path: String) throws(ManifestError) -> KeyboardManifest {
        let bytes: [UInt8]
        do { bytes = try SmallFile.read(path, limit: sizeLimit) } catch {
            throw ManifestError(file: path, keyPath: nil, problem: error.description)
        }
        return try decode(bytes, path: path)
    }

    /// The manifest a path names: a bundle folder's Info.plist, or the path itself when it
    /// is not a folder (an Info.plist, or a file that will then be read as one). A missing
    /// path, or a folder without an Info.plist, is an error that says so.
    public static func manifestPath(for path: String) throws(ManifestError) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw ManifestError(file: path, keyPath: nil, problem: "does not exist")
        }
        guard isFolder.boolValue else { return path }
        let plist = (path as NSString).appendingPathComponent("Info.plist")
        guard FileManager.default.fileExists(atPath: plist) else {
            throw ManifestError(file: path, keyPath: nil,
                                problem: "is a folder without an Info.plist; a keyboard bundle is a folder holding its Info.plist and its library")
        }
        return plist
    }

    /// Checks a manifest's bytes, XML or binary, as `load` does; `path` names it in errors.
    public static func decode(_ data: Data, path: String) throws(ManifestError) -> KeyboardManifest {
        try decode([UInt8](data), path: path)
    }

    /// Checks a manifest's bytes, XML or binary, as `load` does; `path` names it in errors.
    ///
    /// Nothing in the bytes can stop the caller: they are read within `sizeLimit`,
    /// `depthLimit` and `stringLimit`, by strict readers that never recurse; anything
    /// a conforming parser rejects (and a key twice in one dictionary) is a ManifestError.
    public static func decode(_ bytes: [UInt8], path: String) throws(ManifestError) -> KeyboardManifest {
        do {
            return try decode(PropertyList.read(bytes), path: path)
        } catch {
            throw error.manifestError(file: path)
        }
    }

    private static func decode(_ root: PropertyList, path: String) throws(PropertyListProblem) -> KeyboardManifest {
        func fail(_ key: String, _ problem: String) -> PropertyListProblem { PropertyListProblem(problem, at: [.key(key)]) }
        let plist = try PropertyListFields(root)
        let identifier = try plist.string("CFBundleIdentifier", required: true)!
        if let problem = bundleIdentifierProblem(identifier) {
            throw fail("CFBundleIdentifier", "\(TerminalText.quoted(identifier)) is not a reverse-DNS bundle identifier (like com.example.keyboard): it \(problem)")
        }
        let displayName = try plist.string("CFBundleDisplayName"), bundleName = try plist.string("CFBundleName")
        for (key, value) in [("CFBundleDisplayName", displayName), ("CFBundleName", bundleName)] {
            if let value, let problem = textProblem(value) { throw fail(key, "\(TerminalText.quoted(value)) \(problem); a name is one line of text") }
        }
        let executable = try plist.string("CFBundleExecutable", required: true)!
        let groups = try plist.strings(applicationGroupsKey) ?? []
        let reads = try plist.strings("KBHostReadOnlyPaths") ?? []
        let ext = try plist.dictionary("NSExtension", required: true)!
        let point = try ext.string("NSExtensionPointIdentifier", required: true)!
        let principalName = try ext.string("NSExtensionPrincipalClass", required: true)!
        let attributes = try ext.dictionary("NSExtensionAttributes")
        let language = try attributes?.string("PrimaryLanguage") ?? "en-US"
        let isASCIICapable = try attributes?.bool("IsASCIICapable") ?? false
        let prefersRightToLeft = try attributes?.bool("PrefersRightToLeft") ?? false
        let requestsOpenAccess = try attributes?.bool("RequestsOpenAccess") ?? false

        let extensionPath: [KeyPathComponent] = [.key("NSExtension")]
        guard point == extensionPoint else {
            throw PropertyListProblem("expected '\(extensionPoint)', found \(TerminalText.quoted(point))",
                                      at: extensionPath + [.key("NSExtensionPointIdentifier")])
        }
        let principal = principalName.replacingOccurrences(of: "$(PRODUCT_MODULE_NAME).", with: "")
        let principalPath = extensionPath + [.key("NSExtensionPrincipalClass")]
        guard !principal.isEmpty else { throw PropertyListProblem("must not be empty", at: principalPath) }
        if let problem = textProblem(principal) { throw PropertyListProblem("\(TerminalText.quoted(principal)) \(problem)", at: principalPath) }
        guard !executable.isEmpty else { throw fail("CFBundleExecutable", "must not be empty") }
        guard !executable.hasPrefix("/"), !executable.split(separator: "/").contains("..") else {
            throw fail("CFBundleExecutable", "\(TerminalText.quoted(executable)) leaves the bundle; name a file inside it")
        }
        if let problem = textProblem(executable) { throw fail("CFBundleExecutable", "\(TerminalText.quoted(executable)) \(problem)") }
        guard isBCP47(language) else {
            throw PropertyListProblem("\(TerminalText.quoted(language)) is not a BCP 47 language tag (like en-US or ja-JP)",
                                      at: extensionPath + [.key("NSExtensionAttributes"), .key("PrimaryLanguage")])
        }
        for (i, group) in groups.enumerated() {
            if let problem = groupNameProblem(group) {
                throw PropertyListProblem("\(TerminalText.quoted(group)) is not an App Group name (like group.com.example.keyboard): it \(problem)",
                                          at: [.key(applicationGroupsKey), .index(i)])
            }
        }
        for (i, p) in reads.enumerated() where !isAllowedReadOnlyPath(p) {
            throw PropertyListProblem("\(TerminalText.quoted(p)) is not system data a keyboard may read: name a folder or file under /usr, /etc or /opt (not the system's secrets)",
                                      at: [.key("KBHostReadOnlyPaths"), .index(i)])
        }
        return KeyboardManifest(path: path, bundleIdentifier: identifier, displayName: displayName ?? bundleName ?? identifier,
                                executable: executable, principalClass: principal, primaryLanguage: language,
                                isASCIICapable: isASCIICapable, prefersRightToLeft: prefersRightToLeft,
                                requestsOpenAccess: requestsOpenAccess,
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
