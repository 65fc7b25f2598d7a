import Foundation
import KBSystem

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
    public static func current(sourceFile: String = #filePath) -> Installation {
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
            // Sources/KBHost/Installation.swift → the repository root.
            let root = ((sourceFile as NSString).deletingLastPathComponent as NSString)
                .deletingLastPathComponent as NSString
            let candidate = (root.deletingLastPathComponent as NSString).appendingPathComponent("Manifests")
            if FileManager.default.fileExists(atPath: candidate) { manifests = candidate }
        }
        return Installation(productsDirectory: products, manifestsDirectory: manifests)
    }

    /// The kbhost package this code was compiled from (Sources/KBHost/Installation.swift, three folders up).
    public static func packageRoot(sourceFile: String = #filePath) -> String {
        var root = sourceFile
        for _ in 0..<3 { root = (root as NSString).deletingLastPathComponent }
        return root
    }

    /// The build products folder of the kbhost package that holds kbhost-worker (the newer of release and debug).
    static func builtProducts(sourceFile: String) -> String? {
        newestBuild(of: "kbhost-worker", in: packageRoot(sourceFile: sourceFile)).map { ($0 as NSString).deletingLastPathComponent }
    }

    /// `file` in a package's .build/release or .build/debug, whichever was built last; symlinks resolved.
    static func newestBuild(of file: String, in package: String) -> String? {
        ["release", "debug"].compactMap { configuration -> (String, Date)? in
            let path = package + "/.build/" + configuration + "/" + file
            guard let a = try? FileManager.default.attributesOfItem(atPath: path), let date = a[.modificationDate] as? Date else { return nil }
            return ((path as NSString).resolvingSymlinksInPath, date)
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
    /// A library in the bundle is returned as its real path, and only if that lies inside
    /// the bundle's real path: a symbolic link — the library itself or a folder on the
    /// way — that leads outside the bundle is an error, because the sandbox grants the
    /// keyboard read access to its library's folder.
    public func library(for manifest: KeyboardManifest, allowProducts: Bool) throws(ManifestError) -> String? {
        // The manifest refuses absolute paths and "..", so the name itself stays inside the bundle.
        let inBundle = manifest.bundleDirectory + "/" + manifest.executable
        if Sys.fileExists(inBundle) {
            let fail = { (problem: String) in ManifestError(file: manifest.path, keyPath: "CFBundleExecutable", problem: problem) }
            guard let real = Self.realPath(inBundle), let bundle = Self.realPath(manifest.bundleDirectory) else {
                throw fail("names \(TerminalText.quoted(manifest.executable)), whose path cannot be resolved")
            }
            guard real.hasPrefix(bundle == "/" ? "/" : bundle + "/") else {
                throw fail("names \(TerminalText.quoted(manifest.executable)), which leads outside the bundle "
                           + "(through a symbolic link, to '\(TerminalText.line(real))'); the library must be inside it")
            }
            var st = stat()
            guard stat(real, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
                throw fail("names \(TerminalText.quoted(manifest.executable)), which is not a file")
            }
            return real
        }
        if allowProducts {
            let product = (productsDirectory as NSString).appendingPathComponent(manifest.executable)
            if FileManager.default.fileExists(atPath: product) { return product }
        }
        return nil
    }

    /// The canonical path (realpath(3)): absolute, with every symbolic link resolved.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A Swift package's built library for its manifest (a package made by `kbhost new`):
    /// .build/release or .build/debug beside the Info.plist, the newer one.
    public static func packageLibrary(for manifest: KeyboardManifest) -> String? {
        newestBuild(of: manifest.executable, in: manifest.bundleDirectory)
    }

    /// An author's keyboard: the library in its bundle, else its package's build.
    /// A library in the bundle that leads outside it is an error, as in `library(for:allowProducts:)`.
    public func authorLibrary(for manifest: KeyboardManifest) throws(ManifestError) -> String? {
        try library(for: manifest, allowProducts: false) ?? Installation.packageLibrary(for: manifest)
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
