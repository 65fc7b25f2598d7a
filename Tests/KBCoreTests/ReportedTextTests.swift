import KBCore
import KBText
import Testing

/// The app's reports of its text against the keyboard's edits in flight, in the orders
/// IBus delivered them on a loaded machine (the traces are from `kbhost ibus` under a GTK
/// app typing with xdotool while three busy loops ran).
@Suite("An app's reported text and the keyboard's edits in flight")
struct ReportedTextTests {
    /// The keyboard's side: a document, its edits, and what the front end learns.
    struct Engine {
        var document = TextBuffer()
        var reported = ReportedText()
        mutating func type(_ edits: TextEdit...) {
            for edit in edits {
                let before = document
                edit.apply(to: &document)
                reported.sent(edit, before: before, after: document)
            }
        }
        mutating func report(_ text: String) {
            if let changed = reported.reported(TextBuffer(text: text)) { document = changed }
        }
    }

    @Test func lateReportsOfTheKeyboardsOwnTypingChangeNothing() {
        var e = Engine()
        e.type(.insertText("T"), .insertText("e"), .insertText("h"))
        e.report("Te")  // sent before the app received "h"
        #expect(e.document.text == "Teh")
        e.type(.deleteBackward, .deleteBackward, .deleteBackward, .insertText("The "))  // an autocorrection
        e.report("Teh")
        e.report("The ")
        #expect(e.document.text == "The ")
        #expect(e.reported.pending == 0)
    }

    /// The flake this type exists for: the app emptied its field, and its report of that
    /// arrived after the keyboard had typed on the old text.
    @Test func aClearedFieldReportedLateKeepsTheKeysTypedSince() {
        var e = Engine()
        e.document = TextBuffer(text: "The hel")
        e.type(.insertText("t"))  // the engine still thinks "The hel"
        e.report("")  // the app cleared, then received nothing yet
        #expect(e.document.text == "t", "the key typed lands on the cleared field")
        e.type(.insertText("e"))
        e.report("t")
        e.type(.insertText("h"))
        e.report("te")
        #expect(e.document.text == "teh", "the word on the screen is the word the keyboard sees")
        e.report("teh")
        #expect(e.reported.pending == 0)
    }

    @Test func anEditIsAppliedAgainOnlyOnce() {
        var e = Engine()
        e.document = TextBuffer(text: "ab")
        e.type(.insertText("c"))
        e.report("x")  // the app's own change, before the "c" arrived
        #expect(e.document.text == "xc")
        e.report("zz")  // and another after it: the "c" is not taken twice
        #expect(e.document.text == "zz")
    }

    /// The app changed its text and then received the keyboard's key, and its first report
    /// shows both: the key is not typed twice.
    @Test func aReportThatAlreadyHoldsTheEditsInFlightIsTheDocument() {
        var e = Engine()
        e.type(.insertText("T"))
        e.report("it works. T")
        #expect(e.document.text == "it works. T")
        e.type(.insertText("e"), .insertText("h"), .deleteBackward, .deleteBackward, .deleteBackward, .insertText("The "))
        e.report("Hi. The ")  // replaced by the app, then every edit arrived: read back through the deletions
        #expect(e.document.text == "Hi. The ")
        e.type(.insertText("x"))
        e.report("Hi. The")  // the app deleted its space before the "x" arrived
        #expect(e.document.text == "Hi. Thex")
    }

    @Test func reportsOfTheAppsOwnChangesWithNothingInFlightAreTheDocument() {
        var e = Engine()
        e.report("hello")
        #expect(e.document.text == "hello")
        e.type(.insertText("!"))
        e.report("hello!")
        e.report("")  // cleared by the app after it showed "hello!"
        #expect(e.document.text == "")
    }

    @Test func markedTextIsNeverAnEchoButLandsWithItsCommit() {
        var e = Engine()
        e.type(.setMarkedText("かな", selectedRange: UTF16Range(location: 2, length: 0)), .unmarkText)
        e.report("x")  // the app's change before the commit arrived
        #expect(e.document.text == "xかな" && e.document.markedRange == nil)
        e.report("xかな")
        #expect(e.reported.pending == 0)
    }

    @Test func tooMuchTextInFlightIsForgottenAndTheNextReportIsTaken() {
        var e = Engine()
        e.type(.insertText(String(repeating: "a", count: ReportedText.inFlightTextLimit)))
        #expect(e.reported.pending == 1)
        e.type(.insertText("b"))  // over the limit: nothing is kept to apply again
        #expect(e.reported.pending == 0)
        e.report("c")
        #expect(e.document.text == "c")
    }

    @Test func tooManyEditsInFlightAreForgottenAndTheNextReportIsTaken() {
        var e = Engine()
        for _ in 0...ReportedText.inFlightLimit { e.type(.insertText("a")) }
        #expect(e.reported.pending < ReportedText.inFlightLimit)
        e.reported.forget()
        e.report("b")
        #expect(e.document.text == "b")
    }
}
