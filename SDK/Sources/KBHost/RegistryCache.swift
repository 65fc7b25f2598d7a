public import Foundation
import KBSystem

/// One registry for a long-lived process (the daemon), discovered again only when a file it was
/// made from changes: a manifest written, added, renamed or removed, a keyboards folder changed,
/// a library built. Asking costs a `lstat` per manifest and folder, not a parse of every manifest.
public final class RegistryCache {
    public let installation: Installation
    public let home: String
    private let environment: [String: String]
    private var cached: (registry: KeyboardRegistry, stamp: [String: [Int]])?
    /// A file modified this recently (seconds) makes a stamp untrustworthy.
    static let racySeconds = 2
    /// How many times the registry was discovered (read anew from the manifests).
    public private(set) var discoveries = 0

    public init(installation: Installation, home: String,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.installation = installation
        self.home = home
        self.environment = environment
    }

    /// The registry as the files are now; discovered again only if they changed since the last call.
    public func registry() throws(RegistryError) -> KeyboardRegistry {
        let stamp = currentStamp()
        if let cached, cached.stamp == stamp { return cached.registry }
        let registry = try KeyboardRegistry.discover(installation: installation, home: home, environment: environment)
        discoveries += 1
        // Stamped before discovery: a change made during it is seen on the next call, never lost. A file
        // written in the last seconds may be written again within the file system's time granularity
        // (a few ms) with the same size, and look unchanged; as git does with racily clean files, such a
        // stamp is not trusted: the next call reads the manifests again.
        let now = Int(Date().timeIntervalSince1970)
        let racy = stamp.values.contains { $0.count > 2 && $0[2] >= now - Self.racySeconds }
        cached = racy ? nil : (registry, stamp)
        return registry
    }

    /// The stamps of everything discovery reads to decide what is there: the folders it lists,
    /// each manifest and its bundle folder, and where an author's package keeps its library.
    private func currentStamp() -> [String: [Int]] {
        let (manifests, folders) = KeyboardRegistry.manifestCandidates(installation: installation, home: home,
                                                                       environment: environment)
        var paths = folders
        for candidate in manifests {
            let bundle = (candidate.plist as NSString).deletingLastPathComponent
            paths += [candidate.plist, bundle]
            if candidate.allowPackageBuild { paths += [bundle + "/.build/debug", bundle + "/.build/release"] }
        }
        return Dictionary(paths.map { ($0, Sys.fileStamp($0)) }, uniquingKeysWith: { first, _ in first })
    }
}
