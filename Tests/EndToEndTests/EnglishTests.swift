import Foundation
import KBHost
import Testing

/// dev.kbhost.English in its extension process, through `kbhost type`:
/// hunspell's dictionary read from /usr/share/hunspell inside the sandbox.
@Suite("English keyboard through kbhost type")
struct EnglishTests {
    static let real = ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!]

    func type(_ w: World, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try w.run(["type", "--keyboard", "dev.kbhost.English"] + arguments, extraEnvironment: EnglishTests.real)
    }

    func json(_ r: (status: Int32, out: String, err: String)) throws -> [String: Any] {
        #expect(r.status == 0, "\(r.err)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    }

    @Test func tehIsCorrectedOnlyWhenTheFieldAllowsIt() throws {
        let w = try World()
        let on = try type(w, ["--autocapitalization", "none", "t", "e", "h", "space"])
        #expect(on.status == 0, "\(on.err)")
        #expect(on.out == "the \n")
        let off = try type(w, ["--autocorrection", "no", "--autocapitalization", "none", "t", "e", "h", "space"])
        #expect(off.out == "teh \n")
        // A sentence's first word is a capital, and its correction keeps it.
        #expect(try type(w, ["t", "e", "h", "space"]).out == "The \n")
    }

    @Test func shiftCapsLockAndDeleteRepeat() throws {
        let w = try World()
        let r = try type(w, ["--autocapitalization", "none", "shift", "a", "b", "double:shift", "c", "d", "shift", "e",
                             "space", "x", "y", "z", "hold:delete:500"])
        // hold 500 ms: delete on touch down, one repeat at 0.4 s.
        #expect(r.out == "AbCDe x\n", "\(r.err)")
    }

    @Test func suggestionTapReplacesTheWord() throws {
        let w = try World()
        let r = try type(w, ["--autocapitalization", "none", "t", "h", "i", "e", "r", "their", "x"])
        #expect(r.out == "their x\n", "\(r.err)")
    }

    @Test func textReplacementsFromTheUserExpandOnSpace() throws {
        let w = try World()
        #expect(try w.run(["replacements", "add", "omw", "On my way!"], extraEnvironment: EnglishTests.real).status == 0)
        let r = try type(w, ["o", "m", "w", "space", "s", "e", "e", "space", "y", "o", "u"])
        #expect(r.out == "On my way! See you\n", "\(r.err)")
    }

    @Test func fanFollowsTheOrientation() throws {
        let w = try World()
        // Portrait, the left thumb's fan; landscape, both; the same letters type the same words.
        let r = try json(type(w, ["--json", "rotate:portrait", "id:arrangement", "h", "i", "space",
                                  "rotate:landscape", "y", "o", "space", "id:arrangement", "o", "k"]))
        #expect(r["text"] as? String == "Hi yo ok")
    }

    @Test func peakFootprintWhileTypingStaysUnderTheDefaultBudget() throws {
        let w = try World()
        let words = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "teh", "keyboard", "recieve",
                     "hello", "world", "thier", "because", "spelling"]
        var taps: [String] = []
        var i = 0
        while taps.count < 400 {
            let word = words[i % words.count].map { String($0) }
            if i % 6 == 5 { taps.append("shift") }
            if i % 7 == 3 {
                taps += word.prefix(2) + ["x", "delete"] + word.dropFirst(2)  // a typo, deleted
            } else {
                taps += word
            }
            taps.append("space")
            if i % 5 == 4 { taps += ["delete", "123", ".", "space"] }
            i += 1
        }
        let script = w.root + "/script.txt"
        try taps.joined(separator: "\n").write(toFile: script, atomically: true, encoding: .utf8)
        // Under the default budget, enforced: a kill would fail the run.
        let report = try json(type(w, ["--json", "--script", script]))
        #expect(report["memoryBudgetBytes"] as? Int == 48 << 20)
        let peak = try #require(report["peakFootprintBytes"] as? Int)
        #expect(peak > 0 && peak < 48 << 20, "peak \(peak) bytes")
        let text = try #require(report["text"] as? String)
        // Corrected (teh, recieve, thier), capitals after ". ", and a shift tap on an auto-capital turns it off ("over").
        #expect(text.hasPrefix("The quick brown fox jumps. over lazy dog the keyboard. Receive Hello world their because. Spelling"),
                "\(text.prefix(120))")
    }
}
