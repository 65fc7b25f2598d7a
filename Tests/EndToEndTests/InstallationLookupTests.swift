import KBHost
import Testing

/// `Installation.keyboard(_:)` is a forwarder to KeyboardRegistry's lookup over the
/// bundled samples: the same keyboard, the same message for an unknown one.
@Suite("Installation.keyboard forwards to KeyboardRegistry")
struct InstallationLookupTests {
    @Test func aBundledSampleIsTheRegistrysOne() throws {
        let registry = try KeyboardRegistry.bundled(Fixtures.installation)
        #expect(try Fixtures.installation.keyboard("dev.kbhost.NumberPad") == registry.loadable("dev.kbhost.NumberPad"))
        #expect(registry.keyboards.dropFirst().allSatisfy { $0.source == "bundled" && $0.loadable != nil })
    }

    @Test func anUnknownKeyboardNamesTheBundledOnes() throws {
        let bundled = try Fixtures.installation.bundledKeyboards().map(\.identifier)
        let error = #expect(throws: RegistryError.self) { try Fixtures.installation.keyboard("dev.kbhost.Nope") }
        #expect(error?.description == "no keyboard dev.kbhost.Nope; known keyboards: \(bundled.joined(separator: ", "))")
        #expect(throws: RegistryError.self) { try Fixtures.installation.keyboard(SystemKeyboard.identifier) }
    }
}
