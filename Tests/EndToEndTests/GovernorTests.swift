import Foundation
import KBHost
import KBSystem
import Testing

/// The memory budget, enforced for real: the governor reads footprints from
/// /proc and SIGKILLs through the pidfd.
@Suite("Memory budget")
struct GovernorTests {
    func session(_ className: String, budgetMiB: Int = 48, access: KeyboardAccess? = nil) throws -> KeyboardSession {
        var config = Fixtures.configuration
        config.memoryBudgetBytes = budgetMiB << 20
        config.eventDeadlineMilliseconds = 5000
        let session = try KeyboardSession(keyboard: Fixtures.fault(className), document: TextDocument(text: "kept "),
                                          configuration: config, access: access ?? KeyboardAccess())
        try session.appear()
        return session
    }

    /// Shared memory (MAP_SHARED | MAP_ANONYMOUS) is closed to sandboxed keyboards (seventh
    /// red team: dropped from its mapping it leaves RssShmem); where the filter is off (a
    /// protection exception) the governor still counts it while mapped.
    @Test(arguments: [("SpikeOnKey", true), ("SharedMemoryOnKey", false)])
    func aKeyboardOverItsBudgetIsKilledForMemory(className: String, sandboxed: Bool) throws {
        let s = try session(className, access: KeyboardAccess(sandboxed: sandboxed))
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

    /// iOS warns a keyboard before jetsam ends it; so does kbhost, at 80% of the budget,
    /// before the next call. A keyboard that empties its cache then lives on.
    @Test func aMemoryWarningArrivesBeforeTheBudgetAndAKeyboardThatListensSurvives() throws {
        let s = try session("CacheOnKey", budgetMiB: 40)
        for _ in 0..<20 {  // 80 MiB of cache in all, 4 MiB a tap: twice the budget
            try s.tap("1")
            usleep(30_000)  // time for the governor to sample (it runs on real time)
        }
        #expect(s.failure == nil, "\(String(describing: s.failure))")
        #expect(s.document.text == "kept " + String(repeating: "1", count: 20))
        let warnings = s.events.filter { $0.name == "didReceiveMemoryWarning" }
        #expect(warnings.count >= 2, "warned each time it came back over 80%: \(s.events)")
        #expect(s.events.contains { $0.name == "log" && ($0.detail ?? "").contains("freed") })
        #expect((s.peakFootprint ?? .max) < 40 << 20)
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

@Suite("Memory budget from the CLI")
struct BudgetCommandTests {
    @Test func budgetSettingProfilesAndTypeEnforcingIt() throws {
        let w = try World()
        #expect(try w.kbhost("budget").out == "48 MiB\n", "the default")
        #expect(try w.kbhost("budget", "recent-phone").out == "77 MiB\n")
        #expect(try w.kbhost("budget", "tablet").out == "90 MiB\n")
        let bad = try w.kbhost("budget", "huge")
        #expect(bad.status == 64)
        #expect(bad.err.contains("older-phone (48 MiB)"))

        // A spiking keyboard, installed as a real bundle, dies at the budget with the figures.
        let bundle = try w.makeBundle(id: "dev.example.Spike", library: "libFaultKeyboards.so", principal: "SpikeOnKey")
        #expect(try w.kbhost("install", bundle).status == 0)
        let r = try w.kbhost("type", "--keyboard", "dev.example.Spike", "--budget", "older-phone", "1", "boom")
        #expect(r.status == 4)
        #expect(r.out == "1\n", "committed text is printed")
        #expect(r.err.contains("went over its memory budget of 48.0 MiB"))
        let settingsBudget = try w.kbhost("type", "--keyboard", "dev.example.Spike", "boom")
        #expect(settingsBudget.err.contains("memory budget of 90.0 MiB"), "without --budget, the settings' budget (tablet)")
    }
}

@Suite("kbhost stress")
struct StressCommandTests {
    @Test func aShortRunWithEveryFaultLosesNothingAndLeavesNoProcess() throws {
        let w = try World()
        let svg = w.root + "/timeline.svg"
        let r = try w.run(["stress", "--duration", "3", "--faults", "all", "--fault-rate", "4", "--seed", "3",
                           "--svg", svg, "--json"],
                          extraEnvironment: ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!])
        #expect(r.status == 0, "\(r.err)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect(report["passed"] as? Bool == true)
        #expect(report["expectedCharacters"] as? Int == report["committedCharacters"] as? Int)
        #expect((report["taps"] as? Int ?? 0) > 100)
        #expect(report["childProcessesLeft"] as? Int == 0)
        let kills = try #require(report["kills"] as? [String: Int])
        #expect(kills.values.reduce(0, +) >= 1, "faults were injected and survived: \(kills)")
        #expect(Set(kills.keys) == Set(KeyboardFailure.kinds), "every kind, none as 0: \(kills)")
        let peaks = try #require(report["peakFootprintBytes"] as? [String: Int], "bytes, as integers")
        #expect(peaks.values.allSatisfy { $0 > 0 } && peaks.values.contains { $0 > 30 << 20 }, "the spike climbs in bytes: \(peaks)")
        #expect(report["hostPrivateDirtyBytes"] as? [String: Int] != nil)
        #expect(report["overshootBytes"] as? [String: Int] != nil)
        #expect((report["recoveries"] as? Int ?? 0) >= 1)
        let chart = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(chart.hasPrefix("<svg") && chart.contains("budget 48 MiB"))
    }

    /// Every fault a run is given is injected at least once, however short or slow the run:
    /// drawn at random, a 3 s run on a loaded machine once met the leak and never the spike.
    @Test func aRunTooShortForItsFaultsStillInjectsEachOnce() throws {
        let w = try World()
        let r = try w.run(["stress", "--duration", "0.2", "--faults", "all", "--fault-rate", "1", "--seed", "5",
                           "--svg", w.root + "/t.svg", "--json"],
                          extraEnvironment: ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!])
        #expect(r.status == 0, "\(r.err)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect(report["recoveries"] as? Int == 6, "one for each of the six faults: \(report["recoveries"] ?? "none")")
        let kills = try #require(report["kills"] as? [String: Int])
        for kind in ["crash", "hang", "exit", "protocol"] { #expect((kills[kind] ?? 0) >= 1, "\(kind): \(kills)") }
        #expect((kills["memory"] ?? 0) >= 1, "the spike at least: \(kills)")
        let peaks = try #require(report["peakFootprintBytes"] as? [String: Int])
        #expect((peaks["dev.kbhost.fault.spike"] ?? 0) > 30 << 20, "\(peaks)")
    }

    @Test func unknownFaultsAreRefused() throws {
        let w = try World()
        let r = try w.kbhost("stress", "--faults", "meteor")
        #expect(r.status == 64)
        #expect(r.err.contains("unknown fault 'meteor'"))
    }
}

@Suite("kbhost profile")
struct ProfileCommandTests {
    @Test func aLeakingKeyboardIsReportedAgainstEachDeviceProfile() throws {
        let w = try World()
        let bundle = try w.makeBundle(id: "dev.example.Leak", library: "libFaultKeyboards.so", principal: "LeakOnKey")
        #expect(try w.kbhost("install", bundle).status == 0)
        let script = w.root + "/script.txt"
        try Array(repeating: "boom", count: 15).joined(separator: " ").write(toFile: script, atomically: true, encoding: .utf8)
        let r = try w.kbhost("profile", "dev.example.Leak", "--script", script, "--svg", w.root + "/p.svg", "--json")
        #expect(r.status == 0, "\(r.err)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        let rows = try #require(report["profiles"] as? [[String: Any]])
        #expect(rows.count == 3)
        #expect(rows[0]["profile"] as? String == "older-phone")
        #expect(rows[0]["fits"] as? Bool == false)
        let after = try #require(rows[0]["overAfterTap"] as? Int)
        #expect((10...13).contains(after), "4 MiB a tap crosses 48 MiB after about 12 taps (\(after))")
        #expect(rows[2]["fits"] as? Bool == true, "15 taps × 4 MiB fit a 90 MiB tablet")
        #expect((report["peakFootprintBytes"] as? Int ?? 0) > 60 << 20)
        #expect(rows[0]["budgetBytes"] as? Int == 48 << 20)
    }

    /// `reopen` presents the keyboard again as iOS does (a new controller, the same process):
    /// a keyboard that keeps its old controllers (4 MiB each) grows a step a reopen, and the
    /// same keyboard that lets them go does not (the control).
    @Test func reopeningShowsAKeyboardThatKeepsItsOldControllers() throws {
        let w = try World()
        func peak(_ principal: String) throws -> Int {
            let id = "dev.example." + principal
            let bundle = try w.makeBundle(id: id, library: "libSwiftFaultKeyboards.so", principal: principal)
            #expect(try w.kbhost("install", bundle).status == 0)
            let script = w.root + "/reopen.txt"
            try Array(repeating: "reopen", count: 6).joined(separator: " ").write(toFile: script, atomically: true, encoding: .utf8)
            let r = try w.kbhost("profile", id, "--script", script, "--svg", w.root + "/\(principal).svg", "--json")
            #expect(r.status == 0, "\(r.err)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
            #expect(report["taps"] as? Int == 6)
            return report["peakFootprintBytes"] as? Int ?? 0
        }
        let leak = try peak("ReopenLeak")
        let tidy = try peak("ReopenTidy")
        // `type` takes the token too: each reopen is a new controller, which logs its number.
        let typed = try w.kbhost("type", "--keyboard", "dev.example.ReopenTidy", "reopen", "reopen", "--json")
        #expect(typed.status == 0, "\(typed.err)")
        #expect(typed.out.contains("controller 3") && !typed.out.contains("controller 4"), "\(typed.out)")
        #expect(leak - tidy >= 16 << 20, "six controllers kept: \(leak >> 20) MiB against \(tidy >> 20) MiB")
    }
}

extension GovernorTests {
    /// Sandboxed, the same keyboard's shared memory is refused: the key does nothing, the
    /// keyboard lives on, and its log says what was closed and why.
    @Test func sharedAnonymousMemoryIsClosedToASandboxedKeyboard() throws {
        let s = try session("SharedMemoryOnKey")
        try s.tap("1")
        try s.tap("boom")
        #expect(s.failure == nil, "the refusal ends nothing")
        try s.tap("1")
        #expect(s.document.text == "kept 11")
        #expect(s.logText.contains("kbhost sandbox: mmap(MAP_SHARED | MAP_ANONYMOUS) is closed to keyboards: memory held that way would escape the memory budget (EPERM)"),
                "\(s.logText)")
    }
}
