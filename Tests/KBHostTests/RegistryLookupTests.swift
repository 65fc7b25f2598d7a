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

@Suite("Finding a keyboard by what a person typed")
struct RegistryResolveTests {
    func entry(_ id: String, _ name: String) -> KeyboardEntry {
        KeyboardEntry(manifest: KeyboardManifest(path: "/k/\(id)/Info.plist", bundleIdentifier: id, displayName: name,
                                                 executable: "lib.so", principalClass: "K"),
                      libraryPath: "/k/\(id)/lib.so", source: "bundled")
    }

    var registry: KeyboardRegistry {
        get throws {
            try KeyboardRegistry(keyboards: [entry("dev.example.Calc", "Calculator"), entry("dev.example.Pad", "Number Pad"),
                                             entry("dev.example.PadToo", "number pad")])
        }
    }

    @Test func identifiersThenNamesOnlyOneKeyboardHas() throws {
        let r = try registry
        #expect(try r.resolve("dev.example.Calc").identifier == "dev.example.Calc")
        #expect(try r.resolve("DEV.EXAMPLE.CALC").identifier == "dev.example.Calc")
        #expect(try r.resolve("calculator").identifier == "dev.example.Calc")
        #expect(try r.resolve("system").identifier == SystemKeyboard.identifier)
        #expect(throws: RegistryError.ambiguous("Number Pad", candidates: ["dev.example.Pad", "dev.example.PadToo"])) {
            try r.resolve("Number Pad")
        }
    }

    @Test func suggestionsAreTheClosest() throws {
        let r = try registry
        #expect(r.suggestions(for: "calculater").map(\.identifier) == ["dev.example.Calc"])
        #expect(r.suggestions(for: "numberpad").map(\.identifier) == ["dev.example.Pad", "dev.example.PadToo"])
        #expect(r.suggestions(for: "dev.example.Clac").map(\.identifier) == ["dev.example.Calc"])
        #expect(r.suggestions(for: "xyz").isEmpty)
        #expect(r.suggestions(for: "calc").map(\.identifier) == ["dev.example.Calc"])
        #expect(EditDistance.between("kitten", "sitting", limit: 10) == 3)
        #expect(EditDistance.between("alhpa", "alpha", limit: 10) == 1, "a swap is one edit")
        #expect(EditDistance.between("", "abc", limit: 10) == 3)
        #expect(EditDistance.between("abcdef", "uvwxyz", limit: 2) == 2)
        #expect(EditDistance.closest(to: "lsit", among: ["list", "set", "next"]) == ["list"])
        #expect(EditDistance.closest(to: "pro", among: ["profile", "protection", "order"]) == ["profile", "protection"])
    }
}
