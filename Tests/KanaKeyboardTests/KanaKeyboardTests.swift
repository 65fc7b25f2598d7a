@testable import Kana
import KeyboardSDK
import KeyboardTesting
import Testing

// No container in these tests: anthy learns nothing, so every test sees its
// dictionary's own order, whatever ran before it.
@Suite("Kana keyboard, in process")
struct KanaKeyboardTests {
    func keyboard(text: String = "", needsInputModeSwitchKey: Bool = true) throws -> KeyboardTestDriver {
        let k = try KeyboardTestDriver(KanaViewController.self, text: text, needsInputModeSwitchKey: needsInputModeSwitchKey,
                                       primaryLanguage: "ja-JP")
        try k.appear()
        return k
    }

    func type(_ k: KeyboardTestDriver, _ romaji: String) throws {
        for letter in romaji { try k.tap(String(letter)) }
    }

    /// The candidate row: the top row's labels.
    func candidates(_ k: KeyboardTestDriver) -> [String] { k.labels[0] }

    @Test func nihongoSpaceReturnTypes日本語() throws {
        let k = try keyboard()
        try type(k, "nihongo")
        try k.tap("space")
        try k.tap("return")
        #expect(k.text == "日本語")
        #expect(k.markedText == nil)
        #expect(k.selection == UTF16Range(location: 3, length: 0))
    }

    @Test func lettersComposeHiraganaAsMarkedTextWithTheInsertionPointAtItsEnd() throws {
        let k = try keyboard(text: "「")
        try k.tap("k")
        #expect(k.markedText == "k", "a consonant waits for its vowel, in sight")
        try k.tap("a")
        #expect(k.markedText == "か")
        try type(k, "nji")
        #expect(k.markedText == "かんじ")
        #expect(k.text == "「かんじ")
        #expect(k.selection == UTF16Range(location: 4, length: 0))
        #expect(k.buffer.markedSelectedRange == UTF16Range(location: 3, length: 0))
        #expect(k.labels.joined().contains("変換") && k.labels.joined().contains("確定"))
    }

    @Test func spaceConvertsAndTheCandidateRowShowsTheSegmentsCandidates() throws {
        let k = try keyboard()
        #expect(candidates(k).isEmpty, "no candidates before a conversion")
        try type(k, "nihongo")
        try k.tap("space")
        #expect(k.markedText == "日本語")
        #expect(candidates(k).first == "日本語")
        #expect(candidates(k).contains("ニホンゴ"))
        #expect(k.display == "にほんご  1/\(candidates(k).count)")
        #expect(k.buffer.markedSelectedRange == UTF16Range(location: 0, length: 3), "the current segment is selected")
        // The candidate keys are function keys named by their index.
        try k.tap("id:candidate.0")
        #expect(k.text == "日本語")
        #expect(candidates(k).isEmpty)
    }

    @Test func spaceAgainMovesToTheNextCandidate() throws {
        let k = try keyboard()
        try type(k, "nihongo")
        try k.tap("space")
        let all = candidates(k)
        try k.tap("space")
        #expect(k.markedText == all[1])
        #expect(k.display == "にほんご  2/\(all.count)")
        for _ in 1..<all.count { try k.tap("space") }
        #expect(k.markedText == all[0], "after the last candidate, the first again")
    }

    @Test func spacePagesThroughLongCandidateLists() throws {
        let k = try keyboard()
        try type(k, "kyou")
        try k.tap("space")
        let firstPage = candidates(k)
        #expect(firstPage.count == KanaViewController.candidatesPerPage)
        for _ in 0..<KanaViewController.candidatesPerPage { try k.tap("space") }
        #expect(candidates(k) != firstPage)
        #expect(candidates(k).first == k.markedText, "the page holding the chosen candidate")
    }

    @Test func tappingACandidateCommitsIt() throws {
        let k = try keyboard(text: "→")
        try type(k, "kyou")
        try k.tap("space")
        let second = candidates(k)[1]
        #expect(second != candidates(k)[0])
        try k.tap("id:candidate.1")
        #expect(k.text == "→" + second)
        #expect(k.markedText == nil)
        #expect(k.labels.joined().contains("空白"), "back to the idle labels")
    }

