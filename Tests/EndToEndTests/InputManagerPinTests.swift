import Foundation
import KBHost
import KBText
import Testing

/// A field pinned to one keyboard (`InputManager.Pin`, what `kbhost type` runs on): the
/// keyboard serves it whatever the settings say, and the settings are never written.
/// Each test has its control: the same thing unpinned does write them, or does switch.
@Suite("Input manager (library): a field pinned to one keyboard", .serialized)
struct InputManagerPinTests {
    /// The library tests' world (the bundled keyboards and Crashy, which crashes on "boom"), with
    /// the Calculator current and NumberPad not enabled.
    func world() throws -> (World, KeyboardRegistry, SettingsStore) {
        let (w, registry, store) = try InputManagerLibraryTests().world()
        try store.update { s in
            s.enabled = [SystemKeyboard.identifier, "dev.kbhost.Calculator", "dev.example.Crashy"]
            s.current = "dev.kbhost.Calculator"
        }
        return (w, registry, store)
    }

    func manager(_ registry: KeyboardRegistry, _ store: SettingsStore, pin: String?, field: FieldContext = FieldContext(),
                 text: String = "") throws -> InputManager {
        let m = try InputManager(installation: Fixtures.installation, store: store, registry: registry, field: field, text: text,
                                 budget: 48 << 20, pin: pin.map { InputManager.Pin(keyboard: $0) },
                                 launching: pin == nil ? .person : .script)
        m.start()
        return m
    }

