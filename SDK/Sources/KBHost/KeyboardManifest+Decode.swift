public import Foundation
import KBCore
import KBSystem

// Reading a manifest: its file, its bytes (XML or binary, through kbhost's own strict
// readers) and then the rules of KBCore's `KeyboardManifest` on what they hold.
extension KeyboardManifest {
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
        // A handful each: every path is walked and every group's folder made at each launch (300,000 paths, 30,000
        // groups in a manifest of 300 KB kept `type` walking for an hour and made 90,001 folders: twenty-fifth red team).
        for (key, list) in [(applicationGroupsKey, groups), ("KBHostReadOnlyPaths", reads)] where list.count > Self.listLimit {
            throw PropertyListProblem("has \(list.count) entries; a keyboard names at most \(Self.listLimit)", at: [.key(key)])
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
                                applicationGroups: Array(Set(groups)).sorted(), readOnlyPaths: Array(Set(reads)).sorted())
    }

    /// The most App Groups, and the most KBHostReadOnlyPaths, one manifest names.
    static let listLimit = 16
}
