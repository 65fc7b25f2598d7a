import Foundation
import KBHost
import KBText
import Testing

/// Letters typed through the input manager (what `attach` and the IBus engine do with a
/// character) come out in the case they were typed, whatever the keyboard's shift state.
extension InputManagerLibraryTests {
    func typed(_ text: String, on id: String, after start: String = "", otherPages: Bool = false,
               traits: TextInputTraits = TextInputTraits()) throws -> (String, [InputManager.TapOutcome]) {
        let (w, registry, store) = try world()
        defer { withExtendedLifetime(w) {} }
        let (m, _) = try manager(registry, store, enabled: [SystemKeyboard.identifier, id], current: id,
                                 field: FieldContext(traits: traits), text: start)
        defer { m.close() }
        let outcomes = text.map { m.tap($0 == " " ? "space" : String($0), otherPages: otherPages) }
        return (m.currentDocument.text, outcomes)
    }

    /// English capitalizes a sentence's first letter by itself: a typed capital there is the
    /// letter (tapping shift first turned the automatic capital off: "hello"); elsewhere shift.
    @Test func englishTypesCapitalsWhereverTheShiftStateIs() throws {
        let (text, outcomes) = try typed("Hello World It is OK", on: "dev.kbhost.English")
        #expect(text == "Hello World It is OK")
        #expect(outcomes.allSatisfy { $0 == .tapped }, "\(outcomes)")
        #expect(try typed("It", on: "dev.kbhost.English", after: "Done. ").0 == "Done. It", "a sentence's start after the field's text")
        var none = TextInputTraits()
        none.autocapitalization = .none
        #expect(try typed("Hi you", on: "dev.kbhost.English", traits: none).0 == "Hi you", "no automatic capital")
    }

    /// Science's shift stays latched and its labels follow it: after a capital, a small letter
    /// taps shift off again (it was "no key 'i'": "H", then nothing).
    @Test func scienceTypesSmallLettersAfterACapital() throws {
        let (text, outcomes) = try typed("Hi there H2O", on: "dev.kbhost.Science")
        #expect(text == "Hi there H2O")
        #expect(outcomes.allSatisfy { $0 == .tapped }, "\(outcomes)")
    }

    /// attach types a character from another page (English's punctuation and digits behind 123,
    /// Science's Greek) and goes back to the page it was on; the IBus engine does not ask, so the
    /// app gets those keys.
    @Test func attachReachesCharactersOnOtherPages() throws {
        let english = try typed("Hello, world. It's 5 o'clock!", on: "dev.kbhost.English", otherPages: true)
        #expect(english.0 == "Hello, world. It's 5 o'clock!")
        #expect(english.1.allSatisfy { $0 == .tapped }, "\(english.1)")
        let science = try typed("Hi α+β=γ", on: "dev.kbhost.Science", otherPages: true)
        #expect(science.0 == "Hi α+β=γ")
        let missing = try typed("a#b", on: "dev.kbhost.English", otherPages: true)
        #expect(missing.1 == [.tapped, .noSuchKey, .tapped], "no page has '#': the keyboard is back on its letters")
        #expect(missing.0 == "Ab")
        let ibus = try typed("a.", on: "dev.kbhost.English")
        #expect(ibus.1 == [.tapped, .noSuchKey], "without otherPages a key on another page is the app's")
    }
}
