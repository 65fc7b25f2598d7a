import Foundation
import KBHost
import KBText
import KBWire
import Testing

/// The wire under a hostile plugin (replies nobody asked for, a frame of a million
/// effects) and under large but legal keyboards (a 2 MiB insertion, 300,000
/// insertions in one action, a 100,000-key layout), with the real worker.
@Suite("The wire: replies only for the call outstanding, effects bounded, large edits travel")
struct WireLimitTests {
    /// `kbhost type` through one class of the fault plugin, in a world of its own.
    func type(_ className: String, _ keys: [String]) throws -> (status: Int32, out: String, err: String) {
        let w = try World()
        try w.makeBundle(id: "dev.example.\(className)", library: "libFaultKeyboards.so", principal: className)
        return try w.run(["type", "--keyboard", "dev.example.\(className)"] + keys,
                         extraEnvironment: ["KBHOST_KEYBOARDS": w.root + "/bundles"])
    }

    @Test func repliesWrittenAheadOfTheirCallsEndTheKeyboardAtOnce() throws {
        // On "boom" (call 5) the plugin answers call 5 itself, then calls 6…1005 ahead of
        // time, each typing "F"; the host used to take them as the answers to later calls.
        let r = try type("RepliesAheadOnKey", ["1", "boom", "1", "2"])
        #expect(r.status == 4, "\(r.out) \(r.err)")
        #expect(r.out == "1\n", "the text is what the keys typed, no forged F")
        #expect(r.err.contains("during key 'boom'"), "\(r.err)")
        #expect(r.err.contains("replied ahead: it answered call 5 with a reply numbered 5, a number the host never gave out"), "\(r.err)")
    }

    @Test func repliesWrittenWhileNoCallIsOutstandingAreRefusedAtTheNextCall() throws {
        // After answering "boom" normally, a thread of the plugin writes replies for the next calls.
        let session = try Fixtures.session(Fixtures.fault("RepliesWhileIdleOnKey"), text: "kept ")
        try session.tap("boom")
        usleep(400_000)
        #expect(throws: SessionError.self) { try session.tap("1") }
        let failure = try #require(session.failure)
        #expect(failure.kind == "protocol", "\(failure)")
        #expect(failure.description.contains("replied ahead: it answered call 5 with a reply numbered 5, a number the host never gave out"), "\(failure)")
        #expect(failure.phase == "key '1'")
        #expect(session.document.text == "kept ", "no forged F")
    }

    @Test func aReplyAheadIsRefusedInAPipelinedBatchToo() throws {
        let session = try Fixtures.session(Fixtures.fault("RepliesAheadOnKey"))
        let one = try #require(session.layout.key(named: "1")), boom = try #require(session.layout.key(named: "boom"))
        var acknowledged = 0
        #expect(throws: KeyboardFailure.self) { try session.tapAll([one, boom, one], acknowledged: &acknowledged) }
        let failure = try #require(session.failure)
        #expect(failure.kind == "protocol", "\(failure)")
        #expect(failure.description.contains("replied ahead"), "\(failure)")
        #expect(acknowledged < 3, "the batch did not end as if nothing had happened")
    }

    @Test func pipelinedTapsStillMatchEachReplyToItsCall() throws {
        let session = try Fixtures.session(Fixtures.fault("RepliesAheadOnKey"))
        let keys = ["1", "2", "1", "1", "2"].map { session.layout.key(named: $0)! }
        var acknowledged = 0
        try session.tapAll(keys + keys, acknowledged: &acknowledged)
        try session.tap("2")
        #expect(acknowledged == 10)
        #expect(session.document.text == "12112121122")
    }

    @Test func aFrameOfAMillionTinyEffectsIsRefusedByItsCount() throws {
        let session = try Fixtures.session(Fixtures.fault("TinyEffectsFrameOnKey"), text: "kept")
        #expect(throws: SessionError.self) { try session.tap("boom") }
        let failure = try #require(session.failure)
        #expect(failure.kind == "protocol", "\(failure)")
        #expect(failure.description.contains("1048563 effects in one message; at most 65536 are allowed"), "\(failure)")
        #expect(session.document.text == "kept")
        #expect(!session.events.contains { $0.description.hasPrefix("playInputClick") }, "none of them was applied")
    }