    @Test func returnCommitsTheKanaOrTheConversionAndOtherwiseIsANewLine() throws {
        let k = try keyboard()
        try type(k, "hon")
        try k.tap("return")
        #expect(k.text == "ほん", "a last n becomes ん")
        #expect(k.markedText == nil)
        try k.tap("return")
        #expect(k.text == "ほん\n")
        try type(k, "nihongo")
        try k.tap("space")
        try k.tap("return")
        #expect(k.text == "ほん\n日本語")
        #expect(k.labels.joined().contains("改行"))
    }

    @Test func deleteEditsTheMarkedTextBeforeTheCommittedText() throws {
        let k = try keyboard(text: "ab")
        try type(k, "kak")
        try k.tap("delete")
        #expect(k.markedText == "か", "the pending letter first")
        try k.tap("delete")
        #expect(k.markedText == nil)
        #expect(k.text == "ab", "the committed text is untouched")
        try k.tap("delete")
        #expect(k.text == "a", "with nothing composed, the document")
    }

    @Test func deleteDuringAConversionGoesBackToTheKana() throws {
        let k = try keyboard(text: "x")
        try type(k, "nihongo")
        try k.tap("space")
        try k.tap("delete")
        #expect(k.markedText == "にほんご")
        #expect(candidates(k).isEmpty)
        try k.tap("delete")
        #expect(k.markedText == "にほん")
        try k.tap("return")
        #expect(k.text == "xにほん")
    }

    @Test func segmentsMoveAndResize() throws {
        let k = try keyboard()
        try type(k, "nihongo")
        try k.tap("space")
        #expect(k.markedText == "日本語")
        // Shorter: にほん | ご, the first segment selected.
        try k.tap("id:shrink")
        let shortened = try #require(k.markedText)
        #expect(shortened.hasPrefix("日本") && shortened.count == 3)
        #expect(k.buffer.markedSelectedRange == UTF16Range(location: 0, length: 2))
        #expect(k.display.hasPrefix("にほん "))
        // ▶: the second segment is current, with its own candidates.
        try k.tap("id:right")
        #expect(k.buffer.markedSelectedRange == UTF16Range(location: 2, length: 1))
        #expect(k.display.hasPrefix("ご "))
        #expect(candidates(k).contains("語"))
        try k.tap("id:right")
        #expect(k.buffer.markedSelectedRange == UTF16Range(location: 2, length: 1), "no segment after the last")
        try k.tap("space")
        #expect(k.markedText != shortened, "space changes the current segment only")
        #expect(k.markedText?.hasPrefix("日本") == true)
        // ◀ and longer again: one segment.
        try k.tap("id:left")
        try k.tap("id:extend")
        #expect(k.markedText == "日本語")
        #expect(k.buffer.markedSelectedRange == UTF16Range(location: 0, length: 3))
        try k.tap("return")
        #expect(k.text == "日本語")
    }

    @Test func choosingACandidateOfAnEarlierSegmentGoesOnToTheNext() throws {
        let k = try keyboard()
        try type(k, "nihongo")
        try k.tap("space")
        try k.tap("id:shrink")
        try k.tap("id:candidate.0")
        #expect(k.markedText != nil, "not committed yet: one segment to go")
        #expect(k.buffer.markedSelectedRange == UTF16Range(location: 2, length: 1))
        let go = try #require(candidates(k).firstIndex(of: "語"))
        try k.tap("id:candidate.\(go)")
        #expect(k.text == "日本語")
        #expect(k.markedText == nil)
    }

    @Test func segmentKeysAppearOnlyWhileConverting() throws {
        let k = try keyboard()
        let tools = ["◀", "▶", "縮", "伸"]
        #expect(tools.allSatisfy { !k.labels.joined().contains($0) })
        try type(k, "ka")
        #expect(tools.allSatisfy { !k.labels.joined().contains($0) })
        try k.tap("space")
        #expect(tools.allSatisfy { k.labels.joined().contains($0) })
    }

    @Test func theToggleSwitchesBetweenKanaAndASCII() throws {
        let k = try keyboard()
        try type(k, "ka")
        try k.tap("id:mode")
        #expect(k.text == "か", "switching commits the composition")
        #expect(k.markedText == nil)
        #expect(k.labels.joined().contains("かな"))
        try type(k, "ok")
        try k.tap(",")
        try k.tap("space")
        try k.tap("shift")
        try k.tap("N")
        try k.tap("return")
        #expect(k.text == "かok, N\n")
        #expect(k.markedText == nil, "letters go straight into the document")
        try k.tap("id:mode")
        try type(k, "ne")
        #expect(k.markedText == "ね")
    }

