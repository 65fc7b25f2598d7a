import KBHost
import Testing

/// `attach` reads keys, not reads: batched, split and mixed input decodes the same.
@Suite("TerminalInput: bytes from a terminal as keys")
struct TerminalInputTests {
    func keys(_ chunks: [[UInt8]]) -> [TerminalInput.Key] {
        var decoder = TerminalInput()
        var out: [TerminalInput.Key] = []
        for chunk in chunks { out += decoder.feed(chunk) }
        return out + decoder.flush()
    }

    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func aPasteTypesEveryCharacterSpaceAndControl() {
        #expect(keys([bytes("i am here.\r")]) == [
            .character("i"), .space, .character("a"), .character("m"), .space, .character("h"), .character("e"),
            .character("r"), .character("e"), .character("."), .enter,
        ])
        #expect(keys([[127, 127, 27, 91, 68, 27, 91, 68]]) == [.backspace, .backspace, .left, .left])
    }

    @Test func splitAnywhereGivesTheSameKeys() {
        let all = bytes("aé日👍") + [27, 91, 49, 59, 50, 67] + bytes("\t") + [27, 91, 90] + [7]
        let whole = keys([all])
        #expect(whole == [.character("a"), .character("é"), .character("日"), .character("👍"), .shiftRight, .tab,
                          .shiftTab, .control(7)])
        for cut in 1..<all.count {
            #expect(keys([Array(all[..<cut]), Array(all[cut...])]) == whole, "split at byte \(cut)")
        }
        #expect(keys(all.map { [$0] }) == whole, "one byte per read")
    }

    @Test func aLoneEscapeIsEscapeOnlyWhenNothingFollows() {
        var decoder = TerminalInput()
        #expect(decoder.feed([27]) == [])
        #expect(decoder.isWaiting)
        #expect(decoder.flush() == [.escape])
        #expect(keys([[27], [91, 67]]) == [.right], "an arrow split after ESC")
        #expect(keys([[27, 120]]) == [.escape, .character("x")], "Alt-x")
    }

    @Test func garbageNeverBecomesText() {
        #expect(keys([[0xFF, 0xC3]]) == [.unknown], "a bad byte is unknown; a broken character is dropped")
        #expect(keys([[27, 91, 50, 48, 48, 126]]) == [.unknown], "bracketed paste start: not text")
        #expect(keys([[0xC2, 0x9B]]) == [.unknown], "C1 control (CSI)")
    }
}

@Suite("TerminalText.cut: lines fit the terminal")
struct TerminalCutTests {
    @Test func cutsByColumnsWithAnEllipsisAndKeepsStyling() {
        #expect(TerminalText.cut("hello", toWidth: 10) == "hello")
        #expect(TerminalText.cut("hello world", toWidth: 8) == "hello w…\u{1B}[0m")
        #expect(TerminalText.cut("日本語日本語", toWidth: 7) == "日本語…\u{1B}[0m", "wide characters take two columns")
        let styled = "\u{1B}[4mabc\u{1B}[24mdefgh"
        #expect(TerminalText.cut(styled, toWidth: 20) == styled, "escapes take no columns")
        #expect(TerminalText.cut(styled, toWidth: 5) == "\u{1B}[4mabc\u{1B}[24md…\u{1B}[0m")
    }
}
