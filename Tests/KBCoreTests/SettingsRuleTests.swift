import KBCore
import Testing

@Suite("Settings rules")
struct SettingsRuleTests {
    @Test func freshSettingsHoldTheSystemKeyboardAloneAndTheDefaultBudget() {
        let s = KeyboardSettings.fresh
        #expect(s.enabled == [SystemKeyboard.identifier] && s.current == SystemKeyboard.identifier)
        #expect(s.memoryBudget == MemoryBudget.defaultBudget)
        #expect(s.fullAccess.isEmpty && s.failures.isEmpty)
    }

    @Test func repairKeepsTheFirstOfEachKeyboardAndACurrentOneThatIsEnabled() {
        var s = settings(["b", "a", "b", "c", "a"], current: "gone")
        s.fullAccess = ["z", "a", "z"]
        s.repair()
        #expect(s.enabled == ["b", "a", "c"])
        #expect(s.current == "b", "a current keyboard that is not enabled becomes the first enabled one")
        #expect(s.fullAccess == ["a", "z"])
    }

    @Test func repairPutsTheSystemKeyboardBackWhenNothingIsEnabled() {
        var s = settings([], current: "a")
        s.repair()
        #expect(s.enabled == [SystemKeyboard.identifier] && s.current == SystemKeyboard.identifier)
    }

    @Test func theBackoffDoublesUpToAboutSeventeenMinutes() {
        var record = KeyboardSettings.FailureRecord(count: 1, lastReason: "", lastFailure: 0, setAside: false)
        #expect(record.retryAfter == 1)
        record.count = 4
        #expect(record.retryAfter == 8)
        record.count = 50
        #expect(record.retryAfter == 1024, "the doubling stops at 2^10 seconds")
    }
}
