import Foundation
import KBHost
import Testing

/// dev.kbhost.Kana in its extension process, through `kbhost type`: anthy
/// inside the sandbox, its history in the keyboard's container.
@Suite("Kana keyboard through kbhost type")
struct KanaTests {
    static let real = ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!]

    func type(_ w: World, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try w.run(["type", "--keyboard", "dev.kbhost.Kana"] + arguments, extraEnvironment: KanaTests.real)
    }

    func romaji(_ word: String) -> [String] { word.map { String($0) } }

    @Test func nihongoSpaceReturnTypes日本語() throws {
        let w = try World()
        let r = try type(w, romaji("nihongo") + ["space", "return"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "日本語\n")
    }

    @Test func deleteEditsTheMarkedTextBeforeTheCommittedText() throws {
        let w = try World()
        // Converted, then delete: back to the kana, and one kana less; 日本 before it is untouched.
        let back = try type(w, ["--text", "日本"] + romaji("nihongo") + ["space", "delete", "delete", "return"])
        #expect(back.status == 0, "\(back.err)")
        #expect(back.out == "日本にほん\n")
        // The pending letter, the kana, and only then the document.
        let json = try type(w, ["--json", "--text", "ab"] + romaji("kak") + ["delete", "delete", "delete"])
        #expect(json.status == 0, "\(json.err)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect(report["text"] as? String == "a")
        #expect(report["markedText"] is NSNull, "no marked text, and the key is there")
    }

    @Test func whatTheUserChoosesIsLearnedInTheKeyboardsContainer() throws {
        let w = try World()
        #expect(try type(w, romaji("nihongo") + ["space", "space", "return"]).out == "にほんご\n")
        #expect(try type(w, romaji("nihongo") + ["space", "return"]).out == "にほんご\n",
                "the next process ranks the last choice first")
        let history = w.home + "/Containers/Keyboards/dev.kbhost.Kana/.anthy"
        #expect(FileManager.default.fileExists(atPath: history), "anthy's files are in the container, not the user's home")
    }

    @Test func peakFootprintWhileTypingStaysUnderTheDefaultBudget() throws {
        let w = try World()
        // 1,000 keys of phrases: compose, convert, next candidate, commit.
        let phrases = ["watashiha", "nihongowo", "benkyoushiteimasu", "kyouha", "tenkiga", "iidesune", "toukyouekimade",
                       "arukimashita", "shinkansennno", "kippuwo", "yoyakushimashita"]
        var taps: [String] = []
        var i = 0
        while taps.count < 999 {
            taps += romaji(phrases[i % phrases.count]) + ["space"] + (i % 3 == 0 ? ["space"] : [])
            if i % 4 == 3 { taps += ["。", "return"] }
            i += 1
        }
        taps = Array(taps.prefix(999)) + ["return"]
        let script = w.root + "/script.txt"
        try taps.joined(separator: "\n").write(toFile: script, atomically: true, encoding: .utf8)
        // Under the default budget, enforced: a kill would fail the run.
        let typed = try type(w, ["--json", "--script", script])
        #expect(typed.status == 0, "\(typed.err)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(typed.out.utf8)) as? [String: Any])
        #expect(report["memoryBudgetBytes"] as? Int == 48 << 20)
        #expect((report["text"] as? String)?.contains("日本語") == true)
        // And sampled after every tap.
        let p = try w.run(["profile", "dev.kbhost.Kana", "--script", script, "--svg", w.root + "/p.svg", "--json"],
                          extraEnvironment: KanaTests.real)
        #expect(p.status == 0, "\(p.err)")
        let profile = try #require(try JSONSerialization.jsonObject(with: Data(p.out.utf8)) as? [String: Any])
        #expect(profile["taps"] as? Int == 1000)
        let peak = try #require(profile["peakFootprintBytes"] as? Int)
        #expect(peak > 0 && peak < 48 << 20, "peak \(peak) bytes")
        let rows = try #require(profile["profiles"] as? [[String: Any]])
        #expect(rows.first?["profile"] as? String == "older-phone")
        #expect(rows.first?["fits"] as? Bool == true)
    }
}
