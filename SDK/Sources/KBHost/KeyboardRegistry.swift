public import Foundation
import KBSystem

/// Slots filled from many threads, each slot by exactly one.
final class ParallelResults<T>: @unchecked Sendable {
    private var storage: [T?]
    private let lock = NSLock()
    init(count: Int) { storage = Array(repeating: nil, count: count) }
    subscript(i: Int) -> T? {
        get { lock.withLock { storage[i] } }
        set { lock.withLock { storage[i] = newValue } }
    }
    var values: [T?] { lock.withLock { storage } }
}

public enum RegistryError: Error, Hashable, Sendable, CustomStringConvertible {
    case duplicate(identifier: String, first: String, second: String)
    /// No keyboard has this identifier (or name); `suggestions` are the identifiers closest to it.
    case unknown(String, known: [String], suggestions: [String] = [])
    /// A display name more than one keyboard has: their identifiers.
    case ambiguous(String, candidates: [String])

    public var description: String {
        switch self {
        case .duplicate(let id, let first, let second):
            "two keyboards have the identifier \(id): \(first) and \(second); remove or rename one"
        case .unknown(let id, let known, let suggestions):
            !suggestions.isEmpty ? "no keyboard \(id); did you mean \(suggestions.joined(separator: " or "))?"
                : known.count <= 12 ? "no keyboard \(id); known keyboards: \(known.joined(separator: ", "))"
                : "no keyboard \(id); `kbhost list --all` shows all \(known.count)"
        case .ambiguous(let name, let candidates):
            "\(candidates.count) keyboards are named '\(name)': \(candidates.joined(separator: ", ")); give one's identifier"
        }
    }
}

