import Foundation
import KBHost
import Testing

/// What a person looks for first: the version, uninstall, reading a setting back, a budget's
/// range, failures in the table, `*` on a calculator.
@Suite("Commands: version, uninstall, globe-key, budget, failures, typed aliases")
struct CommandExtrasTests {
    var real: [String: String] { ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""] }

    @Test func versionSaysWhatItSpeaks() throws {
        let r = try World().kbhost("--version")
        #expect(r.status == 0)
        #expect(r.out.wholeMatch(of: /\d+\.\d+\.\d+ \(plugin ABI 1, wire protocol \d+\)\n/) != nil, "\(r.out)")
    }

    @Test func uninstallUndoesInstall() throws {
        let w = try World()
        let bundle = try w.makeBundle(id: "dev.example.PadCopy", library: "libNumberPadKeyboard.so",
                                      principal: "NumberPadViewController", name: "Pad Copy")
        #expect(try w.kbhost("install", bundle).status == 0)
        #expect(try w.kbhost("enable", "dev.example.PadCopy").status == 0)
        #expect(try w.kbhost("set", "pad copy").status == 0)
        #expect(try w.kbhost("protection", "dev.example.PadCopy", "allow", "landlock-scope").status == 0)
        let r = try w.kbhost("uninstall", "Pad Copy")
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "uninstalled Pad Copy (dev.example.PadCopy) from \(w.home)/Keyboards/dev.example.PadCopy\n")
        #expect(!FileManager.default.fileExists(atPath: w.home + "/Keyboards/dev.example.PadCopy"))
        #expect(try w.kbhost("current").out == "dev.kbhost.System\n", "disabled, and no longer current")
        let settings = try SettingsStore(directory: w.home).load()
        #expect(settings.enabled == [SystemKeyboard.identifier])
        #expect(settings.allowedMissingProtections["dev.example.PadCopy"] == nil)
        #expect(!(try w.kbhost("list", "--all", "--ids").out.contains("PadCopy")))
        #expect(try w.kbhost("uninstall", "dev.example.PadCopy").status == 3, "gone")
        #expect(try w.kbhost("install", bundle).status == 0, "and it can come back")
    }

    @Test func uninstallRefusesKeyboardsItDidNotInstall() throws {
        let w = try World()
        let bundled = try w.run(["uninstall", "dev.kbhost.Calculator"], extraEnvironment: real)
        #expect(bundled.status == 7)
        #expect(bundled.err.contains("dev.kbhost.Calculator is bundled with kbhost"), "\(bundled.err)")
        #expect(bundled.err.contains("only installed keyboards can be uninstalled"))
        #expect(try w.run(["uninstall", "system"], extraEnvironment: real).err.contains("built into kbhost"))
        try w.addKeyboard("dev.example.Elsewhere", name: "Elsewhere", folder: w.root + "/more")
        let elsewhere = try w.run(["uninstall", "dev.example.Elsewhere"], extraEnvironment: ["KBHOST_KEYBOARDS": w.root + "/more"])
        #expect(elsewhere.status == 7)
        #expect(elsewhere.err.contains("from KBHOST_KEYBOARDS"))
        #expect(FileManager.default.fileExists(atPath: w.root + "/more/dev.example.Elsewhere/Info.plist"))
    }

    @Test func globeKeyReadsBack() throws {
        let w = try World()
        #expect(try w.kbhost("globe-key").out == "keyboard\n")
        #expect(try w.kbhost("globe-key", "device").out == "device\n")
        #expect(try w.kbhost("globe-key").out == "device\n")
        #expect(try w.kbhost("globe-key", "nobody").status == 64)
    }

    @Test func budgetStatesAndEnforcesItsRange() throws {
        let w = try World()
        for tooSmallOrLarge in ["1", "7", "513", "65536", "100000"] {
            let r = try w.kbhost("budget", tooSmallOrLarge)
            #expect(r.status == 64, "\(tooSmallOrLarge)")
            #expect(r.err.contains("'\(tooSmallOrLarge)' is not a budget: give 8 to 512 MiB, or a device profile"), "\(r.err)")
        }
        #expect(try w.kbhost("budget").out == "48 MiB\n", "a refused budget changes nothing")
        #expect(try w.kbhost("budget", "8").out == "8 MiB\n")
        #expect(try w.kbhost("budget", "512").out == "512 MiB\n")
        #expect(try w.kbhost("budget", "--help").out.contains("8 to 512 MiB"))
        #expect(try w.kbhost("type", "--keyboard", "dev.kbhost.System", "--budget", "600").status == 64)
    }

    @Test func listShowsFailures() throws {
        let w = try World()
        try w.standardKeyboards()
        _ = try w.kbhost("enable", "dev.example.Alpha", "dev.example.Gamma")
        try SettingsStore(directory: w.home).update { s in
            s.recordFailure(of: "dev.example.Gamma", reason: "exited with status 3", at: 0)
            for _ in 0..<3 { s.recordFailure(of: "dev.example.Alpha", reason: "ended by signal SIGSEGV", at: 0) }
        }
        #expect(try w.kbhost("list").out.hasPrefix("""
              # IDENTIFIER        NAME   LANGUAGE ASCII RTL OPEN ACCESS FAILURES
            * 1 dev.kbhost.System System en-US    yes   no  -           -
              2 dev.example.Alpha Alpha  en-US    yes   no  -           3, set aside
              3 dev.example.Gamma Gamma  ar-SA    yes   yes -           1

            """))
    }

    @Test func typeReachesMinusTimesAndDivideAsAttachDoes() throws {
        let w = try World()
        let r = try w.run(["type", "--keyboard", "dev.kbhost.Calculator", "6", "*", "7", "-", "2", "/", "4", "="], extraEnvironment: real)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "41.5\n", "6 × 7 − 2 ÷ 4")
    }
}
