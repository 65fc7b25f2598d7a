import Foundation
@testable import KBHost
import Testing

@Suite("Keyboards that keep failing")
struct FailureRecordTests {
    @Test func backoffDoublesAndThreeFailuresSetAKeyboardAside() {
        var s = KeyboardSettings.fresh
        s.enabled += ["a", "b"]
        s.recordFailure(of: "a", reason: "ended by signal SIGSEGV", at: 1000)
        #expect(!s.mayStart("a", at: 1000.5), "backs off for a second after the first failure")
        #expect(s.mayStart("a", at: 1001))
        s.recordFailure(of: "a", reason: "hang", at: 1001)
        #expect(!s.mayStart("a", at: 1002.5), "then two seconds")
        #expect(s.mayStart("a", at: 1003))
        s.recordFailure(of: "a", reason: "memory", at: 1003)
        #expect(s.failures["a"]?.setAside == true)
        #expect(!s.mayStart("a", at: 1_000_000), "set aside until enabled again")
        #expect(s.mayStart("b", at: 1003))
    }

    @Test func settingsWithFailuresSurviveARoundTrip() throws {
        let dir = NSTemporaryDirectory() + "kbhost-failures-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = SettingsStore(directory: dir)
        try store.update { $0.recordFailure(of: "x", reason: "crash", at: 5) }
        #expect(try store.load().failures["x"]?.lastReason == "crash")
    }

    @Test func olderSettingsFilesWithoutTheNewKeysStillLoad() throws {
        let dir = NSTemporaryDirectory() + "kbhost-old-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(#"{"version": 1, "enabled": ["dev.kbhost.System"], "current": "dev.kbhost.System", "fullAccess": []}"#.utf8)
            .write(to: URL(fileURLWithPath: dir + "/settings.json"))
        let s = try SettingsStore(directory: dir).load()
        #expect(s.memoryBudget == 48 << 20)
        #expect(s.failures.isEmpty)
        #expect(!s.deviceDrawsGlobeKey)
    }
}
