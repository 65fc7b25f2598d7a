import Foundation
import KBHost
import Testing

/// Every exit status of README's table, from the commands that give it.
@Suite("Commands: exit statuses as README's table has them")
struct CommandExitCodeTests {
    var real: [String: String] { ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""] }

    func world() throws -> World {
        let w = try World()
        try w.standardKeyboards()
        return w
    }

    @Test func one_aCheckFailed() throws {
        let w = try World()
        var env = real
        env["KBHOST_SANDBOX_PRETEND_MISSING"] = "landlock"
        #expect(try w.run(["doctor"], extraEnvironment: env).status == 1)
    }

    @Test func three_unknownKeyboard() throws {
        let w = try world()
        let script = w.root + "/taps"
        try "1".write(toFile: script, atomically: true, encoding: .utf8)
        for arguments in [["enable", "dev.example.Nope"], ["disable", "dev.example.Nope"], ["order", "dev.example.Nope"],
                          ["set", "dev.example.Nope"], ["access", "dev.example.Nope", "on"], ["protection", "dev.example.Nope"],
                          ["type", "--keyboard", "dev.example.Nope", "1"], ["profile", "dev.example.Nope", "--script", script]] {
            let r = try w.run(arguments)
            #expect(r.status == 3, "\(arguments): \(r.err)")
            #expect(r.err.contains("no keyboard dev.example.Nope"), "\(arguments): \(r.err)")
        }
    }

    @Test func four_aKeyboardFailed() throws {
        let w = try World()
        try w.makeBundle(id: "dev.example.Crashy", library: "libFaultKeyboards.so", principal: "CrashOnKey", name: "Crashy")
        let r = try w.run(["type", "--keyboard", "dev.example.Crashy", "boom"], extraEnvironment: ["KBHOST_KEYBOARDS": w.root + "/bundles"])
        #expect(r.status == 4, "\(r.err)")
        #expect(r.err.contains("ended by signal"), "\(r.err)")
    }

    @Test func five_noSuchKey() throws {
        let w = try World()
        let typed = try w.run(["type", "--keyboard", "dev.kbhost.NumberPad", "4", "nokey"], extraEnvironment: real)
        #expect(typed.status == 5, "\(typed.err)")
        let script = w.root + "/taps"
        try "4 2 nokey".write(toFile: script, atomically: true, encoding: .utf8)
        let profiled = try w.run(["profile", "dev.kbhost.NumberPad", "--script", script, "--svg", w.root + "/p.svg"], extraEnvironment: real)
        #expect(profiled.status == 5, "profile's unknown key: \(profiled.err)")
        #expect(profiled.err.contains("tap 3 of"), "\(profiled.err)")
        let g = "group.com.example.kb"
        #expect(try w.run(["defaults", g, "read", "missing"]).status == 5, "a defaults key")
        #expect(try w.run(["defaults", g, "delete", "missing"]).status == 5)
        let replacement = try w.run(["replacements", "remove", "omw"])
        #expect(replacement.status == 5, "a text replacement")
        #expect(replacement.err.contains("there is no text replacement 'omw'"))
    }

    @Test func six_notEnabled() throws {
        let w = try world()
        #expect(try w.kbhost("set", "dev.example.Alpha").status == 6)
        #expect(try w.kbhost("order", "dev.example.Alpha").status == 6)
        #expect(try w.kbhost("disable", "dev.example.Alpha").status == 6)
    }

    @Test func seven_refused() throws {
        let w = try world()
        #expect(try w.kbhost("disable", "dev.kbhost.System").status == 7)
        #expect(try w.kbhost("access", "dev.example.Alpha", "on").status == 7)
    }

    @Test func eight_settingsUnreadable() throws {
        let w = try world()
        try FileManager.default.createDirectory(atPath: w.home, withIntermediateDirectories: true)
        try Data("not json".utf8).write(to: URL(fileURLWithPath: w.home + "/settings.json"))
        #expect(try w.kbhost("current").status == 8)
        #expect(try w.kbhost("enable", "dev.example.Alpha").status == 8)
    }

    /// 9 is no longer given: of two keyboards with one identifier the first is used and the other skipped.
    @Test func nine_conflictingKeyboardsNoLongerStopACommand() throws {
        let w = try World()
        try w.addKeyboard("dev.example.Twin", name: "One")
        try w.addKeyboard("dev.example.Twin", name: "Two", folder: w.root + "/more")
        let r = try w.run(["list"], extraEnvironment: ["KBHOST_KEYBOARDS": w.root + "/more"])
        #expect(r.status == 0)
        #expect(r.err.contains("kbhost: warning: skipped"), "\(r.err)")
    }

    @Test func ten_invalidManifestOrPlugin() throws {
        let w = try World()
        try FileManager.default.createDirectory(atPath: w.root + "/bad", withIntermediateDirectories: true)
        try Data("<plist><dict/></plist>".utf8).write(to: URL(fileURLWithPath: w.root + "/bad/Info.plist"))
        #expect(try w.kbhost("validate", w.root + "/bad").status == 10)
        #expect(try w.kbhost("install", w.root + "/bad").status == 10)
    }

    @Test func sixtyFour_badUsage() throws {
        let w = try world()
        let unknown = try w.kbhost("lsit")
        #expect(unknown.status == 64)
        #expect(unknown.err == "kbhost: error: no command 'kbhost lsit'; did you mean 'list'?\n")
        let help = try w.kbhost("help", "nonexist")
        #expect(help.status == 64, "help of an unknown command")
        #expect(help.err.contains("no command 'kbhost nonexist'"))
        #expect(try w.kbhost("help", "list").status == 0)
        let option = try w.kbhost("list", "--nope")
        #expect(option.status == 64)
        #expect(option.err.hasPrefix("kbhost: error: Unknown option '--nope'"), "every error begins the same: \(option.err)")
        #expect(try w.kbhost("access", "dev.example.Beta", "maybe").status == 64)
        let missing = w.root + "/no-such-script"
        #expect(try w.run(["type", "--keyboard", "dev.kbhost.NumberPad", "--script", missing], extraEnvironment: real).status == 64)
        let profile = try w.run(["profile", "dev.kbhost.NumberPad", "--script", missing], extraEnvironment: real)
        #expect(profile.status == 64, "an unreadable script: \(profile.err)")
    }
}
