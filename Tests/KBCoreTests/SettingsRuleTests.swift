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

    // MARK: What the commands do (enable, disable, order, access, uninstall)

    static let keyboards = ["a": entry("a"), "b": entry("b"), "c": entry("c")]
    func find(_ id: String) -> KeyboardEntry? { Self.keyboards[id] }

    @Test func enablingAppendsOnceAndGivesASetAsideKeyboardAFreshStart() {
        var s = settings(["a"], current: "a")
        for t in [0.0, 1, 3] { s.recordFailure(of: "b", reason: "crash", at: t) }
        s.enable("b")
        s.enable("b")
        #expect(s.enabled == ["a", "b"])
        #expect(s.failures["b"] == nil && s.mayStart("b", at: 3))
    }

    @Test func theOnlyEnabledKeyboardCannotBeDisabled() {
        #expect(settings(["a"], current: "a").disableProblem("a") != nil)
        #expect(settings(["a", "b"], current: "a").disableProblem("a") == nil)
    }

    @Test func disablingTheCurrentKeyboardMakesTheNextOneCurrent() {
        var s = settings(["a", "b", "c"], current: "b")
        s.disable("b", at: 0, entry: find)
        #expect(s.enabled == ["a", "c"] && s.current == "c")
        s.disable("a", at: 0, entry: find)
        #expect(s.enabled == ["c"] && s.current == "c", "another keyboard's going leaves the current one")
    }

    @Test func forgettingAKeyboardLeavesNothingOfIt() {
        var s = settings(["a", "b"], current: "a")
        s.setFullAccess(true, for: "a")
        s.recordFailure(of: "a", reason: "crash", at: 0)
        s.allowedMissingProtections["a"] = ["landlock"]
        s.forget("a", at: 0, entry: find)
        #expect(s.enabled == ["b"] && s.current == "b")
        #expect(s.fullAccess.isEmpty && s.failures.isEmpty && s.allowedMissingProtections.isEmpty)
        var alone = settings(["a"], current: "a")
        alone.forget("a", at: 0, entry: find)
        alone.repair()
        #expect(alone.enabled == [SystemKeyboard.identifier], "the system keyboard is back when nothing is left")
    }

    @Test func orderPutsTheGivenKeyboardsFirstAndKeepsTheRest() {
        var s = settings(["a", "b", "c", "d"], current: "a")
        s.putFirst(["c", "a"])
        #expect(s.enabled == ["c", "a", "b", "d"])
    }

    @Test func fullAccessIsGrantedOnceAndRevoked() {
        var s = settings(["a"], current: "a")
        s.setFullAccess(true, for: "a")
        s.setFullAccess(true, for: "a")
        #expect(s.fullAccess == ["a"])
        s.setFullAccess(false, for: "a")
        #expect(s.fullAccess.isEmpty)
    }
}
