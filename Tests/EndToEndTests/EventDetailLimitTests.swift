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

    @Test func aOneShotRunKeepsTheWholeLine() throws {  // kbhost type --json reports every event whole
        let s = try session(eventLimit: nil)
        defer { s.close() }
        try s.tap("1")
        #expect(s.events.first { $0.name == "log" }?.detail?.utf8.count == 1 << 20)
    }
}
