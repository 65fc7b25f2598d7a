import Foundation
import KBHost
import Testing

/// A long-lived front end (attach, the IBus engine) keeps a keyboard's recent events, each cut to
/// a few KiB: a keyboard that logs a megabyte a key no longer grows it by a megabyte a key.
@Suite struct EventDetailLimitTests {
    func session(eventLimit: Int?) throws -> KeyboardSession {
        let session = try KeyboardSession(keyboard: Fixtures.fault("BigLogOnKey"), configuration: Fixtures.configuration)
        session.eventLimit = eventLimit
        try session.appear()
        return session
    }

    @Test func aFrontEndKeepsAFewKiBOfEachLogLine() throws {
        let s = try session(eventLimit: 1000)
        defer { s.close() }
        for _ in 0..<20 { try s.tap("1") }
        #expect(s.document.text == String(repeating: "1", count: 20))
        let logs = s.events.filter { $0.name == "log" }
        #expect(logs.count == 20)
        let kept = logs.reduce(0) { $0 + ($1.detail?.utf8.count ?? 0) }
        #expect(kept < 20 * (KeyboardSession.eventDetailLimit + 64))
        #expect(logs.allSatisfy { $0.detail?.hasSuffix("… (\((1 << 20) - KeyboardSession.eventDetailLimit) more bytes not kept)") == true })
    }

    /// A script (kbhost type --json) keeps every event, each cut to 64 KiB: whole, a keyboard logging
    /// 7 MiB a key made `kbhost type` hold 1.43 GB after 100 taps (eighteenth red team).
    @Test func aOneShotRunKeepsEveryEventCutTo64KiB() throws {
        let s = try session(eventLimit: nil)
        defer { s.close() }
        for _ in 0..<3 { try s.tap("1") }
        let logs = s.events.filter { $0.name == "log" }
        #expect(logs.count == 3)
        #expect(logs.allSatisfy { $0.detail?.hasSuffix("… (\((1 << 20) - KeyboardSession.scriptEventDetailLimit) more bytes not kept)") == true })
    }

    /// A cut inside one grapheme cluster of many combining marks stops at a scalar, at once: finding a
    /// character boundary there cost the whole cluster at each byte stepped back (one 2 MiB log line
    /// held the IBus engine 52 s: eighteenth red team).
    @Test func aCutInsideOneHugeClusterStopsAtAScalar() {
        let cluster = "e" + String(repeating: "\u{301}", count: 1 << 20)
        let cut = SessionEvent.cut(cluster, to: KeyboardSession.eventDetailLimit)
        #expect(cut.unicodeScalars.starts(with: "e\u{301}\u{301}".unicodeScalars))
        #expect(cut.utf8.count < KeyboardSession.eventDetailLimit + 64 && cut.hasSuffix("more bytes not kept)"))
    }
}