    @Test func punctuationAndTheLongVowelMarkJoinTheComposition() throws {
        let k = try keyboard()
        try type(k, "ra")
        try k.tap("ー")
        try type(k, "men")
        try k.tap("。")
        #expect(k.markedText == "らーめん。")
        try k.tap("return")
        #expect(k.text == "らーめん。")
        try k.tap("space")
        #expect(k.text == "らーめん。\u{3000}", "space without a composition: an ideographic space")
    }

    @Test func globeKeyFollowsNeedsInputModeSwitchKey() throws {
        let with = try keyboard()
        #expect(with.labels.joined().contains("🌐"))
        try with.tap("globe")
        #expect(with.advanceToNextInputModeCount == 1)

        let without = try keyboard(needsInputModeSwitchKey: false)
        #expect(!without.labels.joined().contains("🌐"))
    }

    @Test func switchingAwayCommitsTheComposition() throws {
        let k = try keyboard()
        try type(k, "nihongo")
        try k.tap("space")
        try k.disappear()
        #expect(k.text == "日本語")
        #expect(k.markedText == nil)
    }

    @Test func anEditFromTheAppThatCommitsTheCompositionEndsIt() throws {
        let k = try keyboard()
        try type(k, "ka")
        try k.editDocument { $0.replace(UTF16Range(location: 1, length: 0), with: "]") }
        #expect(k.markedText == nil)
        try k.tap("return")
        #expect(k.text == "か]\n", "return is a new line again: nothing is composed")
    }

    @Test func anthyIsAvailableHere() {
        // Without it the keyboard still types kana, but these tests would not mean much.
        #expect(KanaConverter(home: nil).isAvailable)
    }
}

@Suite("Romaji to hiragana")
struct RomajiTests {
    func kana(_ romaji: String, flush: Bool = true) -> String {
        var c = RomajiComposer()
        for letter in romaji { c.type(letter) }
        if flush { c.flush() }
        return c.text
    }

    @Test func syllables() {
        #expect(kana("aiueo") == "あいうえお")
        #expect(kana("kakikukeko") == "かきくけこ")
        #expect(kana("shichitsufuji") == "しちつふじ")
        #expect(kana("sitituhuzi") == "しちつふじ", "Kunrei too")
        #expect(kana("wawo") == "わを")
    }

    @Test func contractedSounds() {
        #expect(kana("kyakyukyo") == "きゃきゅきょ")
        #expect(kana("shashusho") == "しゃしゅしょ")
        #expect(kana("jajujo") == "じゃじゅじょ")
        #expect(kana("chacha") == "ちゃちゃ")
        #expect(kana("ryokou") == "りょこう")
    }

    @Test func doubledConsonantsAreSmallTsu() {
        #expect(kana("kitte") == "きって")
        #expect(kana("zasshi") == "ざっし")
        #expect(kana("matcha") == "まっちゃ")
        #expect(kana("xtultu") == "っっ")
        #expect(kana("xyaltsu") == "ゃっ")
    }

    @Test func theSyllabicN() {
        #expect(kana("nihongo") == "にほんご", "n before a consonant")
        #expect(kana("konnnichiha") == "こんにちは", "nn is ん")
        #expect(kana("hon") == "ほん", "a last n, when flushed")
        #expect(kana("hon", flush: false) == "ほn", "and until then, a letter")
        #expect(kana("kanyou") == "かにょう", "ny is a syllable")
        #expect(kana("ra-men") == "らーめん")
    }

    @Test func lettersThatStartNoKanaStay() {
        #expect(kana("qa") == "qあ")
    }

    @Test func deleteBackwardTakesPendingLettersFirst() {
        var c = RomajiComposer()
        for letter in "kaky" { c.type(letter) }
        #expect(c.text == "かky")
        c.deleteBackward()
        #expect(c.text == "かk")
        c.deleteBackward()
        c.deleteBackward()
        #expect(c.isEmpty)
    }

    @Test func katakana() {
        #expect(Romaji.katakana("にほんご") == "ニホンゴ")
        #expect(Romaji.katakana("ゔぁーじょん") == "ヴァージョン")
        #expect(KanaConverter.fallback("かな").candidates == ["かな", "カナ"])
    }
}
