import KBCore

/// A keyboard entry made in code: a manifest and a library path, no files.
func entry(_ id: String, asciiCapable: Bool = false) -> KeyboardEntry {
    KeyboardEntry(manifest: KeyboardManifest(path: "/k/\(id)/Info.plist", bundleIdentifier: id, displayName: id,
                                             executable: "libK.so", principalClass: "K", isASCIICapable: asciiCapable),
                  libraryPath: "/k/\(id)/libK.so", source: "test")
}

/// Settings with these keyboards enabled after the system keyboard, `current` current.
func settings(_ enabled: [String], current: String) -> KeyboardSettings {
    KeyboardSettings(version: KeyboardSettings.currentVersion, enabled: enabled, current: current, fullAccess: [])
}
