import KBHost
import Testing

@Suite("Error messages quote a keyboard's text escaped")
struct EscapedErrorTests {
    @Test func aFailureShowsItsPhaseAndReasonOnOneLineAndItsOutputALineEach() {
        let failure = KeyboardFailure(keyboardID: "dev.example.K", phase: "key '\u{1B}[2J\n'",
                                      reason: .protocolViolation("bad\u{9B}"),
                                      stderrTail: "one\u{1B}]52;c;aGk=\u{7}\ntwo\rthree\tfour\n")
        #expect(failure.description == """
            keyboard dev.example.K failed during key '\\u{1B}[2J\\n': broke the wire protocol and was ended: bad\\u{9B}
              its output ended with:
                one\\u{1B}]52;c;aGk=\\u{7}
                two\\rthree\\tfour
            """)
    }

    @Test func noSuchKeyQuotesTheLabelsEscaped() {
        let error = SessionError.noSuchKey(name: "x", keyboardID: "dev.example.K", labels: ["a", "b\n\u{1B}[2J"])
        #expect(error.description == #"keyboard dev.example.K has no key 'x'; its keys are: a b\n\u{1B}[2J"#)
    }

    /// Empty slots (English's suggestion row before anything is typed) are not listed as blanks.
    @Test func noSuchKeyListsNoEmptySlots() {
        let error = SessionError.noSuchKey(name: "1", keyboardID: "dev.example.K", labels: ["", "", "", "q", "w", "", "space"])
        #expect(error.description == "keyboard dev.example.K has no key '1'; its keys are: q w space")
    }
}
