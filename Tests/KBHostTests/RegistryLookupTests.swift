@testable import KBHost
import Testing

/// KeyboardRegistry is the one place that finds a keyboard by identifier; Installation's
/// `keyboard(_:)` forwards to it (EndToEndTests checks that on the real samples).
@Suite("Finding a loadable keyboard in a registry")
struct RegistryLookupTests {
    func entry(_ id: String) -> KeyboardEntry {
        KeyboardEntry(manifest: KeyboardManifest(path: "/k/\(id)/Info.plist", bundleIdentifier: id, displayName: id,
                                                 executable: "lib\(id).so", principalClass: "K"),
                      libraryPath: "/k/\(id)/lib\(id).so", source: "bundled")
    }

    @Test func aKeyboardWithALibraryIsFound() throws {
        let registry = try KeyboardRegistry(keyboards: [entry("dev.example.A"), entry("dev.example.B")])
        let found = try registry.loadable("dev.example.B")
        #expect(found == LoadableKeyboard(manifest: entry("dev.example.B").manifest, libraryPath: "/k/dev.example.B/libdev.example.B.so"))
    }

    @Test func anUnknownOneNamesTheLoadableOnes() throws {
        let registry = try KeyboardRegistry(keyboards: [entry("dev.example.A"), entry("dev.example.B")])
        #expect(throws: RegistryError.unknown("dev.example.Nope", known: ["dev.example.A", "dev.example.B"])) {
            try registry.loadable("dev.example.Nope")
        }
    }

    @Test func theSystemKeyboardHasNothingToLoad() throws {
        let registry = try KeyboardRegistry(keyboards: [entry("dev.example.A")])
        #expect(registry.entry(SystemKeyboard.identifier) != nil)
        #expect(throws: RegistryError.unknown(SystemKeyboard.identifier, known: ["dev.example.A"])) {
            try registry.loadable(SystemKeyboard.identifier)
        }
    }
}
