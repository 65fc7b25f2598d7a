import KeyboardSDK
import KeyboardTesting
import Testing

/// The guide's section 10: the input model samples, in process.
@Suite("The guide's input model samples")
struct InputModelGuideTests {
    @Test func theModeKeysShareOneActionAndReadTheirPayload() throws {
        let k = try KeyboardTestDriver(ModeKeysKeyboard.self)
        #expect(k.display == "letters")
        try k.tap("αβγ")
        #expect(k.display == "greek")
        try k.tap("123")
        #expect(k.display == "digits")
        #expect(k.payload(of: "abc") == "letters")
        #expect(k.haptics.isEmpty, "no open access: nothing felt")
    }

    @Test func withOpenAccessAPageChangeIsFelt() throws {
        let k = try KeyboardTestDriver(ModeKeysKeyboard.self, hasFullAccess: true)
        try k.tap("αβγ")
        #expect(k.haptics == ["selection"])
        #expect(k.events.last == "haptic: selection")
    }

    @Test func eOffersItsAccentsAndThePickTypesItself() throws {
        let k = try KeyboardTestDriver(ModeKeysKeyboard.self)
        #expect(k.alternates(of: "e") == ["é", "è", "ê"])
        try k.chooseAlternate("è", on: "e")
        try k.run(script: "long:e:ê long:e")
        #expect(k.text == "èêe")
        #expect(k.events.contains("chooseAlternate: è"))
    }

    @Test func theSpaceBarDragMovesTheCursorAndTypesNoSpace() throws {
        let k = try KeyboardTestDriver(CursorDragKeyboard.self, text: "hello")
        try k.drag("space", path: [(dx: -20, dy: 0), (dx: -30, dy: 0)])
        #expect(k.selection.location == 2)
        #expect(k.text == "hello")
        try k.run(script: "drag:space:15 a")
        #expect(k.text == "helalo", "one right, then a: \(k.text)")
        try k.tap("space")
        #expect(k.text == "hela lo", "a tap still types a space")
    }
}
