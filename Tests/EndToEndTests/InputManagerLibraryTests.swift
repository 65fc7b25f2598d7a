import Foundation
import Glibc
import KBHost
import KBSystem
import KBText
import Testing

/// The input manager as a library: what `attach` and the IBus engine front,
/// driven here without a terminal, through real extension processes.
@Suite("Input manager (library): globe key, failover, fields", .serialized)
struct InputManagerLibraryTests {
    /// A world with the bundled keyboards and a keyboard that crashes on its "boom" key.
    func world() throws -> (World, KeyboardRegistry, SettingsStore) {
        let w = try World()
        try w.makeBundle(id: "dev.example.Crashy", library: "libFaultKeyboards.so", principal: "CrashOnKey", name: "Crashy")
        let registry = try KeyboardRegistry.discover(installation: Fixtures.installation, home: w.home,
                                                     environment: ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? "",
                                                                   "KBHOST_KEYBOARDS": w.root + "/bundles"])
        return (w, registry, SettingsStore(directory: w.home))
    }

    func manager(_ registry: KeyboardRegistry, _ store: SettingsStore, enabled: [String], current: String,
                 field: FieldContext = FieldContext(), text: String = "") throws -> (InputManager, Recorder) {
        try store.update { s in
            s.enabled = enabled
            s.current = current
        }
        let m = try InputManager(installation: Fixtures.installation, store: store, registry: registry, field: field,
                                 text: text, budget: 48 << 20)
        let recorder = Recorder()
        m.onEvent = { recorder.events.append($0) }
        m.onSettingsChanged = { recorder.notified += 1 }
        m.start()
        return (m, recorder)
    }

    final class Recorder {
        var events: [InputManager.Event] = []
        var notified = 0
    }

    @Test func theGlobeKeyWalksTheEnabledKeyboardsAndWritesTheSettings() throws {
        let (w, registry, store) = try world()
        defer { withExtendedLifetime(w) {} }  // the world (its bundles) outlives the keyboards
        let (m, r) = try manager(registry, store, enabled: [SystemKeyboard.identifier, "dev.kbhost.NumberPad", "dev.kbhost.Calculator"],
                                 current: "dev.kbhost.NumberPad")
        defer { m.close() }
        #expect(m.currentID == "dev.kbhost.NumberPad")
        #expect(m.tap("4") == .tapped)
        try m.globe()
        #expect(m.currentID == "dev.kbhost.Calculator")
        #expect(try store.load().current == "dev.kbhost.Calculator", "the globe key is a settings change")
        #expect(r.notified == 1, "the front end is told, so that it can tell a daemon")
        #expect(m.tap("2") == .tapped)
        #expect(m.tap("=") == .tapped)  // the calculator inserts the result
        #expect(m.currentDocument.text == "42", "one document, typed by two keyboards")
        try m.globe()
        #expect(m.currentID == SystemKeyboard.identifier)
        #expect(m.active == nil)
        m.tap("!")
        #expect(m.currentDocument.text == "42!", "the system keyboard types the character itself")
        let switches = r.events.filter { if case .edited = $0 { false } else { true } }
        #expect(switches == [.currentChanged("dev.kbhost.Calculator"), .currentChanged(SystemKeyboard.identifier)])
        // Each keyboard's edits are reported as they happen (a front end whose app holds the text replays them).
        let edits = r.events.compactMap { if case .edited(let edit, _, let after) = $0 { (edit, after.text) } else { nil } }
        #expect(edits.map(\.1) == ["4", "42"])
        #expect(m.tap("no-such-key") == .tapped, "the system keyboard has every key")
        try m.globe()
        #expect(m.tap("no-such-key") == .noSuchKey)
    }

    @Test func aKeyboardThatFailsLeavesItsTextAndHandsOverToThePreviousOne() throws {
        let (w, registry, store) = try world()
        defer { withExtendedLifetime(w) {} }  // the world (its bundles) outlives the keyboards
        let (m, r) = try manager(registry, store, enabled: [SystemKeyboard.identifier, "dev.kbhost.NumberPad", "dev.example.Crashy"],
                                 current: "dev.kbhost.NumberPad")
        defer { m.close() }
        m.tap("7")
        try m.globe()
        #expect(m.currentID == "dev.example.Crashy")
        let crashed = try #require(m.active?.pid)
        #expect(m.tap("1") == .tapped)
        #expect(m.tap("boom") == .failed)
        #expect(m.currentID == "dev.kbhost.NumberPad", "back on the keyboard used before")
        #expect(m.currentDocument.text == "71", "what the failed keyboard committed stays")
        #expect(!Fixtures.processExists(crashed))
        guard case .keyboardFailed(let id, let reason, let aside, let landed)? = r.events.last else {
            Issue.record("no failure event: \(r.events)")
            return
        }
        #expect(id == "dev.example.Crashy" && landed == "dev.kbhost.NumberPad" && !aside)
        #expect(reason.contains("ended by signal"), "\(reason)")
        #expect(try store.load().failures["dev.example.Crashy"]?.count == 1, "the failure is recorded")
        #expect(m.tap("8") == .tapped, "and the user types on")
        #expect(m.currentDocument.text == "718")
    }

    @Test func aKeyboardThatKeepsFailingIsSetAside() throws {
        let (w, registry, store) = try world()
        defer { withExtendedLifetime(w) {} }  // the world (its bundles) outlives the keyboards
        let (m, r) = try manager(registry, store, enabled: [SystemKeyboard.identifier, "dev.example.Crashy"], current: "dev.example.Crashy")
        defer { m.close() }
        for _ in 0..<KeyboardSettings.setAsideAfter {
            m.activate("dev.example.Crashy")
            #expect(m.tap("boom") == .failed)
        }
        guard case .keyboardFailed(_, _, let aside, let landed)? = r.events.last else {
            Issue.record("no failure event: \(r.events)")
            return
        }
        #expect(aside)
        #expect(landed == SystemKeyboard.identifier)
        #expect(try store.load().failures["dev.example.Crashy"]?.setAside == true)
    }

    @Test func aSecureFieldGetsOnlyTheSystemKeyboardAndTheDaemonCannotChangeThat() throws {
        let (w, registry, store) = try world()
        defer { withExtendedLifetime(w) {} }  // the world (its bundles) outlives the keyboards
        var field = FieldContext()
        field.traits.isSecureTextEntry = true
        let (m, _) = try manager(registry, store, enabled: [SystemKeyboard.identifier, "dev.kbhost.NumberPad"],
                                 current: "dev.kbhost.NumberPad", field: field)
        defer { m.close() }
        #expect(m.currentID == SystemKeyboard.identifier, "no third-party keyboard ever sees a password")
        #expect(m.active == nil)
        m.follow(current: "dev.kbhost.NumberPad")
        #expect(m.currentID == SystemKeyboard.identifier)
        m.tap("s")
        #expect(m.currentDocument.text == "s")
    }

    /// Open access revoked while the keyboard runs: its process ends, and the
    /// keyboard starts again without the network (sandboxes are fixed at launch).
    @Test func aRevokedGrantReachesTheRunningKeyboard() throws {
        let (w, registry, store) = try world()
        defer { withExtendedLifetime(w) {} }
        let listeners = try Listeners()
        try store.update { $0.fullAccess = ["dev.kbhost.Hostile"] }
        let (m, _) = try manager(registry, store, enabled: [SystemKeyboard.identifier, "dev.kbhost.Hostile"],
                                 current: "dev.kbhost.Hostile", text: "port \(listeners.port) " + (UserNetwork.available ? "gateway " : ""))
        defer { m.close() }
        let before = try #require(m.active?.pid)
        m.tap("tcp")
        #expect(m.currentDocument.text.contains("tcp: allowed"), "\(m.currentDocument.text)")
        try store.update { $0.fullAccess = [] }
        m.settingsChanged()
        let after = try #require(m.active?.pid)
        #expect(after != before, "the keyboard was started again")
        #expect(!Fixtures.processExists(before), "its old process, with the network, is gone")
        m.tap("tcp")
        #expect(m.currentDocument.text.hasSuffix("tcp: denied: Operation not permitted (errno 1)\n"), "\(m.currentDocument.text)")
        #expect(m.currentDocument.text.contains("tcp: allowed"), "what it typed before stays")
    }

    @Test func theDaemonsNewsIsFollowed() throws {
        let (w, registry, store) = try world()
        defer { withExtendedLifetime(w) {} }  // the world (its bundles) outlives the keyboards
        let (m, r) = try manager(registry, store, enabled: [SystemKeyboard.identifier, "dev.kbhost.NumberPad"], current: SystemKeyboard.identifier)
        defer { m.close() }
        m.follow(current: "dev.kbhost.NumberPad")
        #expect(m.currentID == "dev.kbhost.NumberPad")
        #expect(m.active != nil)
        #expect(r.notified == 0, "news from the daemon is not written back")
        m.follow(current: "dev.example.NoSuchKeyboard")
        #expect(m.currentID == SystemKeyboard.identifier)
    }
}
