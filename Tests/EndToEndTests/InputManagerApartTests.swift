import Foundation
import KBHost
import KBSystem
import KBText
import Testing

/// Keyboards apart from the user's data (`InputManager.Apart`, what `kbhost stress` and
/// `kbhost profile` run on): keyboards in no registry, the caller choosing each one, failover
/// that keeps what a keyboard committed and reports its `KeyboardFailure`, the warm pool,
/// pipelined taps, peak footprints and the processes started.
@Suite("Input manager (library): keyboards apart from the user's data", .serialized)
struct InputManagerApartTests {
    static let numberPad = "dev.kbhost.NumberPad"
    static let science = "dev.kbhost.Science"

    func manager(_ keyboards: [LoadableKeyboard], budget: Int = 48 << 20, warm: Int = 3) throws -> InputManager {
        try InputManager(apart: InputManager.Apart(keyboards: keyboards, needsInputModeSwitchKey: false),
                         installation: Fixtures.installation, budget: budget, warmKeyboards: warm)
    }

    func key(_ label: String, of m: InputManager) throws -> KeyboardLayout.Key {
        try #require(m.active?.layout.key(named: label), "\(label) on \(m.currentID)")
    }

    /// A fault keyboard built here (in no registry) types, then crashes on boom: the field keeps
    /// what it committed, lands on the system keyboard, and the failover names the crash.
    @Test func aKeyboardInNoRegistryFailsOverKeepingWhatItCommitted() throws {
        let crashy = Fixtures.fault("CrashOnKey")
        let m = try manager([crashy])
        defer { m.close() }
        #expect(m.active == nil && m.store == nil, "nothing shown until the caller chooses; no settings")
        m.activate(crashy.identifier)
        let session = try #require(m.active)
        #expect(m.tap(try key("1", of: m)) == .tapped)
        #expect(m.tap(try key("1", of: m)) == .tapped)
        #expect(m.tap(try key("boom", of: m)) == .failed)
        let failover = try #require(m.lastFailover)
        #expect(failover.keyboardID == crashy.identifier)
        #expect(failover.failure?.kind == "crash", "\(failover.reason)")
        #expect(failover.committed?.text == "11", "what it committed")
        #expect(failover.landedOn == SystemKeyboard.identifier && m.active == nil && m.currentID == SystemKeyboard.identifier)
        #expect(m.currentDocument.text == "11", "the document moves on from there")
        #expect(m.processIDs == [session.pid])
        // The caller chooses the next one: the same keyboard starts anew on that document.
        m.activate(crashy.identifier)
        #expect(m.active?.document.text == "11" && m.active !== session)
        m.close()
        #expect(m.processesLeft.isEmpty)
    }

    /// A memory kill reaches the front end with its `MemoryKill`; the peak is kept.
    @Test func aMemoryKillIsReportedWithItsDetectionOvershootAndPeak() throws {
        let spike = Fixtures.fault("SpikeOnKey")
        let m = try manager([spike], budget: 32 << 20)
        defer { m.close() }
        m.activate(spike.identifier)
        #expect(m.tap(try key("boom", of: m)) == .failed)
        let failure = try #require(m.lastFailover?.failure)
        guard case .memoryExceeded(let kill) = failure.reason else {
            Issue.record("not a memory kill: \(failure)")
            return
        }
        #expect(failure.kind == "memory")
        #expect(kill.budget == 32 << 20 && kill.overshoot > 0 && kill.peak > 32 << 20 && kill.detectionNanoseconds > 0)
        #expect(m.peakFootprints[spike.identifier] == kill.peak, "the kill's peak is the keyboard's")
    }

    /// A keyboard that cannot start committed nothing: `committed` is nil, the document unchanged.
    @Test func aKeyboardThatFailsToStartCommittedNothing() throws {
        let numberPad = try Fixtures.sample(Self.numberPad)
        var missing = numberPad
        missing.manifest.bundleIdentifier = "dev.kbhost.test.Missing"
        missing.libraryPath = Fixtures.installation.productsDirectory + "/libNoSuchKeyboard.so"
        let m = try InputManager(apart: InputManager.Apart(keyboards: [numberPad, missing]), installation: Fixtures.installation,
                                 text: "ab", budget: 48 << 20)
        defer { m.close() }
        m.activate(missing.identifier)
        let failover = try #require(m.lastFailover)
        #expect(failover.keyboardID == missing.identifier && failover.committed == nil, "\(failover.reason)")
        #expect(failover.failure?.kind == "load", "the launch's own failure: \(failover.reason)")
        #expect(m.active == nil && m.currentDocument.text == "ab")
        m.activate(Self.numberPad)  // the control: a keyboard that starts
        #expect(m.active?.document.text == "ab")
    }

