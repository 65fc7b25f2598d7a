import Foundation
import KBSystem
package import KBWire

/// Where kbhost's parts are: the build products (the worker and the bundled
/// keyboards' libraries) and the bundled manifests.
public struct Installation: Sendable {
    /// The folder with kbhost-worker and the sample plugins (the build's products).
    public var productsDirectory: String
    /// The folder of bundled manifests, one keyboard bundle per subfolder.
    public var manifestsDirectory: String?

    public init(productsDirectory: String, manifestsDirectory: String?) {
        self.productsDirectory = productsDirectory
        self.manifestsDirectory = manifestsDirectory
    }

    /// The running program's installation: KBHOST_PRODUCTS / KBHOST_MANIFESTS
    /// when set, else the folder of the executable and the repository's
    /// Manifests/ found above it.
    public static func current(sourceFile: String = Installation.sourceFile) -> Installation {
        let env = ProcessInfo.processInfo.environment
        let executable = Sys.executablePath() ?? CommandLine.arguments[0]
        var products = env["KBHOST_PRODUCTS"] ?? (executable as NSString).deletingLastPathComponent
        if env["KBHOST_PRODUCTS"] == nil, !Sys.fileExists((products as NSString).appendingPathComponent("kbhost-worker")),
           let built = builtProducts(sourceFile: sourceFile) {
            // A program outside kbhost's build (a keyboard author's tests that depend on
            // kbhost's package by path): the worker kbhost's own `swift build` made.
            products = built
        }
        var manifests = env["KBHOST_MANIFESTS"]
        if manifests == nil {
            var dir = products
            for _ in 0..<6 where manifests == nil {
                let candidate = (dir as NSString).appendingPathComponent("Manifests")
                if FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent("Package.swift")),
                   FileManager.default.fileExists(atPath: candidate) {
                    manifests = candidate
                }
                dir = (dir as NSString).deletingLastPathComponent
            }
        }
        if manifests == nil {
            let candidate = packageRoot(sourceFile: sourceFile) + "/Manifests"
            if FileManager.default.fileExists(atPath: candidate) { manifests = candidate }
        }
        return Installation(productsDirectory: products, manifestsDirectory: manifests)
    }

    /// This file, where it was compiled: SDK/Sources/KBHost/Installation.swift. (A `#filePath`
    /// default argument would be the caller's file, in whichever package calls.)
    public static let sourceFile: String = #filePath

    /// The kbhost package (the repository) this code was compiled from: its SDK's parent
    /// (SDK/Sources/KBHost/Installation.swift, four folders up).
    public static func packageRoot(sourceFile: String = Installation.sourceFile) -> String {
        (sdkRoot(sourceFile: sourceFile) as NSString).deletingLastPathComponent
    }

    /// The SDK package this code was compiled from (SDK/Sources/KBHost/Installation.swift, three
    /// folders up): what a keyboard's package depends on by path (`kbhost sdk --path`).
    public static func sdkRoot(sourceFile: String = Installation.sourceFile) -> String {
        var root = sourceFile
        for _ in 0..<3 { root = (root as NSString).deletingLastPathComponent }
        return root
    }

    /// The build products folder of the kbhost package that holds kbhost-worker (the newer of release and debug).
    static func builtProducts(sourceFile: String) -> String? {
        newestBuild(of: "kbhost-worker", in: packageRoot(sourceFile: sourceFile)).map { ($0 as NSString).deletingLastPathComponent }
    }

    /// `file` in a package's .build/release or .build/debug, whichever was built last; symlinks resolved.
    /// Only a regular file of the package's owner, in a folder of theirs no one else may write in, is
    /// its build: `.build` is the package owner's, and a link there to a file of the installing user's
    /// (their key) was copied by `install` into the bundle the keyboard reads, and a link to /tmp made all
    /// of /tmp readable in the keyboard's sandbox (twenty-fourth red team, G and K). Links the owner made
    /// to folders of their own (SwiftPM's `.build/debug`, a build folder shared by their packages) are
    /// followed.
    static func newestBuild(of file: String, in package: String) -> String? {
        guard let owner = (try? Sys.status(package))?.st_uid else { return nil }
        return ["release", "debug"].compactMap { configuration -> (String, Date)? in
            let path = package + "/.build/" + configuration + "/" + file
            guard let real = Sys.realPath(path), let st = try? Sys.status(real), st.st_mode & S_IFMT == S_IFREG, st.st_uid == owner,
                  let folder = try? Sys.status((real as NSString).deletingLastPathComponent),
                  folder.st_uid == owner, folder.st_mode & 0o002 == 0 else { return nil }
            return (real, Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9))
        }.max { $0.1 < $1.1 }?.0
    }

    public var workerPath: String { (productsDirectory as NSString).appendingPathComponent("kbhost-worker") }

    /// The extension process configuration for this installation.
    public var processConfiguration: ExtensionProcess.Configuration {
        ExtensionProcess.Configuration(workerPath: workerPath)
    }

    /// Finds a manifest's library: inside its bundle, or (for bundled samples) among the
    /// build products; nil when it is in neither, or when it leads outside its bundle
    /// (see `library(for:allowProducts:)`, which says so).
    public func resolveLibrary(for manifest: KeyboardManifest, allowProducts: Bool) -> String? {
        (try? library(for: manifest, allowProducts: allowProducts)) ?? nil
    }

    /// Finds a manifest's library: inside its bundle, or (for bundled samples, with
    /// `allowProducts`) among the build products; nil when it is in neither.
    ///
    /// A library in the bundle must lie inside it: a symbolic link — the library itself, a
    /// folder on the way, or the bundle folder — is followed, and the library is returned
    /// as its real path only if that lies inside the bundle's real path; one that leads
    /// outside is an error, because the sandbox grants the keyboard read access to its
    /// library. Without links (two lstat calls, as `list` reads hundreds of bundles), the
    /// path itself is returned, made absolute.
    ///
    /// `runsFromHere`: whether the keyboard would run from this bundle (its folders must then be ones it
    /// may run from: `checkedFolders`); false for a bundle that is only copied (`kbhost install`: the copy
    /// is the user's, whoever's the source was).
    public func library(for manifest: KeyboardManifest, allowProducts: Bool, runsFromHere: Bool = true) throws(ManifestError) -> String? {
        // The manifest refuses absolute paths and "..", so the name itself stays inside the bundle.
        let bundle = manifest.bundleDirectory
        let inBundle = bundle + "/" + manifest.executable
        let fail = { (problem: String) in
            ManifestError(file: manifest.path, keyPath: "CFBundleExecutable", problem: "names \(TerminalText.quoted(manifest.executable)), \(problem)")
        }
        let foreign = { (library: String) -> ManifestError? in runsFromHere ? Self.foreignBundle(manifest, library: library) : nil }
        switch Self.walk(bundle, manifest.executable) {
        case .file:
            if let problem = foreign(inBundle) { throw problem }
            return inBundle.hasPrefix("/") ? inBundle : FileManager.default.currentDirectoryPath + "/" + inBundle
        case .notAFile:
            throw fail("which is not a file")
        case .linked:
            guard let real = Sys.realPath(inBundle) else { break }  // a link to nothing: not there
            guard let realBundle = Sys.realPath(bundle), real.hasPrefix(realBundle == "/" ? "/" : realBundle + "/") else {
                throw fail("which leads outside the bundle (through a symbolic link, to '\(TerminalText.line(real))'); the library must be inside it")
            }
            guard let st = try? Sys.status(real), st.st_mode & S_IFMT == S_IFREG else { throw fail("which is not a file") }
            if let problem = foreign(real) { throw problem }
            return real
        case .missing:
            break
        }
        if allowProducts {
            let product = (productsDirectory as NSString).appendingPathComponent(manifest.executable)
            if FileManager.default.fileExists(atPath: product) {
                if let problem = foreign(product) { throw problem }
                return product
            }
        }
        return nil
    }

    /// A bundle's manifest must lie inside it, as its library must. A symbolic link in its place
    /// that leads outside would let whatever is there decide what kbhost reads as the keyboard:
    /// a link into a keyboard's own container (`../../Containers/Keyboards/ID/…` from an
    /// installed bundle) let that keyboard write a manifest naming another keyboard's identifier,
    /// and take its open-access grant, its container and its groups. Nil for a file, or a link
    /// that stays inside the bundle's folder (followed, compared by real paths, as for the library).
    public static func manifestLinkProblem(_ plist: String) -> ManifestError? {
        guard let st = try? Sys.linkStatus(plist), st.st_mode & S_IFMT == S_IFLNK else { return nil }
        let folder = (plist as NSString).deletingLastPathComponent
        guard let real = Sys.realPath(plist) else {
            return ManifestError(file: plist, keyPath: nil, problem: "is a symbolic link that leads nowhere; the manifest must be a file in its bundle")
        }
        // A FIFO or a device at the end: the manifest's reader refuses it by what it is.
        guard let target = try? Sys.status(real), target.st_mode & S_IFMT == S_IFREG else { return nil }
        guard let realFolder = Sys.realPath(folder.isEmpty ? "." : folder),
              real.hasPrefix(realFolder == "/" ? "/" : realFolder + "/") else {
            return ManifestError(file: plist, keyPath: nil,
                                 problem: "is a symbolic link that leads outside its bundle (to '\(TerminalText.line(real))'); the manifest must be inside it")
        }
        return nil
    }

    /// A keyboard's bundle folder and its library's folder as checked: real paths, and what each was
    /// then (the extension process mounts them only if they still are: `SandboxSpec.readIdentities`).
    package struct CheckedFolders: Sendable {
        /// Nil for a manifest in no folder (a keyboard made in code, `InputManager.Apart`): nothing of it is read.
        package let bundle: (path: String, identity: ReadPathIdentity)?
        package let libraryFolder: String, libraryFolderIdentity: ReadPathIdentity
    }

    /// Why a bundle is not one a keyboard may run from.
    public struct BundleProblem: Error, CustomStringConvertible {
        public let description: String
    }

    /// Who may own a keyboard's folders and files: the user, root, and whoever owns the kbhost this
    /// code was built from (its bundled samples; they already run kbhost's own code as the user).
    static let trustedOwners: Set<uid_t> = {
        var owners: Set<uid_t> = [getuid(), 0]
        if let built = try? Sys.status(packageRoot()) { owners.insert(built.st_uid) }
        return owners
    }()

    /// The folders a keyboard reads, checked: the sandbox lets a keyboard read all of its bundle's folder
    /// and its library's, for as long as it runs, so each must be filled by its owner alone, and that owner
    /// one whose code already runs as the user (the user, root, or kbhost's own). A link `pkg -> /tmp` in a
    /// shared KBHOST_KEYBOARDS folder, with a manifest and library planted in /tmp, let the keyboard read
    /// the user's own 0600 files in /tmp (twenty-fifth red team, A); a folder of another user's, however
    /// it is kept, is his to fill with the user's files he may rename while the keyboard runs (a review),
    /// so a keyboard of another user's runs only once installed (`kbhost install` copies it, and the copy
    /// is the user's). Links are followed (`bundle` may be reached through the user's own link); the
    /// folders they lead to are checked, each opened with no link followed, and what they were is kept.
    package static func checkedFolders(bundle: String, manifest: String, library: String,
                                       throughout: Bool = false, notWalking: String? = nil) throws(BundleProblem) -> CheckedFolders {
        let trusted = trustedOwners
        func trustedOrThrow(_ found: FolderTrust.Found, _ what: String, _ shown: String) throws(BundleProblem) {
            if let who = FolderTrust.othersWhoMayWrite(found) {
                throw BundleProblem(description: found.isFolder
                    ? "\(what) \(shown) is one \(who) may write in, and the keyboard would read everything put there"
                    : "\(what) \(shown) is one \(who) may write to")
            }
            guard trusted.contains(found.owner) else {
                throw BundleProblem(description: "\(what) \(shown) is user \(found.owner)'s, not yours: a keyboard of another user's runs "
                                    + "only once installed (kbhost install copies it into your own keyboards)")
            }
        }
        func folder(_ path: String, _ what: String) throws(BundleProblem) -> (String, ReadPathIdentity) {
            guard let real = Sys.realPath(path.isEmpty ? "." : path), let found = FolderTrust.inspect(real: real), found.isFolder else {
                throw BundleProblem(description: "\(what) \(TerminalText.quoted(path)) is gone")
            }
            try trustedOrThrow(found, what, TerminalText.quoted(real))
            // And the way to it, as named and as it really is: a folder on it that others may write in (not sticky, or
            // sticky with the next one theirs) is one where they could put another folder, or a link, in its place between
            // this check and the launch (twenty-sixth red team: the user's own package in a shared folder everyone may
            // write in was swapped for a link to ~/.ssh, which passed every check as the user's own).
            if let (on, who) = wayOthersMayChange(named: path, real: real) {
                throw BundleProblem(description: "\(what) \(TerminalText.quoted(real)) is reached through \(TerminalText.quoted(on)), "
                                    + "which \(who) may change, putting another folder in its place")
            }
            if throughout, real != notWalking, let inside = firstFolderOthersMayWrite(in: real) {
                throw BundleProblem(description: "\(what) \(TerminalText.quoted(real)) holds \(TerminalText.quoted(inside.path)), a folder "
                                    + "\(inside.who) may write in, and the keyboard would read everything put there")
            }
            return (real, ReadPathIdentity(device: UInt64(found.status.st_dev), inode: UInt64(found.status.st_ino)))
        }
        let inFolder = (try? Sys.status(bundle.isEmpty ? "." : bundle)).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false
        let checkedBundle = inFolder ? try folder(bundle, "its folder") : nil
        let libraryFolder = (library as NSString).deletingLastPathComponent
        // (Most libraries lie in the bundle's own folder: checked once. `list` checks every keyboard's.)
        let (realLibraryFolder, libraryIdentity) = libraryFolder == bundle && checkedBundle != nil
            ? checkedBundle! : try folder(libraryFolder, "its library's folder")
        // Its manifest and library: whoever may change them decides what runs as the user. (A library not
        // there fails its load, which says so; a manifest is not there for a keyboard made in code, whose
        // maker named its folder.) One in the bundle is looked for beneath its real folder first, with no
        // link followed: no realpath walk for the common case.
        for (what, path) in [("manifest", manifest), ("library", library)] {
            var found: (real: String, what: FolderTrust.Found)?
            if let (realBundle, _) = checkedBundle, path.hasPrefix(bundle + "/") {
                let inside = realBundle + path.dropFirst(bundle.count)
                found = FolderTrust.inspect(real: inside).map { (inside, $0) }
            }
            if found == nil, let real = Sys.realPath(path) {
                guard let seen = FolderTrust.inspect(real: real) else { throw BundleProblem(description: "its \(what) \(TerminalText.quoted(real)) is gone") }
                found = (real, seen)
            }
            guard let (real, seen) = found else { continue }
            try trustedOrThrow(seen, "its \(what)", TerminalText.quoted(real))
        }
        return CheckedFolders(bundle: checkedBundle.map { (path: $0.0, identity: $0.1) },
                              libraryFolder: realLibraryFolder, libraryFolderIdentity: libraryIdentity)
    }

    /// A folder on the way to `named` (as the user named it, relative to the current folder or not) or to its
    /// `real` path that someone not trusted may change (`FolderTrust.folderOthersMayChange`), and who.
    static func wayOthersMayChange(named: String, real: String) -> (folder: String, who: String)? {
        let absolute = named.hasPrefix("/") ? named : FileManager.default.currentDirectoryPath + "/" + named
        for path in Set([absolute, real]) {
            if let found = FolderTrust.folderOthersMayChange(onTheWayTo: path, trusted: trustedOwners) { return found }
        }
        return nil
    }

    /// The first folder beneath `folder` (walked without following links, at most `TreeCopy.entryLimit`
    /// entries) that someone besides its owner may write in, and who. (`throughout` walks a keyboard's folders
    /// with it, but `notWalking`: kbhost's own build products, the bundled samples' library folder, which kbhost
    /// trusts as it runs the worker from it — its thousands of entries made every load of a sample 2.9× the
    /// floor instead of 1.1×.)
    static func firstFolderOthersMayWrite(in folder: String) -> (path: String, who: String)? {
        var pending = [folder], seen = 0
        while let current = pending.popLast(), seen < TreeCopy.entryLimit {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: current) else { continue }
            for name in names {
                seen += 1
                let path = current + "/" + name
                guard let st = try? Sys.linkStatus(path), st.st_mode & S_IFMT == S_IFDIR,
                      let found = FolderTrust.inspect(real: path) else { continue }
                if let who = FolderTrust.othersWhoMayWrite(found) { return (path, who) }
                pending.append(path)
            }
        }
        return nil
    }

    private enum Walk { case file, notAFile, linked, missing }

    /// What `relative` is under `bundle`, with lstat on the bundle and each component: a
    /// symbolic link anywhere on the way is `.linked`, for the caller to resolve.
    private static func walk(_ bundle: String, _ relative: String) -> Walk {
        guard var st = try? Sys.linkStatus(bundle) else { return .missing }
        if st.st_mode & S_IFMT == S_IFLNK { return .linked }
        var path = bundle
        for part in relative.split(separator: "/") {
            guard st.st_mode & S_IFMT == S_IFDIR else { return .missing }
            path += "/" + part
            guard let next = try? Sys.linkStatus(path) else { return .missing }
            st = next
            if st.st_mode & S_IFMT == S_IFLNK { return .linked }
        }
        return st.st_mode & S_IFMT == S_IFREG ? .file : .notAFile
    }

    /// A Swift package's built library for its manifest (a package made by `kbhost new`):
    /// .build/release or .build/debug beside the Info.plist, the newer one.
    public static func packageLibrary(for manifest: KeyboardManifest) -> String? {
        newestBuild(of: manifest.executable, in: manifest.bundleDirectory)
    }

    /// An author's keyboard: the library in its bundle, else its package's build.
    /// A library in the bundle that leads outside it is an error, as in `library(for:allowProducts:)`,
    /// and so is a bundle the keyboard may not run from (`checkedFolders`).
    public func authorLibrary(for manifest: KeyboardManifest) throws(ManifestError) -> String? {
        if let inBundle = try library(for: manifest, allowProducts: false) { return inBundle }
        guard let built = Installation.packageLibrary(for: manifest) else { return nil }
        if let problem = Self.foreignBundle(manifest, library: built) { throw problem }
        return built
    }

    /// Why a keyboard may not run from its bundle, as a manifest error (nil: it may).
    static func foreignBundle(_ manifest: KeyboardManifest, library: String) -> ManifestError? {
        do {
            _ = try checkedFolders(bundle: manifest.bundleDirectory, manifest: manifest.path, library: library)
            return nil
        } catch {
            return ManifestError(file: manifest.path, keyPath: nil, problem: "is in a bundle no keyboard may run from: \(error.description)")
        }
    }

    /// The bundled sample keyboards, in folder order.
    public func bundledKeyboards() throws -> [LoadableKeyboard] {
        guard let dir = manifestsDirectory else { return [] }
        let entries = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        var result: [LoadableKeyboard] = []
        for entry in entries {
            let plist = (dir as NSString).appendingPathComponent("\(entry)/Info.plist")
            guard FileManager.default.fileExists(atPath: plist) else { continue }
            let manifest = try KeyboardManifest.load(contentsOf: plist)
            guard let found = try library(for: manifest, allowProducts: true) else {
                throw LookupError.libraryMissing(manifest: plist, executable: manifest.executable, searched: productsDirectory)
            }
            result.append(LoadableKeyboard(manifest: manifest, libraryPath: found))
        }
        return result
    }

    public enum LookupError: Error, CustomStringConvertible {
        case libraryMissing(manifest: String, executable: String, searched: String)

        public var description: String {
            switch self {
            case .libraryMissing(let m, let e, let s):
                "\(m): CFBundleExecutable \(e) was not found in its bundle or in \(s) (run `swift build` first)"
            }
        }
    }

    /// A bundled keyboard by identifier: a forwarder to KeyboardRegistry, which holds
    /// the lookup rules (`KeyboardRegistry.bundled(self).loadable(identifier)`).
    public func keyboard(_ identifier: String) throws -> LoadableKeyboard {
        try KeyboardRegistry.bundled(self).loadable(identifier)
    }
}