    @Test func aMillionChangesInOneCallAreRefusedByTheWorkerNamingTheLimit() throws {
        let session = try Fixtures.session(Fixtures.fault("ClickFloodOnKey"), text: "kept", eventMs: 5000)
        #expect(throws: SessionError.self) { try session.tap("boom") }
        let failure = try #require(session.failure)
        #expect(failure.kind == "limit", "\(failure)")
        #expect(failure.description.contains("one call may make at most 65536 (KBH_MAX_CALL_EFFECTS)"), "\(failure)")
        #expect(!failure.description.contains("exceeds the maximum"))
        #expect(session.document.text == "kept")
    }

    @Test func aTwoMebibyteInsertionTravels() throws {
        let session = try Fixtures.session(Fixtures.fault("BigInsertOnKey"), text: ">", eventMs: 5000)
        try session.tap("boom")
        try session.tap("1")
        let text = session.document.text
        #expect(text.utf8.count == 1 + (2 << 20) + 1)
        #expect(text.hasPrefix(">0123456789abcdef0123") && text.hasSuffix("cdef1"))
        #expect(session.failure == nil)
    }

    /// Within every per-call limit, 2 MiB a key grows the document without end across calls: a keyboard
    /// doing so had `kbhost type` of 200 keys hold 816 MB (twenty-fifth red team). The document holds at
    /// most `KeyboardSession.documentLimit` UTF-16 code units: the key that would go past it fails the
    /// keyboard and is not applied; the control is every key before it.
    @Test func theDocumentStaysWithinItsBoundAcrossCalls() throws {
        let session = try Fixtures.session(Fixtures.fault("BigInsertOnKey"), text: ">", eventMs: 5000)
        let fit = (KeyboardSession.documentLimit - 1) / (2 << 20)
        for _ in 0..<fit { try session.tap("boom") }
        #expect(session.document.buffer.utf16Count == 1 + fit * (2 << 20), "the control: \(fit) keys fit")
        #expect(throws: SessionError.self) { try session.tap("boom") }
        let failure = try #require(session.failure)
        #expect(failure.description.contains("made the document longer than \(KeyboardSession.documentLimit) UTF-16 code units"), "\(failure)")
        #expect(session.document.buffer.utf16Count == 1 + fit * (2 << 20), "nothing past the bound was applied")
    }

    @Test func threeHundredThousandInsertionsInOneActionTravel() throws {
        let session = try Fixtures.session(Fixtures.fault("FloodOnKey"), text: "kept", eventMs: 10_000)
        try session.tap("boom")
        try session.tap("1")
        #expect(session.document.text == "kept" + String(repeating: "x", count: 300_000) + "1")
    }

    @Test func aHundredThousandKeyLayoutTravels() throws {
        let session = try Fixtures.session(Fixtures.fault("BigLayoutOnKey"), eventMs: 10_000)
        try session.tap("boom")
        #expect(session.layout.rows.count == 100)
        #expect(session.layout.rows.map(\.count).reduce(0, +) == 100_000)
        try session.tap("k99999")
        try session.tap("k0")
        #expect(session.document.text == "k99999k0")
    }

    @Test func aLayoutNearTheMemoryLimitTravelsAndOneOverItFailsNamingIt() throws {
        let near = try Fixtures.session(Fixtures.fault("BudgetLayoutOnKey"), eventMs: 10_000)
        try near.tap("boom")
        try near.tap("k119999")
        #expect(near.document.text == "k119999")
        let over = try Fixtures.session(Fixtures.fault("HugeLayoutOnKey"), eventMs: 10_000)
        #expect(throws: SessionError.self) { try over.tap("boom") }
        let failure = try #require(over.failure)
        #expect(failure.kind == "limit", "\(failure)")
        #expect(failure.description.contains("at most 48.0 MiB (KBH_MAX_CALL_MEMORY)"), "\(failure)")
    }

    @Test func largeEditsTravelThroughTheCLI() throws {
        let r = try type("BigInsertOnKey", ["1", "boom"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.utf8.count == 1 + (2 << 20) + 1)
        #expect(!r.err.contains("exceeds the maximum"))
    }
}