    func settingsFile(_ store: SettingsStore) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: store.directory + "/settings.json"))
    }

    @Test func aPinnedKeyboardServesTheFieldAndItsGlobeKeyWritesNothing() throws {
        let (w, registry, store) = try world()
        defer { withExtendedLifetime(w) {} }  // the world (its bundles) outlives the keyboards
        let before = try settingsFile(store)
        // NumberPad is not enabled, and the settings' current keyboard is the Calculator.
        let m = try manager(registry, store, pin: "dev.kbhost.NumberPad")
        defer { m.close() }
        #expect(m.currentID == "dev.kbhost.NumberPad")
        let session = try #require(m.active)
        for token in ["4", "2", "globe", "7"] { try m.perform(try TapStep(token)) }
        #expect(m.currentDocument.text == "427")
        #expect(session.events.map(\.name).contains("advanceToNextInputMode"), "the keyboard asked for the next input mode")
        #expect(m.currentID == "dev.kbhost.NumberPad", "and stayed: the field is pinned")
        m.follow(current: "dev.kbhost.Calculator")
        m.focus(FieldContext(), text: TextBuffer())
        #expect(m.currentID == "dev.kbhost.NumberPad", "the daemon's news and a new focus do not move it either")
        try m.finish()
        #expect(!session.isVisible)
        #expect(try settingsFile(store) == before, "the settings are untouched")
        // The control: unpinned, the same globe key switches and writes the settings.
        try store.update { $0.enabled.append("dev.kbhost.NumberPad"); $0.current = "dev.kbhost.NumberPad" }
        let written = try settingsFile(store)
        let control = try manager(registry, store, pin: nil)
        defer { control.close() }
        #expect(control.currentID == "dev.kbhost.NumberPad")
        try control.perform(try TapStep("globe"))
        #expect(control.currentID != "dev.kbhost.NumberPad")
        #expect(try settingsFile(store) != written)
    }

    @Test func aPinnedKeyboardThatFailsIsNotRecordedAndItsTextStays() throws {
        let (w, registry, store) = try world()
        defer { withExtendedLifetime(w) {} }
        let before = try settingsFile(store)
        let m = try manager(registry, store, pin: "dev.example.Crashy", text: "a")
        defer { m.close() }
        let session = try #require(m.active)
        try m.perform(try TapStep("1"))
        #expect(throws: SessionError.self) { try m.perform(try TapStep("boom")) }
        #expect(session.failure != nil)
        #expect(!Fixtures.processExists(session.pid), "its process is ended")
        #expect(m.currentID == SystemKeyboard.identifier, "the field lands on the system keyboard")
        #expect(m.currentDocument.text == "a1", "what it committed stays")
        #expect(m.lastFailure?.id == "dev.example.Crashy")
        #expect(m.lastFailure?.reason.contains("ended by signal") == true, "\(m.lastFailure?.reason ?? "")")
        #expect(try settingsFile(store) == before, "no failure recorded: the settings are untouched")
        m.focus(FieldContext(), text: TextBuffer())
        #expect(m.currentID == SystemKeyboard.identifier, "a failed pinned keyboard is not started again on the next focus")
        // The control: unpinned, the same failure is recorded.
        try store.update { $0.current = "dev.example.Crashy" }
        let control = try manager(registry, store, pin: nil)
        defer { control.close() }
        #expect(control.currentID == "dev.example.Crashy")
        #expect(throws: SessionError.self) { try control.perform(try TapStep("boom")) }
        #expect(try store.load().failures["dev.example.Crashy"]?.count == 1)
    }

    @Test func aNameNoKeyHasIsThrownAndNothingFallsBack() throws {
        let (w, registry, store) = try world()
        defer { withExtendedLifetime(w) {} }
        let m = try manager(registry, store, pin: "dev.kbhost.NumberPad")
        defer { m.close() }
        #expect {
            try m.perform(try TapStep("no-such-key"))
        } throws: { error in
            guard case SessionError.noSuchKey(let name, _, _) = error else { return false }
            return name == "no-such-key"
        }
        #expect(m.currentID == "dev.kbhost.NumberPad")
        #expect(m.lastFailure == nil)
        try m.perform(try TapStep("5"))
        #expect(m.currentDocument.text == "5")
    }

    @Test func aSecureFieldGetsOnlyTheSystemKeyboardEvenPinned() throws {
        let (w, registry, store) = try world()
        defer { withExtendedLifetime(w) {} }
        var secure = FieldContext()
        secure.traits.isSecureTextEntry = true
        let m = try manager(registry, store, pin: "dev.kbhost.NumberPad", field: secure)
        defer { m.close() }
        #expect(m.currentID == SystemKeyboard.identifier, "no pin puts a third-party keyboard where passwords are typed")
        #expect(m.active == nil)
        try m.perform(try TapStep("s"))
        #expect(m.currentDocument.text == "s")
        // The control: the same pin in an ordinary field of a type the settings' rules would refuse it
        // (a phone pad gets only the system keyboard unpinned) is served by the pinned keyboard.
        var phonePad = FieldContext()
        phonePad.traits.keyboardType = .phonePad
        let pinned = try manager(registry, store, pin: "dev.kbhost.NumberPad", field: phonePad)
        defer { pinned.close() }
        #expect(pinned.currentID == "dev.kbhost.NumberPad")
        #expect(pinned.active != nil)
    }

    /// The end of a script only hides the keyboard: the document goes to the report as the
    /// script left it. A blur first commits marked text for the app (the keyboard hears it).
    @Test func finishOnlyHidesTheKeyboardWhereBlurCommitsMarkedTextFirst() throws {
        let (w, registry, store) = try world()
        defer { withExtendedLifetime(w) {} }
        for end in ["finish", "blur"] {
            let m = try manager(registry, store, pin: "dev.kbhost.Kana")
            defer { m.close() }
            for token in ["k", "a"] { try m.perform(try TapStep(token)) }
            #expect(m.currentDocument.buffer.markedText == "か")
            let session = try #require(m.active)
            let before = session.events.count
            if end == "finish" { try m.finish() } else { m.blur() }
            #expect(!session.isVisible)
            let after = session.events.dropFirst(before).map(\.name)
            if end == "finish" {
                #expect(after == ["viewWillDisappear", "viewDidDisappear"], "\(after)")
            } else {
                #expect(after.first == "textWillChange" && after.contains("textDidChange"), "\(after)")
                #expect(after.suffix(2) == ["viewWillDisappear", "viewDidDisappear"], "\(after)")
            }
            #expect(m.currentDocument.text == "か")
        }
    }

    /// `kbhost type` runs on a pinned field: a keyboard that crashes there, or taps its globe key,
    /// leaves the settings as they were (a session in `attach` would record the failure: the
    /// unpinned control above), and the committed text is still printed (exit 4).
    @Test func kbhostTypeWritesNothingToTheSettings() throws {
        let (w, _, store) = try world()
        let env = ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? "", "KBHOST_KEYBOARDS": w.root + "/bundles"]
        let before = try settingsFile(store)
        let crashed = try w.run(["type", "--keyboard", "dev.example.Crashy", "1", "boom", "2"], extraEnvironment: env)
        #expect(crashed.status == 4)
        #expect(crashed.out == "1\n")
        #expect(crashed.err.contains("failed during key 'boom': ended by signal"), "\(crashed.err)")
        let globe = try w.run(["type", "--keyboard", "dev.kbhost.NumberPad", "4", "globe", "2"], extraEnvironment: env)
        #expect(globe.status == 0, "\(globe.err)")
        #expect(globe.out == "42\n")
        #expect(try settingsFile(store) == before, "no failure recorded, no current keyboard changed")
        #expect(try w.run(["current"], extraEnvironment: env).out == "dev.kbhost.Calculator\n")
    }
}
