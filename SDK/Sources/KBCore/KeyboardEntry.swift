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

    public init(manifest: KeyboardManifest, libraryPath: String?, source: String) {
        self.manifest = manifest
        self.libraryPath = libraryPath
        self.source = source
    }

    public var identifier: String { manifest.bundleIdentifier }
    public var isSystem: Bool { identifier == SystemKeyboard.identifier }
    public var loadable: LoadableKeyboard? { libraryPath.map { LoadableKeyboard(manifest: manifest, libraryPath: $0) } }
}

/// A keyboard that can be loaded: its manifest and its plugin library.
public struct LoadableKeyboard: Hashable, Sendable {
    public var manifest: KeyboardManifest
    public var libraryPath: String

    public init(manifest: KeyboardManifest, libraryPath: String) {
        self.manifest = manifest
        self.libraryPath = libraryPath
    }

    public var identifier: String { manifest.bundleIdentifier }
}
