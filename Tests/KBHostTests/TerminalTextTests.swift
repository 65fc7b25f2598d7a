import KBHost
import Testing

@Suite("Text from a keyboard or a manifest is data (TerminalText)")
struct TerminalTextTests {
    @Test(arguments: ["", "Calculator", "日本語 ⌫ 🌐 👩‍👩‍👧", "عربي", "H₂O = 2 × 3 ÷ 1 − 1", "a\\u{1B}b"])
    func ordinaryTextIsUnchangedInBothPlaces(_ text: String) {
        #expect(TerminalText.line(text) == text)
        #expect(TerminalText.lines(text) == text)
    }

    @Test func c0ControlsAreEscaped() {
        #expect(TerminalText.lines("\u{0}\u{1}\u{7}\u{8}\u{1F}") == #"\u{0}\u{1}\u{7}\u{8}\u{1F}"#)
        #expect(TerminalText.line("bell\u{7}") == #"bell\u{7}"#)
    }

    @Test func escDelAndC1AreEscaped() {
        let hostile = "\u{1B}[2J\u{1B}]52;c;aGk=\u{7}\u{9B}31m\u{7F}\u{80}\u{85}\u{9F}"
        let expected = #"\u{1B}[2J\u{1B}]52;c;aGk=\u{7}\u{9B}31m\u{7F}\u{80}\u{85}\u{9F}"#
        #expect(TerminalText.lines(hostile) == expected)
        #expect(TerminalText.line(hostile) == expected)
        #expect(!TerminalText.lines(hostile).unicodeScalars.contains { TerminalText.isControl($0) })
    }

    @Test func carriageReturnIsEscapedEvenWhereTextSpansLines() {
        // A CR would let text overwrite the start of its line.
        #expect(TerminalText.lines("ok\rFAKE") == #"ok\rFAKE"#)
        #expect(TerminalText.lines("a\r\nb") == "a\\r\nb")
    }

    @Test func newlinesAndTabsStayWhereTextSpansLinesAndAreEscapedOnOneLine() {
        let text = "line one\n\tline two\n"
        #expect(TerminalText.lines(text) == text)
        #expect(TerminalText.line(text) == #"line one\n\tline two\n"#)
        #expect(TerminalText.line("Evil\n* 1 dev.kbhost.System System") == #"Evil\n* 1 dev.kbhost.System System"#)
    }

    @Test func bidiOverridesIsolatesAndSeparatorsAreEscapedOnOneLine() {
        let text = "a\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}\u{2028}\u{2029}b"
        #expect(TerminalText.line(text) == #"a\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}\u{2028}\u{2029}b"#)
        // In a document they are the author's text (right-to-left writing needs them).
        #expect(TerminalText.lines(text) == text)
        // Marks that do not override anything stay.
        #expect(TerminalText.line("a\u{200E}\u{200F}b") == "a\u{200E}\u{200F}b")
    }

    @Test func anEscapeHidingInAGraphemeClusterIsFound() {
        // ESC followed by a combining mark is one Character; it is escaped all the same.
        #expect(TerminalText.line("x\u{1B}\u{301}") == #"x\u{1B}"# + "\u{301}")
    }

    @Test func escapingTwiceChangesNothing() {
        let once = TerminalText.line("\u{1B}[2J\n\u{9B}\u{202E}")
        #expect(TerminalText.line(once) == once)
        #expect(TerminalText.lines(once) == once)
    }

    @Test func quotedValuesAreEscapedAndCut() {
        #expect(TerminalText.quoted("a\nb") == #"'a\nb'"#)
        #expect(TerminalText.quoted(String(repeating: "x", count: 300), limit: 10) == "'xxxxxxxxxx…'")
        #expect(TerminalText.quoted("short", limit: 10) == "'short'")
    }

    @Test func jsonGetsDelAndC1EscapedAndKeepsEverythingElse() {
        #expect(TerminalText.json(#"{ "k" : "a\u001b[2J"#) == #"{ "k" : "a\u001b[2J"#)
        #expect(TerminalText.json("{ \"k\" : \"\u{7F}\u{9B}é日\" }") == #"{ "k" : "\u007f\u009bé日" }"#)
    }
}
