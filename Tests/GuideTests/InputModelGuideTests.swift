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
}
