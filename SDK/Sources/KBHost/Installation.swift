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

    /// Finds a manifest's library: inside its bundle, or (for bundled
    /// samples) among the build products.
    public func resolveLibrary(for manifest: KeyboardManifest, allowProducts: Bool) -> String? {
        // The manifest refuses absolute paths and "..", so this stays inside the bundle.
        let inBundle = manifest.bundleDirectory + "/" + manifest.executable
        if Sys.fileExists(inBundle) { return inBundle }
        if allowProducts {
            let product = (productsDirectory as NSString).appendingPathComponent(manifest.executable)
            if FileManager.default.fileExists(atPath: product) { return product }
        }
        return nil
    }

    /// A Swift package's built library for its manifest (a package made by `kbhost new`):
    /// .build/release or .build/debug beside the Info.plist, the newer one.
    public static func packageLibrary(for manifest: KeyboardManifest) -> String? {
        newestBuild(of: manifest.executable, in: manifest.bundleDirectory)
    }

    /// An author's keyboard: the library in its bundle, else its package's build.
    public func authorLibrary(for manifest: KeyboardManifest) -> String? {
        resolveLibrary(for: manifest, allowProducts: false) ?? Installation.packageLibrary(for: manifest)
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
            guard let library = resolveLibrary(for: manifest, allowProducts: true) else {
                throw LookupError.libraryMissing(manifest: plist, executable: manifest.executable, searched: productsDirectory)
            }
            result.append(LoadableKeyboard(manifest: manifest, libraryPath: library))
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
