import Foundation
import Testing

/// `stress` checks what it can count, and ends when it said it would.
@Suite("kbhost stress: keyboards it can count")
struct StressCountingTests {
    /// Calculator's keys work its display line and Hostile has no character keys: a run through
    /// either typed nothing it could check and said PASSED (0 characters expected, 0 committed).
    @Test(arguments: [("dev.kbhost.Calculator", "none of its 14 character keys types its label (key '7' typed nothing)"),
                      ("dev.kbhost.Hostile", "it has no character keys")])
    func aKeyboardWithNoKeyTypingItsLabelIsRefused(keyboard: String, why: String) throws {
        let w = try World()
        let start = Date()
        let r = try w.run(["stress", "--keyboard", keyboard, "--duration", "5", "--svg", w.root + "/s.svg"],
                          extraEnvironment: LongRunTests.real)
        #expect(r.status == 7, "\(r.out)\(r.err)")
        #expect(r.err.contains("\(keyboard) cannot be counted: \(why)") && r.err.contains("kbhost profile \(keyboard)"), "\(r.err)")
        #expect(!r.out.contains("PASSED") && Date().timeIntervalSince(start) < 4, "refused before the run")
    }

    /// The control: a keyboard whose keys type their labels, among others that do, is run and counted.
    @Test func aKeyboardWhoseKeysTypeTheirLabelsIsCounted() throws {
        let w = try World()
        let r = try w.run(["stress", "--keyboard", "dev.kbhost.English", "--keyboard", "dev.kbhost.NumberPad", "--duration", "1",
                           "--svg", w.root + "/s.svg", "--json"], extraEnvironment: LongRunTests.real)
        #expect(r.status == 0, "\(r.err)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect((report["committedCharacters"] as? Int ?? 0) > 0 && report["passed"] as? Bool == true)
    }

    /// A keyboard that shows 20,000 candidates a key (the fault plugin's ManyCandidates) answers a
    /// tap in about 90 ms: 32 taps pipelined took 2.9 s, and a 1 s run went on for 3.1 s. A batch
    /// now takes about 50 ms however slow the keyboard.
    @Test func aRunThroughASlowKeyboardEndsOnTime() throws {
        let w = try World()
        let bundle = try w.makeBundle(id: "dev.example.Many", library: "libFaultKeyboards.so", principal: "ManyCandidates")
        #expect(try w.kbhost("install", bundle).status == 0)
        let r = try w.run(["stress", "--keyboard", "dev.example.Many", "--duration", "1", "--svg", w.root + "/s.svg", "--json"])
        #expect(r.status == 0, "\(r.err)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        let seconds = try #require(report["seconds"] as? Double)
        #expect(seconds < 1.8, "a 1 s run took \(seconds) s")
        #expect((report["taps"] as? Int ?? 0) > 0 && report["passed"] as? Bool == true)
    }
}