    /// The warm pool: a keyboard switched back to is the same process, the document moves with
    /// the user, and activating the current keyboard again keeps what was typed since.
    @Test func switchingKeepsWarmSessionsAndTheDocumentMoves() throws {
        let m = try manager([try Fixtures.sample(Self.numberPad), try Fixtures.sample(Self.science)], warm: 2)
        defer { m.close() }
        m.activate(Self.numberPad)
        let pad = try #require(m.active)
        #expect(m.tap(try key("4", of: m)) == .tapped)
        m.activate(Self.numberPad)
        #expect(m.active === pad && m.currentDocument.text == "4", "the current keyboard again: the text typed stays")
        m.activate(Self.science)
        #expect(m.active !== pad && !pad.isVisible)
        let character = try #require(m.active?.layout.rows.joined().first { $0.role == .character })
        #expect(m.tap(character) == .tapped)
        let typed = m.currentDocument.text
        #expect(typed.hasPrefix("4") && typed.count > 1, "\(typed)")
        try m.globe()
        m.follow(current: Self.numberPad)
        #expect(m.currentID == Self.science, "the globe key and the daemon's news switch nothing: the caller chooses")
        m.activate(Self.numberPad)
        #expect(m.active === pad && pad.isVisible, "the warm session")
        #expect(m.currentDocument.text == typed)
        #expect(m.processIDs.count == 2)
        m.close()
        #expect(m.peakFootprints.keys.sorted() == [Self.numberPad, Self.science].sorted(), "\(m.peakFootprints)")
        #expect(m.peakFootprints.values.allSatisfy { $0 > 0 })
        #expect(m.processesLeft.isEmpty)
    }

    /// Pipelined taps count what the keyboard acknowledged, up to a failure.
    @Test func pipelinedTapsCountTheAcknowledgedOnesUpToAFailure() throws {
        let crashy = Fixtures.fault("CrashOnKey")
        let m = try manager([crashy])
        defer { m.close() }
        m.activate(crashy.identifier)
        let one = try key("1", of: m), boom = try key("boom", of: m)
        var acknowledged = 0
        #expect(m.tapAll(Array(repeating: one, count: 32), acknowledged: &acknowledged) == .tapped)
        #expect(acknowledged == 32 && m.currentDocument.text == String(repeating: "1", count: 32))
        acknowledged = 0
        #expect(m.tapAll([one, one, boom, one], acknowledged: &acknowledged) == .failed)
        #expect(acknowledged == 2, "the two before the crash")
        #expect(m.lastFailover?.committed?.text == String(repeating: "1", count: 34))
        #expect(m.lastFailover?.failure?.kind == "crash")
    }

    /// The same crash as the user's keyboard is recorded in the settings and lands on the
    /// keyboard used before (the control); the same keyboard apart writes nothing, lands on the
    /// system keyboard, and both report the crash in full through `lastFailover`.
    @Test func aFailureApartRecordsNothingWhereTheUsersKeyboardIsRecorded() throws {
        let (w, registry, store) = try InputManagerLibraryTests().world()
        defer { withExtendedLifetime(w) {} }
        let (user, _) = try InputManagerLibraryTests().manager(registry, store, enabled: [SystemKeyboard.identifier,
            "dev.kbhost.NumberPad", "dev.example.Crashy"], current: "dev.kbhost.NumberPad")
        defer { user.close() }
        try user.globe()
        #expect(user.currentID == "dev.example.Crashy")
        #expect(user.tap("boom") == .failed)
        #expect(user.lastFailover?.failure?.kind == "crash" && user.lastFailover?.landedOn == "dev.kbhost.NumberPad")
        #expect(try store.load().failures["dev.example.Crashy"]?.count == 1, "the user's keyboard: recorded")
        let settings = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let crashy = try registry.loadable("dev.example.Crashy")
        let apart = try manager([try registry.loadable("dev.kbhost.NumberPad"), crashy])
        defer { apart.close() }
        apart.activate("dev.kbhost.NumberPad")
        apart.activate(crashy.identifier)
        #expect(apart.tap("boom") == .failed)
        #expect(apart.lastFailover?.failure?.kind == "crash")
        #expect(apart.lastFailover?.landedOn == SystemKeyboard.identifier, "apart: the caller chooses the next keyboard")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == settings, "apart: the settings untouched")
    }
}
