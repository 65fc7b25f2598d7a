import Foundation
import KBHost
import Testing

/// The containing app's commands, the demo and the doctor, as a user runs them.
@Suite("Commands: defaults, pasteboard, replacements, demo, doctor")
struct CommandTests {
    var env: [String: String] { ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""] }

    @Test func defaultsWriteReadAndDeleteEveryType() throws {
        let w = try World()
        let g = "group.com.example.kb"
        #expect(try w.run(["defaults", g, "write", "theme", "dark"]).status == 0)
        #expect(try w.run(["defaults", g, "write", "size", "14", "--type", "int"]).status == 0)
        #expect(try w.run(["defaults", g, "write", "sound", "yes", "--type", "bool"]).status == 0)
        #expect(try w.run(["defaults", g, "write", "blob", "AAH/", "--type", "data"]).status == 0)
        #expect(try w.run(["defaults", g, "read"]).out == "blob = AAH/ (data)\nsize = 14 (int)\nsound = true (bool)\ntheme = dark (string)\n")
        #expect(try w.run(["defaults", g, "read", "size"]).out == "14\n")
        #expect(try w.run(["defaults", g, "delete", "theme"]).status == 0)
        let gone = try w.run(["defaults", g, "read", "theme"])
        #expect(gone.status == 5)
        #expect(gone.err.contains("has no key 'theme'"))
        let bad = try w.run(["defaults", g, "write", "size", "big", "--type", "int"])
        #expect(bad.status == 64)
        #expect(bad.err.contains("'big' is not an integer"))
        #expect(try w.run(["defaults", g, "read", "size"]).out == "14\n", "a refused write changes nothing")
    }

    @Test func pasteboardAndReplacementsAreKeptUntilChanged() throws {
        let w = try World()
        #expect(try w.run(["pasteboard"]).out == "")
        #expect(try w.run(["pasteboard", "write", "copied"]).status == 0)
        #expect(try w.run(["pasteboard"]).out == "copied\n")
        #expect(try w.run(["pasteboard", "clear"]).status == 0)
        #expect(try w.run(["pasteboard"]).out == "")
        #expect(try w.run(["replacements", "add", "omw", "On my way!"]).status == 0)
        #expect(try w.run(["replacements"]).out == "omw → On my way!\n")
        #expect(try w.run(["replacements", "remove", "omw"]).status == 0)
        #expect(try w.run(["replacements", "remove", "omw"]).status == 5)
        #expect(try w.run(["replacements", "add", "two words", "x"]).status == 64)
    }

    @Test func theDemoTourTypesThroughEverySampleKeyboard() throws {
        let w = try World()
        let r = try w.run(["demo", "--tour"], extraEnvironment: env)
        #expect(r.status == 0, "\(r.err)")
        for expected in ["\"24│\"", "\"日本語│\"", "\"The │\"", "Number Pad (dev.kbhost.NumberPad)"] {
            #expect(r.out.contains(expected), "\(expected)")
        }
    }

    @Test func doctorSaysWhatIsThereAndWhatIsMissing() throws {
        let w = try World()
        let ok = try w.run(["doctor"], extraEnvironment: env)
        #expect(ok.status == 0, "\(ok.out)")
        #expect(ok.out.contains("✓ sandbox: landlock:"))
        #expect(ok.out.contains("✓ end to end: dev.kbhost.NumberPad loaded, sandboxed, and typed"))
        var missing = env
        missing["KBHOST_SANDBOX_PRETEND_MISSING"] = "landlock"
        let broken = try w.run(["doctor"], extraEnvironment: missing)
        #expect(broken.status == 1)
        #expect(broken.out.contains("✗ end to end:"))
        #expect(broken.out.contains("protection 'landlock'"))
    }
}
