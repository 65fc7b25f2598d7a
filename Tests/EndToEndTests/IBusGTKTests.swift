import Foundation
import Glibc
import KBHost
import Testing

@Suite("kbhost ibus in a real GTK 3 app under Xvfb", .serialized,
       .enabled(if: GTKDesktop.missing.isEmpty, GTKDesktop.skipNote))
struct IBusGTKTests {
    /// Where the picture of Kana's preedit and candidates goes: docs/images/ibus-kana.png (README's
    /// picture) when KBHOST_UPDATE_SCREENSHOTS=1, else the test's own folder (the tree stays clean).
    static func screenshotPath(_ desktop: GTKDesktop) -> String {
        ProcessInfo.processInfo.environment["KBHOST_UPDATE_SCREENSHOTS"] == "1"
            ? GTKDesktop.root.appendingPathComponent("docs/images/ibus-kana.png").path
            : desktop.w.root + "/ibus-kana.png"
    }

    @Test func kanaComposesInTheEntryShowsCandidatesAndCommits日本語() throws {
        let d = try GTKDesktop([["enable", "dev.kbhost.Kana"], ["set", "dev.kbhost.Kana"]])
        try d.type("nihongo")
        #expect(d.wait("the preedit にほんご") { $0.preedit == "にほんご" }?.entry == "",
                "romaji compose in GTK's preedit; nothing is in the entry yet")
        try d.key("space")
        #expect(d.wait("the conversion 日本語") { $0.preedit == "日本語" } != nil)
        var shot = d.frame.count == 4 ? d.frame : [0, 0, 800, 600]
        if d.hasPanel {
            var candidates: [Int]?
            let shown = d.eventually(seconds: 5) {
                candidates = try? d.candidateWindow()
                return candidates != nil
            }
            #expect(shown, "IBus's candidate window shows Kana's candidates")
            if let c = candidates, shot.count == 4 {  // the picture: the window and the candidate window
                let right = max(shot[0] + shot[2], c[0] + c[2]) + 12, bottom = max(shot[1] + shot[3], c[1] + c[3]) + 12
                shot = [max(0, shot[0] - 12), max(0, shot[1] - 12), 0, 0]
                shot[2] = min(800, right) - shot[0]
                shot[3] = min(600, bottom) - shot[1]
            }
        }
        let path = Self.screenshotPath(d)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        d.send("screenshot \(path) \(shot.map(String.init).joined(separator: " "))")
        let saved = d.wait("the screenshot") { $0.event == "screenshot" }
        #expect(saved?.preedit == "日本語", "the picture shows the preedit")
        let png = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count < 200_000, "\(png.count) bytes")

        try d.key("Return")
        let committed = d.wait("日本語 in the entry") { $0.entry == "日本語" && $0.preedit == "" }
        #expect(committed?.entry == "日本語")
        if d.hasPanel {
            #expect(d.eventually(seconds: 5) { (try? d.candidateWindow()) == nil }, "the candidate window is gone")
        }

        // Focus moving to another widget commits what is composed (IBus's commit mode), as iOS does.
        try d.type("kana")
        #expect(d.wait("the preedit かな") { $0.preedit == "かな" } != nil)
        d.send("focus text")
        #expect(d.wait("かな committed to the entry") { $0.entry == "日本語かな" && $0.preedit == "" } != nil)
        // The text view is an input context of its own: Kana composes and commits there too.
        try d.type("desu")
        try d.key("Return")
        #expect(d.wait("です in the text view") { $0.text == "です" && $0.preedit == "" }?.entry == "日本語かな")
    }

    @Test func englishAutocorrectsAndFollowsTheEntrysHints() throws {
        let d = try GTKDesktop([["enable", "dev.kbhost.English"], ["set", "dev.kbhost.English"]])
        try d.type("teh ")
        #expect(d.wait("The ") { $0.entry == "The " } != nil, "autocorrected, and a capital at the start of the field")
        // Backspace deletes through IBus's surrounding text, in the app's own text.
        try d.type("helo")
        try d.key("BackSpace")
        #expect(d.wait("The hel") { $0.entry == "The hel" } != nil)
        // GTK_INPUT_HINT_LOWERCASE: no automatic capital.
        d.send("hints 8")
        d.send("clear")
        _ = d.wait("an empty entry") { $0.event == "state" && $0.entry == "" }
        d.letTheAppsChangeArrive()
        try d.type("teh ")
        #expect(d.wait("the ") { $0.entry == "the " } != nil, "the field's hints reach the keyboard")
        // GTK_INPUT_HINT_NO_SPELLCHECK: no autocorrection either.
        d.send("hints 2")
        d.send("clear")
        _ = d.wait("an empty entry") { $0.event == "state" && $0.entry == "" }
        d.letTheAppsChangeArrive()
        try d.type("teh ")
        #expect(d.wait("Teh ") { $0.entry == "Teh " } != nil)
    }

    /// Where an input method and a GTK 3 app easily disagree; each expectation is what the app
    /// does with no input method at all (both failed with the first engine).
    @Test func returnActivatesTheEntryAndBackspaceDeletesTheSelection() throws {
        let d = try GTKDesktop([["enable", "dev.kbhost.English"], ["set", "dev.kbhost.English"]])
        d.send("hints 8")  // lowercase: no automatic capitals to account for
        _ = d.wait("the hints") { $0.event == "state" }
        try d.type("hello")
        _ = d.wait("hello") { $0.entry == "hello" }
        // Return with nothing composed is the app's: a GtkEntry activates (a search box searches, a
        // dialog's default button fires). The engine takes the key and commits the keyboard's "\n":
        // the entry gets a newline character and no activate signal.
        try d.key("Return")
        _ = d.wait("Return handled") { $0.event == "activate" || $0.entry.hasSuffix("\n") }
        #expect(d.history.contains { $0.event == "activate" }, "the entry was activated")
        #expect(d.state()?.entry == "hello")
        // GTK 3 never tells an input method the selection (its surrounding text has a cursor and no
        // anchor): with the entry's text selected, the keyboard's delete becomes delete_surrounding_text
        // (-1, 1), which GTK applies before the cursor, leaving the selection; without an input method,
        // Backspace deletes the selection.
        d.send("clear")
        _ = d.wait("an empty entry") { $0.event == "state" && $0.entry == "" }
        try d.type("abc")
        _ = d.wait("abc") { $0.entry == "abc" }
        d.send("select")
        _ = d.wait("the selection") { $0.event == "state" }
        try d.key("BackSpace")
        _ = d.wait("Backspace handled") { $0.entry != "abc" }
        #expect(d.state()?.entry == "", "a delete alone is a forwarded BackSpace: the app deletes its selection")
    }
}
