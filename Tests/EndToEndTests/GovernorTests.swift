import Foundation
import KBHost
import KBSystem
import Testing

/// The memory budget, enforced for real: the governor reads footprints from
/// /proc and SIGKILLs through the pidfd.
@Suite("Memory budget")
struct GovernorTests {
    func session(_ className: String, budgetMiB: Int = 48) throws -> KeyboardSession {
        var config = Fixtures.configuration
        config.memoryBudgetBytes = budgetMiB << 20
        config.eventDeadlineMilliseconds = 5000
        let session = try KeyboardSession(keyboard: Fixtures.fault(className), document: TextDocument(text: "kept "),
                                          configuration: config)
        try session.appear()
        return session
    }

    @Test(arguments: ["SpikeOnKey", "SharedMemoryOnKey"])
    func aKeyboardOverItsBudgetIsKilledForMemory(className: String) throws {
        let s = try session(className)
        try s.tap("1")
        #expect(throws: SessionError.self) { try s.tap("boom") }
        let failure = try #require(s.failure)
        #expect(failure.kind == "memory", "\(failure)")
        guard case .memoryExceeded(let kill) = failure.reason else { return }
        #expect(kill.budget == 48 << 20)
        #expect(kill.footprintAtKill > kill.budget)
        #expect(kill.peak >= kill.footprintAtKill)
        #expect(kill.footprintAtKill < 200 << 20, "caught on the way up, not after the whole 200 MiB")
        #expect(s.document.text == "kept 1", "committed text stays")
        #expect(failure.description.contains("memory budget of 48.0 MiB"))
    }

    @Test func aLeakIsCaughtAfterEnoughTaps() throws {
        let s = try session("LeakOnKey", budgetMiB: 30)
        var taps = 0
        while s.failure == nil && taps < 50 {
            _ = try? s.tap("boom")
            taps += 1
        }
        let failure = try #require(s.failure)
        #expect(failure.kind == "memory")
        #expect(taps > 3 && taps < 12, "4 MiB a tap against 30 MiB: dies after a handful (\(taps))")
        #expect(s.document.text.hasPrefix("kept +"), "what it committed before dying stays")
    }

    @Test func aKeyboardWithinItsBudgetIsLeftAlone() throws {
        var config = Fixtures.configuration
        config.memoryBudgetBytes = 48 << 20
        let s = try KeyboardSession(keyboard: try Fixtures.sample("dev.kbhost.Calculator"), configuration: config)
        try s.appear()
        for key in ["1", "+", "2", "="] { try s.tap(key) }
        #expect(s.document.text == "3")
        #expect(s.failure == nil)
    }
}
