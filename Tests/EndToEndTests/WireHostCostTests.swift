import Foundation
import KBHost
import KBText
import Testing

/// The time the host spends on one call's edits is bounded as their count and memory are
/// (issue 14, the wire): the host edits the whole document, and an edit of non-ASCII text
/// takes it time in proportion to the document's length, so 64,000 small edits in one call
/// to a document of 200,000 characters held the host for minutes, where the keyboard's own
/// side (its mirror is a window) took a fraction of a second.
@Suite("The wire: one call's edits cost the host a bounded time, whatever the document")
struct WireEditWorkTests {
    static let large = String(repeating: "é", count: 200_000)

    @Test func manyEditsToALargeDocumentAreRefusedBeforeAnyIsApplied() throws {
        let session = try Fixtures.session(Fixtures.fault("EditFloodOnKey"), text: Self.large, eventMs: 20_000)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: SessionError.self) { try session.tap("boom") }
        let took = clock.now - start
        let failure = try #require(session.failure)
        #expect(failure.kind == "limit", "\(failure)")
        // Refused by its estimate (edits × the document's length), or, on a machine loaded enough that
        // the check of the first few hundred takes 250 ms, by the time it took: either way before any applies.
        #expect(failure.description.contains("64000 edits in one call to a document of 200000 UTF-16 code units")
                || failure.description.contains("made 64000 edits in one call whose check took the host more than 250 ms"), "\(failure)")
        #expect(failure.description.contains("(KBH_MAX_CALL_EDIT_WORK)"), "\(failure)")
        #expect(session.document.text == Self.large, "none of the edits was applied")
        #expect(took < .seconds(8), "the tap took \(took)")
    }

    @Test func theSameEditsToAShortDocumentAreApplied() throws {
        let session = try Fixtures.session(Fixtures.fault("EditFloodOnKey"), text: "kept é", eventMs: 20_000)
        try session.tap("boom")
        try session.tap("1")
        #expect(session.failure == nil)
        #expect(session.document.text == "kept é1")
    }

    @Test func oneLargeEditToALargeDocumentIsApplied() throws {
        let session = try Fixtures.session(Fixtures.fault("BigInsertOnKey"), text: Self.large, eventMs: 10_000)
        try session.tap("boom")
        try session.tap("1")
        #expect(session.failure == nil)
        #expect(session.document.buffer.utf16Count == 200_000 + (2 << 20) + 1)
    }
}

/// A keyboard with open access that sets the pasteboard 20,000 times in one call: the host
/// wrote its pasteboard file (temporary file, fsync, rename, fsync of the folder) once for
/// each, about a millisecond apiece here and far more on a slow disk, before the next key.
@Suite("The wire: a call that sets the pasteboard many times costs the host one write")
struct WirePasteboardTests {
    @Test func theLastOfManyPasteboardsInOneCallIsWrittenOnce() throws {
        let home = NSTemporaryDirectory() + "kbhost-pasteboard-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        var keyboard = Fixtures.fault("PasteboardFloodOnKey")
        keyboard.manifest.requestsOpenAccess = true
        var config = Fixtures.configuration
        config.eventDeadlineMilliseconds = 20_000
        let session = try KeyboardSession(keyboard: keyboard, document: TextDocument(text: "kept"), configuration: config,
                                          hasFullAccess: true, access: KeyboardAccess(home: home))
        try session.appear()
        let clock = ContinuousClock()
        let start = clock.now
        try session.tap("boom")
        let took = clock.now - start
        #expect(session.failure == nil)
        #expect(try String(contentsOfFile: home + "/pasteboard", encoding: .utf8) == "copy 19999")
        #expect(session.events.filter { $0.name == "pasteboard" }.count == 20_000, "each is still an event")
        #expect(took < .seconds(5), "the tap took \(took)")
        try session.tap("1")
        #expect(session.document.text == "kept1")
    }
}

/// A failure needs no call's number, so a plugin can write one onto the channel with any text:
/// 4 MiB of it became the failure's description, its first line the `lastReason` settings.json
/// keeps (read by every command), the daemon's log line and the IBus engine's notice.
@Suite("The wire: what a keyboard writes into its failure is kept short")
struct WireFailureTextTests {
    @Test func aFailureOfFourMebibytesIsCutToAFewKilobytes() throws {
        let session = try Fixtures.session(Fixtures.fault("HugeFailureOnKey"), text: "kept")
        #expect(throws: SessionError.self) { try session.tap("boom") }
        let failure = try #require(session.failure)
        #expect(failure.kind == "load", "\(failure)")
        #expect(failure.description.utf8.count < 5000, "\(failure.description.utf8.count) bytes")
        #expect(failure.reasonDescription.hasPrefix("xxxx"))
        #expect(failure.reasonDescription.hasSuffix("… (\((4 << 20) - KeyboardFailure.reasonLimit) more bytes not kept)"))
        #expect(session.document.text == "kept")
    }

    @Test func shortFailuresAndPhasesAreKeptWhole() {
        let label = String(repeating: "é", count: 1 << 19)
        let long = KeyboardFailure(keyboardID: "dev.example.k", phase: "key '\(label)'", reason: .protocolViolation(label))
        #expect(long.phase.utf8.count < KeyboardFailure.phaseLimit + 50)
        #expect(long.description.utf8.count < KeyboardFailure.phaseLimit + KeyboardFailure.reasonLimit + 200)
        let short = KeyboardFailure(keyboardID: "dev.example.k", phase: "key 'é'", reason: .loadFailed(.badLayout, "no action 'x'"))
        #expect(short.description == "keyboard dev.example.k failed during key 'é': no action 'x'")
        #expect(KeyboardFailure(keyboardID: "k", phase: "load", reason: .exited(status: 3)).reason == .exited(status: 3))
    }
}
