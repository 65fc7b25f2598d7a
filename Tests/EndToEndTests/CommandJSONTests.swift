import Foundation
import KBHost
import Testing

/// kbhost's JSON: every key always present (null when there is nothing), memory in bytes,
/// values of their own type, and an object wherever a command reports on one thing.
@Suite("Commands: JSON conventions")
struct CommandJSONTests {
    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test func goldenListJSONHasEveryKeyForEveryKeyboard() throws {
        let w = try World()
        try w.addKeyboard("dev.example.Alpha", name: "Alpha")
        let r = try w.kbhost("list", "--all", "--json")
        #expect(r.out == """
            [
              {
                "asciiCapable" : true,
                "current" : true,
                "enabledPosition" : 1,
                "failures" : 0,
                "identifier" : "dev.kbhost.System",
                "lastFailure" : null,
                "name" : "System",
                "openAccessGranted" : false,
                "openAccessRequested" : false,
                "primaryLanguage" : "en-US",
                "rightToLeft" : false,
                "setAside" : false,
                "source" : "built in"
              },
              {
                "asciiCapable" : true,
                "current" : false,
                "enabledPosition" : null,
                "failures" : 0,
                "identifier" : "dev.example.Alpha",
                "lastFailure" : null,
                "name" : "Alpha",
                "openAccessGranted" : false,
                "openAccessRequested" : false,
                "primaryLanguage" : "en-US",
                "rightToLeft" : false,
                "setAside" : false,
                "source" : "bundled"
              }
            ]

            """)
    }

    @Test func budgetAndGlobeKeySayTheirSettingsInJSON() throws {
        let w = try World()
        var budget = try object(try w.kbhost("budget", "64", "--json").out)
        #expect(budget["memoryBudgetBytes"] as? Int == 64 << 20)
        let profiles = try #require(budget["profiles"] as? [[String: Any]])
        #expect(profiles.map { $0["name"] as? String } == ["older-phone", "recent-phone", "tablet"])
        #expect(profiles.map { $0["within"] as? Bool } == [false, true, true], "64 MiB is over the older phone's 48")
        budget = try object(try w.kbhost("budget", "--json").out)
        #expect(budget["memoryBudgetBytes"] as? Int == 64 << 20, "the budget set stays")
        #expect(try w.kbhost("budget").out == "64 MiB\n")

        var globe = try object(try w.kbhost("globe-key", "--json").out)
        #expect(globe["drawnBy"] as? String == "keyboard")
        #expect(globe["needsInputModeSwitchKey"] as? Bool == true)
        globe = try object(try w.kbhost("globe-key", "device", "--json").out)
        #expect(globe["drawnBy"] as? String == "device")
        #expect(globe["needsInputModeSwitchKey"] as? Bool == false)
        #expect(try w.kbhost("globe-key").out == "device\n")
    }

    @Test func defaultsValuesAreTyped() throws {
        let w = try World()
        let g = "group.com.example.kb"
        for (key, value, type) in [("size", "14", "int"), ("ratio", "1.5", "double"), ("sound", "yes", "bool"),
                                   ("theme", "dark", "string"), ("blob", "AAH/", "data")] {
            #expect(try w.run(["defaults", g, "write", key, value, "--type", type]).status == 0)
        }
        #expect(try w.run(["defaults", g, "read", "size", "--json"]).out == "{\n  \"type\" : \"int\",\n  \"value\" : 14\n}\n")
        let all = try object(try w.run(["defaults", g, "read", "--json"]).out)
        func value(_ key: String) -> Any? { (all[key] as? [String: Any])?["value"] }
        #expect(value("size") as? Int == 14)
        #expect(value("ratio") as? Double == 1.5)
        #expect(value("sound") as? Bool == true)
        #expect(value("theme") as? String == "dark")
        #expect(value("blob") as? String == "AAH/")
        #expect(try w.run(["defaults", g, "read"]).out.contains("size = 14 (int)\n"), "people still see text")
    }

    @Test func protectionOfAKeyboardIsAnObject() throws {
        let w = try World()
        try w.addKeyboard("dev.example.Alpha", name: "Alpha")
        #expect(try w.kbhost("protection", "dev.example.Alpha", "--json").out
                == "{\n  \"allowedMissing\" : [],\n  \"identifier\" : \"dev.example.Alpha\"\n}\n")
        #expect(try w.kbhost("protection", "alpha", "allow", "landlock-scope").status == 0)
        let allowed = try object(try w.kbhost("protection", "dev.example.Alpha", "--json").out)
        #expect(allowed["allowedMissing"] as? [String] == ["landlock-scope"])
        #expect(try w.kbhost("replacements", "--json").out == "{}\n", "empty is one line")
    }

    @Test func typeReportsEveryKeyAndMemoryInBytes() throws {
        let w = try World()
        let r = try w.run(["type", "--keyboard", "dev.kbhost.NumberPad", "--json", "4", "2"],
                          extraEnvironment: ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""])
        #expect(r.status == 0, "\(r.err)")
        let report = try object(r.out)
        for key in ["markedText", "markedSelectedRange", "failure"] { #expect(report[key] is NSNull, "\(key)") }
        #expect(report["memoryBudgetBytes"] as? Int == 48 << 20)
        #expect((report["peakFootprintBytes"] as? Int ?? 0) > 0)
    }
}
