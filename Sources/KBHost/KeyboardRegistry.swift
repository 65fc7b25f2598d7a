import Foundation

/// The built-in system keyboard: always present, the fallback for fields no
/// other keyboard may serve, and the only one in fresh settings.
public enum SystemKeyboard {
    public static let identifier = "dev.kbhost.System"
    public static let manifest = KeyboardManifest(
        path: "(built in)", bundleIdentifier: identifier, displayName: "System", executable: "(built in)",
        principalClass: "(built in)", primaryLanguage: "en-US", isASCIICapable: true)
}

/// One keyboard kbhost knows about.
public struct KeyboardEntry: Hashable, Sendable {
    public var manifest: KeyboardManifest
    /// The plugin library; nil for the system keyboard.
    public var libraryPath: String?
    /// Where it came from: "built in", "bundled", "installed", or a KBHOST_KEYBOARDS folder.
    public var source: String

    public var identifier: String { manifest.bundleIdentifier }
    public var isSystem: Bool { identifier == SystemKeyboard.identifier }
    public var loadable: LoadableKeyboard? { libraryPath.map { LoadableKeyboard(manifest: manifest, libraryPath: $0) } }
}

public enum RegistryError: Error, Hashable, Sendable, CustomStringConvertible {
    case duplicate(identifier: String, first: String, second: String)
    case unknown(String, known: [String])

    public var description: String {
        switch self {
        case .duplicate(let id, let first, let second):
            "two keyboards have the identifier \(id): \(first) and \(second); remove or rename one"
        case .unknown(let id, let known):
            "no keyboard \(id); known keyboards: \(known.joined(separator: ", "))"
        }
    }
}

/// Every keyboard kbhost can offer: the system keyboard, the bundled samples,
/// the folders in KBHOST_KEYBOARDS (colon-separated; each holds keyboard
/// bundles — a folder with Info.plist and the library — or manifests), and
/// the user's installed keyboards (KBHOST_HOME/Keyboards).
public struct KeyboardRegistry: Sendable {
    public private(set) var keyboards: [KeyboardEntry]
    /// Manifests that could not be used, with why (they are skipped, not fatal).
    public private(set) var problems: [String]
    private var byIdentifier: [String: Int]

    public init(keyboards: [KeyboardEntry], problems: [String] = []) throws(RegistryError) {
        self.keyboards = []
        self.problems = problems
        byIdentifier = [:]
        for entry in [KeyboardEntry(manifest: SystemKeyboard.manifest, libraryPath: nil, source: "built in")] + keyboards {
            if let i = byIdentifier[entry.identifier] {
                throw .duplicate(identifier: entry.identifier, first: self.keyboards[i].manifest.path, second: entry.manifest.path)
            }
            byIdentifier[entry.identifier] = self.keyboards.count
            self.keyboards.append(entry)
        }
    }

    public func entry(_ identifier: String) -> KeyboardEntry? { byIdentifier[identifier].map { keyboards[$0] } }

    public func require(_ identifier: String) throws(RegistryError) -> KeyboardEntry {
        guard let e = entry(identifier) else { throw .unknown(identifier, known: keyboards.map(\.identifier)) }
        return e
    }

    /// Finds every keyboard for an installation and a settings folder.
    public static func discover(installation: Installation, home: String,
                                environment: [String: String] = ProcessInfo.processInfo.environment) throws(RegistryError) -> KeyboardRegistry {
        var entries: [KeyboardEntry] = []
        var problems: [String] = []
        func scan(_ folder: String, source: String, allowProducts: Bool) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
            for name in names.sorted() {
                let path = (folder as NSString).appendingPathComponent(name)
                let plist: String
                if name.hasSuffix(".plist") {
                    plist = path
                } else if FileManager.default.fileExists(atPath: path + "/Info.plist") {
                    plist = path + "/Info.plist"
                } else {
                    continue
                }
                do {
                    let manifest = try KeyboardManifest.load(contentsOf: plist)
                    guard let library = installation.resolveLibrary(for: manifest, allowProducts: allowProducts) else {
                        problems.append("\(plist): CFBundleExecutable \(manifest.executable) was not found in its bundle")
                        continue
                    }
                    entries.append(KeyboardEntry(manifest: manifest, libraryPath: library, source: source))
                } catch {
                    problems.append(error.description)
                }
            }
        }
        if let bundled = installation.manifestsDirectory { scan(bundled, source: "bundled", allowProducts: true) }
        for folder in (environment["KBHOST_KEYBOARDS"] ?? "").split(separator: ":") where !folder.isEmpty {
            scan(String(folder), source: String(folder), allowProducts: false)
        }
        scan(home + "/Keyboards", source: "installed", allowProducts: false)
        return try KeyboardRegistry(keyboards: entries, problems: problems)
    }
}
