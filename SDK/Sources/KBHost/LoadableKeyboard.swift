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
