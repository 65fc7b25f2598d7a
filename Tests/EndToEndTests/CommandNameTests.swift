import Foundation
import KBHost
import Testing

/// One convention for naming keyboards: commands print identifiers and take identifiers or
/// a display name only one keyboard has; a mistyped one gets the closest as a suggestion.
@Suite("Commands: keyboards by identifier or name")
struct CommandNameTests {
    @Test func whatCurrentPrintsSetTakesBack() throws {
        let w = try World()
        try w.standardKeyboards()
        #expect(try w.kbhost("enable", "dev.example.Alpha", "dev.example.Gamma").status == 0)
        #expect(try w.kbhost("set", "dev.example.Gamma").out == "dev.example.Gamma\n")
        let current = try w.kbhost("current").out.trimmingCharacters(in: .newlines)
        #expect(current == "dev.example.Gamma")
        #expect(try w.kbhost("next").status == 0)
        #expect(try w.kbhost("set", current).status == 0, "kbhost set \"$(kbhost current)\"")
        #expect(try w.kbhost("current", "--verbose").out == "Gamma (dev.example.Gamma)\n")
        #expect(try w.kbhost("next", "-v").out == "System (dev.kbhost.System)\n")
        let json = try JSONSerialization.jsonObject(with: Data(try w.kbhost("current", "--json").out.utf8)) as? [String: Any]
        #expect(json?["identifier"] as? String == "dev.kbhost.System")
        #expect(json?["name"] as? String == "System")
    }

    @Test func displayNamesAnyCaseWhenOnlyOneKeyboardHasThem() throws {
        let w = try World()
        try w.standardKeyboards()
        #expect(try w.kbhost("enable", "alpha", "GAMMA").status == 0)
        #expect(try w.kbhost("list", "--ids").out == "dev.kbhost.System\ndev.example.Alpha\ndev.example.Gamma\n")
        #expect(try w.kbhost("set", "Gamma").out == "dev.example.Gamma\n")
        #expect(try w.kbhost("order", "gamma", "system").status == 0)
        #expect(try w.kbhost("list", "--ids").out == "dev.example.Gamma\ndev.kbhost.System\ndev.example.Alpha\n")
        #expect(try w.kbhost("access", "beta", "on").status == 0)
        #expect(try w.kbhost("disable", "Alpha").status == 0)
        #expect(try w.kbhost("list", "--ids").out == "dev.example.Gamma\ndev.kbhost.System\n")
        #expect(try w.kbhost("protection", "gamma").out == "dev.example.Gamma requires every protection\n")
    }

    @Test func anAmbiguousNameIsRefusedWithTheCandidates() throws {
        let w = try World()
        try w.addKeyboard("dev.example.One", name: "Pad")
        try w.addKeyboard("dev.example.Two", name: "pad")
        let r = try w.kbhost("enable", "PAD")
        #expect(r.status == 3)
        #expect(r.err.contains("2 keyboards are named 'PAD': dev.example.One, dev.example.Two; give one's identifier"), "\(r.err)")
        #expect(try w.kbhost("enable", "dev.example.Two").status == 0, "the identifier still works")
    }

    @Test func aMistypedKeyboardGetsTheClosestOnes() throws {
        let w = try World()
        try w.standardKeyboards()
        let typo = try w.kbhost("enable", "dev.example.Alhpa")
        #expect(typo.status == 3)
        #expect(typo.err.contains("no keyboard dev.example.Alhpa; did you mean dev.example.Alpha?"), "\(typo.err)")
        #expect(try w.kbhost("set", "gamm").err.contains("did you mean dev.example.Gamma?"), "a beginning is close too")
        #expect(try w.kbhost("type", "--keyboard", "Bta", "x").err.contains("did you mean dev.example.Beta?"))
        let far = try w.kbhost("disable", "dev.example.Nothing")
        #expect(far.status == 3, "an unknown keyboard, not a known one that is not enabled")
        #expect(far.err.contains("known keyboards: dev.kbhost.System, dev.example.Alpha"), "\(far.err)")
        #expect(try w.kbhost("disable", "dev.example.Beta").status == 6, "known, not enabled")
    }

    @Test func shellsCompleteKeyboardIdentifiers() throws {
        let w = try World()
        try w.standardKeyboards()
        // What the generated scripts run on TAB: the word being completed is "dev.example.A".
        let words = ["kbhost", "enable", "dev.example.A"]
        let r = try w.run(["---completion", "enable", "--", "positional@0", "2", "13"] + words)
        #expect(r.out == "dev.example.Alpha\n", "\(r.err)")
        let option = try w.run(["---completion", "type", "--", "--keyboard", "3", "4", "kbhost", "type", "--keyboard", "dev."])
        #expect(option.out.split(separator: "\n").sorted() == ["dev.example.Alpha", "dev.example.Beta", "dev.example.Gamma", "dev.kbhost.System"])
        #expect(try w.run(["--generate-completion-script", "bash"]).out.contains("---completion enable"))
    }
}
