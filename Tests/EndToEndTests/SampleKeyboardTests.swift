import Foundation
import KBHost
import KBSystem
import KBText
import Testing

/// The real sample plugins, each dlopened into its own extension process.
@Suite("Sample keyboards in their extension processes")
struct SampleKeyboardTests {
    @Test(arguments: ["dev.kbhost.Calculator", "dev.kbhost.Science", "dev.kbhost.NumberPad"])
    func eachKeyboardRunsInItsOwnProcess(id: String) throws {
        let session = try Fixtures.session(try Fixtures.sample(id))
        #expect(session.pid != getpid())
        #expect(session.pid > 0)
        #expect(Fixtures.processExists(session.pid))
        #expect(session.events.map(\.name) == ["viewDidLoad", "viewWillAppear", "viewDidAppear"])
        let pid = session.pid
        session.close()
        #expect(!Fixtures.processExists(pid), "closing a session reaps its process")
    }

    @Test func calculatorInsertsTheResultOnly() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.Calculator"))
        for key in ["1", "2", "+", "3"] { try session.tap(key) }
        #expect(session.layout.display == "12+3")
        #expect(session.document.text == "")
        try session.tap("=")
        #expect(session.document.text == "15")
    }

    @Test func scienceMovesTheCursorOverEmojiAndDeletesOnlyWithText() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.Science"), text: "x👩‍👩‍👧y")
        try session.tap("id:left")
        try session.tap("id:left")
        #expect(session.document.buffer.selection.location == 1, "the family emoji (8 UTF-16 units) is one character")
        try session.tap("delete")
        try session.tap("delete")
        #expect(session.document.text == "👩‍👩‍👧y")
        try session.tap("id:mode.3")
        try session.tap("λ")
        #expect(session.document.text == "λ👩‍👩‍👧y")
    }

    @Test func numberPadInCWorksTheSameWay() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.NumberPad"))
        for key in ["4", "2", "delete", "7"] { try session.tap(key) }
        #expect(session.document.text == "47")
        try session.perform(.hold(milliseconds: 1000), on: "delete")
        #expect(session.document.text == "")
    }

    @Test func globeReachesTheHost() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.NumberPad"))
        var advanced = 0
        session.onAdvanceToNextInputMode = { advanced += 1 }
        try session.tap("globe")
        #expect(advanced == 1)
        #expect(session.events.contains(SessionEvent("advanceToNextInputMode")))
    }

    @Test func noGlobeKeyWhenTheHostDrawsItsOwn() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.Calculator"), needsInputModeSwitchKey: false)
        #expect(session.layout.key(named: "globe") == nil)
    }

    @Test func lifeCycleOnSwitchingAwayAndBack() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.Science"))
        try session.disappear()
        try session.appear()
        #expect(session.events.map(\.name) == ["viewDidLoad", "viewWillAppear", "viewDidAppear",
                                               "viewWillDisappear", "viewDidDisappear", "viewWillAppear", "viewDidAppear"])
    }

    @Test func changesFromOutsideSendTextAndSelectionCallbacksAndAFreshWindow() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.Science"), text: "abc")
        try session.editDocument { $0.buffer.select(UTF16Range(location: 1, length: 0)) }
        try session.editDocument { $0.buffer.replace(UTF16Range(location: 0, length: 0), with: "日本") }
        // The keyboard's view must be the new one: ◀ moves over 本, not over a stale "a".
        try session.tap("id:left")
        try session.tap("q")
        #expect(session.document.text == "日q本abc")
        let names = session.events.map(\.name)
        #expect(names.contains("selectionWillChange") && names.contains("selectionDidChange"))
        #expect(names.contains("textWillChange") && names.contains("textDidChange"))
    }

    @Test func longDocumentsStayCorrectPastTheContextWindow() throws {
        // 2,000 characters, far more than the 512-unit window the keyboard sees.
        let start = String(repeating: "abcdefghij", count: 200)
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.NumberPad"), text: start)
        for _ in 0..<700 { try session.tap("delete") }
        #expect(session.document.text == String(start.prefix(1300)))
        for _ in 0..<600 { try session.tap("7") }
        #expect(session.document.text == String(start.prefix(1300)) + String(repeating: "7", count: 600))
    }
}

@Suite("kbhost type")
struct TypeCommandTests {
    @Test func calculatorExampleFromTheReadme() throws {
        let (status, out, _) = try Fixtures.runCLI(["type", "--keyboard", "dev.kbhost.Calculator", "1", "2", "+", "3", "="])
        #expect(status == 0)
        #expect(out == "15\n")
    }

    @Test func jsonHasTextSelectionMarkedTextAndEvents() throws {
        let (status, out, _) = try Fixtures.runCLI(["type", "--keyboard", "dev.kbhost.NumberPad", "--json", "1", "2", "globe"])
        #expect(status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        #expect(object["text"] as? String == "12")
        #expect((object["selection"] as? [String: Int])?["location"] == 2)
        let events = try #require(object["events"] as? [String])
        #expect(events == ["viewDidLoad", "viewWillAppear", "viewDidAppear", "advanceToNextInputMode",
                           "viewWillDisappear", "viewDidDisappear"])
    }

    @Test func unknownKeyIsAClearErrorAndKeepsTheText() throws {
        let (status, out, err) = try Fixtures.runCLI(["type", "--keyboard", "dev.kbhost.NumberPad", "1", "x", "2"])
        #expect(status == 5)
        #expect(out == "1\n")
        #expect(err.contains("has no key 'x'"))
    }

    @Test func unknownKeyboardNamesTheKnownOnes() throws {
        let (status, _, err) = try Fixtures.runCLI(["type", "--keyboard", "dev.kbhost.Nope", "1"])
        #expect(status == 3)
        #expect(err.contains("dev.kbhost.Calculator"))
    }
}

@Suite("Pipelined taps")
struct PipelinedTapTests {
    @Test func pipelinedTapsTypeWhatSingleTapsType() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.Science"), text: "→")
        let keys = ["h", "e", "l", "l", "o", "space", "w", "o", "r", "l", "d"].map { session.layout.key(named: $0)! }
        var acknowledged = 0
        try session.tapAll(keys, acknowledged: &acknowledged)
        #expect(acknowledged == keys.count)
        #expect(session.document.text == "→hello world")
    }

    @Test func aFailureInTheMiddleKeepsWhatCameBefore() throws {
        let session = try Fixtures.session(Fixtures.fault("CrashOnKey"), text: "")
        let one = session.layout.key(named: "1")!, boom = session.layout.key(named: "boom")!
        var acknowledged = 0
        #expect(throws: KeyboardFailure.self) { try session.tapAll([one, one, one, boom, one], acknowledged: &acknowledged) }
        #expect(acknowledged == 3)
        #expect(session.document.text == "111", "the three answered taps are committed, nothing after the crash")
        #expect(session.failure?.kind == "crash")
    }
}