/// Every keyboard kbhost can offer: the system keyboard, the bundled samples,
/// the folders in KBHOST_KEYBOARDS (colon-separated; each is a keyboard's bundle —
/// a folder with Info.plist and the library — or its package made by `kbhost new`
/// and built, or holds such bundles, packages or manifests), and the user's
/// installed keyboards (KBHOST_HOME/Keyboards).
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

    /// The keyboard `identifier` names, if it has a library to load (the system keyboard
    /// has none); `.unknown` names the ones that have.
    public func loadable(_ identifier: String) throws(RegistryError) -> LoadableKeyboard {
        guard let keyboard = entry(identifier)?.loadable else {
            throw .unknown(identifier, known: keyboards.compactMap { $0.loadable?.identifier })
        }
        return keyboard
    }

    /// Only the installation's bundled samples (and the system keyboard), for programs
    /// without a settings folder (`kbhost demo`, the benchmark, tests). Unlike `discover`,
    /// a bundled manifest that cannot be used is an error, not a problem to skip.
    public static func bundled(_ installation: Installation) throws -> KeyboardRegistry {
        try KeyboardRegistry(keyboards: installation.bundledKeyboards().map {
            KeyboardEntry(manifest: $0.manifest, libraryPath: $0.libraryPath, source: "bundled")
        })
    }

    /// Finds every keyboard for an installation and a settings folder: the bundled samples,
    /// then each KBHOST_KEYBOARDS folder in order, then the installed keyboards.
    ///
    /// Nothing in those folders makes this fail: a manifest that cannot be used, and one
    /// whose identifier an earlier one already has, are skipped and listed in `problems`.
    /// The first found keeps its identifier, so an installed keyboard never takes over a
    /// bundled one's, and nothing takes the system keyboard's. Only `init`'s `.duplicate` could
    /// throw, and discover never hands it two keyboards with one identifier.
    public static func discover(installation: Installation, home: String,
                                environment: [String: String] = ProcessInfo.processInfo.environment) throws(RegistryError) -> KeyboardRegistry {
        let candidates = manifestCandidates(installation: installation, home: home, environment: environment).manifests

        let toRead = candidates
        let installedRoot = Sys.realPath(home + "/Keyboards")
        let results = ParallelResults<Result<KeyboardEntry, ManifestError>>(count: toRead.count)
        DispatchQueue.concurrentPerform(iterations: toRead.count) { i in
            let c = toRead[i]
            results[i] = Result { () throws(ManifestError) -> KeyboardEntry in
                if let problem = Installation.manifestLinkProblem(c.plist) { throw problem }
                let manifest = try KeyboardManifest.load(contentsOf: c.plist)
                // An installed keyboard is the user's, listed as installed: a link to it from a KBHOST_KEYBOARDS folder
                // (another user's) took it over, and `uninstall` and updates were refused (twenty-sixth red team).
                if c.source != "installed", let root = installedRoot, let real = Sys.realPath(manifest.bundleDirectory),
                   real == root || real.hasPrefix(root + "/") {
                    throw ManifestError(file: c.plist, keyPath: nil,
                                        problem: "leads into your installed keyboards (\(TerminalText.quoted(real))); it is listed as installed, from there")
                }
                let library = c.allowPackageBuild ? try installation.authorLibrary(for: manifest)
                                                  : try installation.library(for: manifest, allowProducts: c.allowProducts)
                guard let library else {
                    throw ManifestError(file: c.plist, keyPath: "CFBundleExecutable",
                                        problem: c.allowPackageBuild
                                            ? "names \(TerminalText.quoted(manifest.executable)), which is neither in the bundle nor in its .build/debug or .build/release (run swift build, or make)"
                                            : "names \(TerminalText.quoted(manifest.executable)), which is not in the bundle")
                }
                return KeyboardEntry(manifest: manifest, libraryPath: library, source: c.source)
            }
        }
        var entries: [KeyboardEntry] = []
        var problems: [String] = []
        for folder in (environment["KBHOST_KEYBOARDS"] ?? "").split(separator: ":") where !folder.isEmpty {
            if let why = refusedKeyboardFolder(String(folder)) {
                problems.append("KBHOST_KEYBOARDS: \(TerminalText.quoted(String(folder))) \(why); no keyboard is read from it "
                                + "(install one from there with kbhost install, which copies it)")
            }
        }
        var taken: [String: String] = [SystemKeyboard.identifier: "the built-in system keyboard"]
        for result in results.values {
            switch result {
            case .success(let entry)?:
                if let first = taken[entry.identifier] {
                    problems.append(ManifestError(file: entry.manifest.path, keyPath: "CFBundleIdentifier",
                                                  problem: "\(entry.identifier) is already the identifier of \(first), which is used; "
                                                           + "this one is skipped (remove or rename one)").description)
                } else {
                    taken[entry.identifier] = "\(entry.manifest.path) (\(entry.source))"
                    entries.append(entry)
                }
            case .failure(let error)?: problems.append(error.description)
            case nil: break
            }
        }
        return try KeyboardRegistry(keyboards: entries, problems: problems)
    }

    /// Where a keyboard's manifest may be.
    struct Candidate {
        var plist: String
        var source: String
        var allowProducts: Bool
        var allowPackageBuild = false
    }

    /// Why a KBHOST_KEYBOARDS folder is not read at all, or nil: another user's, or one others may change (or reached
    /// through one): whoever may change it decides what is found there, and a keyboard runs from nothing they may
    /// change (`Installation.checkedFolders`); 2,000 hard links to one 1 MB manifest in another user's folder made each
    /// command take 95-130 s, every manifest read before it was refused (twenty-sixth red team, S1).
    static func refusedKeyboardFolder(_ folder: String) -> String? {
        guard let real = Sys.realPath(folder), let found = FolderTrust.inspect(real: real), found.isFolder else { return nil }  // (nothing there)
        let trusted = Installation.trustedOwners
        guard trusted.contains(found.owner) else { return "is user \(found.owner)'s, not yours" }
        if let who = FolderTrust.othersWhoMayWrite(found) { return "is one \(who) may write in" }
        return Installation.wayOthersMayChange(named: folder, real: real).map { "is reached through \(TerminalText.quoted($0.folder)), which \($0.who) may change" }
    }

    /// The manifests `discover` reads, in its order (the bundled samples, each KBHOST_KEYBOARDS
    /// folder, the installed keyboards), and the folders it listed to find them.
    static func manifestCandidates(installation: Installation, home: String,
                                   environment: [String: String]) -> (manifests: [Candidate], folders: [String]) {
        var candidates: [Candidate] = []
        var folders: [String] = []
        func scan(_ folder: String, source: String, allowProducts: Bool, allowPackageBuild: Bool = false) {
            folders.append(folder)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
            for name in names.sorted() {
                // `kbhost install`'s own folders (.staging-…, .old-…), left by an install that was
                // interrupted: never keyboards (installed bundles are named by their reverse-DNS identifier).
                if source == "installed", name.hasPrefix(".") { continue }
                let path = (folder as NSString).appendingPathComponent(name)
                if name.hasSuffix(".plist") {
                    candidates.append(Candidate(plist: path, source: source, allowProducts: allowProducts, allowPackageBuild: allowPackageBuild))
                } else if FileManager.default.fileExists(atPath: path + "/Info.plist") || (try? Sys.linkStatus(path + "/Info.plist")) != nil {
                    // (A link to nothing too: refused by name in discover, not skipped in silence.)
                    candidates.append(Candidate(plist: path + "/Info.plist", source: source, allowProducts: allowProducts,
                                                allowPackageBuild: allowPackageBuild))
                }
            }
        }
        if let bundled = installation.manifestsDirectory { scan(bundled, source: "bundled", allowProducts: true) }
        for folder in (environment["KBHOST_KEYBOARDS"] ?? "").split(separator: ":") where !folder.isEmpty {
            // An author's folder: a package's library is in its .build (`swift build`), as for validate and install.
            // Never one another user may change: nothing in it is read (`refusedKeyboardFolder`).
            guard refusedKeyboardFolder(String(folder)) == nil else { continue }
            scan(String(folder), source: String(folder), allowProducts: false, allowPackageBuild: true)
        }
        scan(home + "/Keyboards", source: "installed", allowProducts: false)
        return (candidates, folders)
    }
}
