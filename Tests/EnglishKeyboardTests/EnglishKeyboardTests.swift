@testable import English
import KeyboardSDK
import KeyboardTesting
import Testing

// KeyboardTesting re-exports KBText, which has a TextInputTraits of its own.
typealias Traits = KeyboardSDK.TextInputTraits

@Suite("English keyboard, in process")
struct EnglishKeyboardTests {
    static let noCapitals: Traits = {
        var t = Traits()
        t.autocapitalizationType = .none
        return t
    }()

    static func traits(autocapitalization: Traits.AutocapitalizationType = .sentences,
                       autocorrection: Traits.AutocorrectionType = .default) -> Traits {
        var t = Traits()
        t.autocapitalizationType = autocapitalization
        t.autocorrectionType = autocorrection
        return t
    }

    func keyboard(text: String = "", traits: Traits = EnglishKeyboardTests.noCapitals,
                  lexicon: [LexiconEntry] = [], globe: Bool = true) throws -> KeyboardTestDriver {
        let k = try KeyboardTestDriver(EnglishViewController.self, text: text, traits: traits,
                                       needsInputModeSwitchKey: globe, lexicon: lexicon)
        try k.appear()
        return k
    }

    func type(_ k: KeyboardTestDriver, _ letters: String) throws {
        for c in letters { try k.tap(c == " " ? "space" : String(c)) }
    }

    // MARK: Shift

    @Test func shiftCapitalizesOneLetter() throws {
        let k = try keyboard()
        try k.tap("shift")
        try type(k, "ab")
        #expect(k.text == "Ab")
    }

    @Test func doubleTapOnShiftIsCapsLockUntilShiftIsTapped() throws {
        let k = try keyboard()
        try k.perform(.doubleTap, on: "shift")
        #expect(k.labels.joined().contains("⇪"))
        try type(k, "ab")
        try k.tap("space")
        try type(k, "cd")
        try k.tap("shift")
        try type(k, "e")
        #expect(k.text == "AB CDe")
    }

    @Test func twoTapsFurtherApartThanAQuarterSecondAreTwoSingleShifts() throws {
        let k = try keyboard()
        try k.tap("shift")
        k.pause(milliseconds: 300)
        try k.tap("shift")  // off again
        try type(k, "a")
        k.pause(milliseconds: 300)
        try k.tap("shift")
        k.pause(milliseconds: 300)
        try k.tap("shift")
        k.pause(milliseconds: 300)
        try k.tap("shift")  // on: one capital, not caps lock
        try type(k, "bc")
        #expect(k.text == "aBc")
        #expect(!k.labels.joined().contains("⇪"))
    }

    // MARK: Delete

    @Test func deleteDeletesOnTouchDownAndRepeatsAfterFourTenthsThenEveryTenth() throws {
        let k = try keyboard(text: "abcdefghijklmnopqrst")  // 20 characters
        try k.tap("delete")
        #expect(k.text.count == 19, "a tap deletes one")
        try k.perform(.hold(milliseconds: 399), on: "delete")
        #expect(k.text.count == 18, "no repeat before 0.4 s")
        // Touch down, then repeats at 0.4, 0.5, …, 0.9 s: the finger lifts at 1.0 s.
        try k.perform(.hold(milliseconds: 1000), on: "delete")
        #expect(k.text.count == 18 - 7)
        // Held just past 1.0 s, the repeat at 1.0 s comes too.
        try k.perform(.hold(milliseconds: 1001), on: "delete")
        #expect(k.text.count == 11 - 8)
        try k.perform(.hold(milliseconds: 2000), on: "delete")
        #expect(k.text == "", "delete stops at the start of the document")
    }

    // MARK: Auto-capitalization

    @Test(arguments: [
        (Traits.AutocapitalizationType.sentences, "", "T"),
        (.sentences, "Hello. ", "Hello. T"),
        (.sentences, "Really? ", "Really? T"),
        (.sentences, "Hello ", "Hello t"),
        (.sentences, "Hi.\n", "Hi.\nT"),
        (.words, "hello ", "hello T"),
        (.words, "hello", "hellot"),
        (.none, "", "t"),
        (.none, "Hello. ", "Hello. t"),
        (.allCharacters, "ab", "abT"),
    ])
    func autoCapitalizationFollowsTheField(type: Traits.AutocapitalizationType, before: String, after: String) throws {
        let k = try keyboard(text: before, traits: Self.traits(autocapitalization: type))
        try k.tap("t")
        #expect(k.text == after)
    }

    @Test func sentencesCapitalizeAfterSpaceFollowingAFullStop() throws {
        let k = try keyboard(traits: Self.traits(autocorrection: .no))
        try type(k, "hi")
        try k.tap("123"); try k.tap("."); try k.tap("space")
        try type(k, "yo")
        #expect(k.text == "Hi. Yo")
        try k.perform(.doubleTap, on: "shift")
        try type(k, "ok")
        #expect(k.text == "Hi. YoOK", "caps lock wins over auto-capitalization")
    }

    // MARK: Suggestions and autocorrection

    @Test func suggestionRowShowsHunspellsNearestWords() throws {
        let k = try keyboard()
        #expect(k.labels[0] == ["", "", ""], "nothing before the first letter")
        try type(k, "thier")
        #expect(k.labels[0].contains("their"))
        #expect(k.labels[0].count == 3)
        try k.tap("space")
        #expect(k.labels[0] == ["", "", ""])
    }

    @Test func suggestionsKeepTheCaseTheWordWasTypedIn() throws {
        let k = try keyboard(traits: Self.traits())
        try type(k, "thier")
        #expect(k.text == "Thier")
        #expect(k.labels[0].contains("Their"))
    }

    @Test func tappingASuggestionReplacesTheWord() throws {
        let k = try keyboard(text: "I said ")
        try type(k, "thier")
        try k.tap("their")
        #expect(k.text == "I said their ")
        try type(k, "x")
        #expect(k.text == "I said their x")
    }

    @Test func spaceCorrectsTehWithAutocorrectionOn() throws {
        for on in [Traits.AutocorrectionType.default, .yes] {
            let k = try keyboard(traits: Self.traits(autocapitalization: .none, autocorrection: on))
            try type(k, "teh ")
            #expect(k.text == "the ")
        }
    }

    @Test func spaceKeepsTehWithAutocorrectionOff() throws {
        let k = try keyboard(traits: Self.traits(autocapitalization: .none, autocorrection: .no))
        try type(k, "teh ")
        #expect(k.text == "teh ")
    }

    @Test func correctionsKeepTheCase() throws {
        let k = try keyboard(traits: Self.traits())
        try type(k, "teh recieve ")
        #expect(k.text == "The receive ")
        let upper = try keyboard()
        try upper.perform(.doubleTap, on: "shift")
        try type(upper, "teh ")
        #expect(upper.text == "THE ")
    }

    @Test func correctWordsAndFarGuessesAreLeftAlone() throws {
        let k = try keyboard()
        try type(k, "the keyboard qzxw th ")
        #expect(k.text == "the keyboard qzxw th ")
    }

    @Test func textReplacementsExpandOnSpaceAndAreSuggested() throws {
        let k = try keyboard(traits: Self.traits(), lexicon: [LexiconEntry(userInput: "omw", documentText: "On my way!")])
        try type(k, "omw")
        #expect(k.labels[0].first == "On my way!")
        try k.tap("space")
        #expect(k.text == "On my way! ")
        try type(k, "ok")
        #expect(k.text == "On my way! Ok", "a new sentence after the replacement's !")
        try k.tap("delete"); try k.tap("delete")
        try type(k, "om")
        try k.tap("On my way!")
        #expect(k.text == "On my way! On my way! ")
    }

    // MARK: Layouts

    @Test func standardRowsAreQWERTY() throws {
        let k = try keyboard()
        #expect(k.labels[1].joined() == "qwertyuiop")
        #expect(k.labels[2].joined() == "asdfghjkl")
        #expect(k.labels[3] == ["⇧"] + "zxcvbnm".map(String.init) + ["⌫"])
    }

    @Test func fanInPortraitIsOneFanForTheLeftThenTheRightThumb() throws {
        let k = try keyboard()
        try k.transition(toWidth: 375, height: 216)
        try k.tap("⇆")
        // Left thumb: arcs against the left edge, shorter and narrower nearer the thumb.
        #expect(k.labels[1] == "qwertyu".map(String.init) + [""])
        #expect(k.labels[2] == "iopasdf".map(String.init) + [""])
        #expect(k.labels[3] == "ghjklz".map(String.init) + [""])
        #expect(k.labels[4] == "xcvbnm".map(String.init) + [""])
        try type(k, "fan ")
        #expect(k.text == "fan ")
        try k.tap("⇆")
        // Right thumb: the same arcs against the right edge.
        #expect(k.labels[1] == [""] + "qwertyu".map(String.init))
        #expect(k.labels[4] == [""] + "xcvbnm".map(String.init))
        #expect(Set(k.labels.joined()).isSuperset(of: "abcdefghijklmnopqrstuvwxyz".map(String.init)))
        try k.tap("⇆")
        #expect(k.labels[1].joined() == "qwertyuiop", "and back to the standard rows")
    }

    @Test func fanInLandscapeIsAFanForEachThumb() throws {
        let k = try keyboard()
        try k.transition(toWidth: 667, height: 162)
        try k.tap("⇆")
        #expect(k.labels[1] == "qwert".map(String.init) + [""] + "yuiop".map(String.init))
        #expect(k.labels[2] == "asdfg".map(String.init) + [""] + "hjkl".map(String.init))
        #expect(k.labels[3] == ["⇧"] + "zxcvb".map(String.init) + [""] + "nm".map(String.init) + ["⌫"])
        try k.transition(toWidth: 375, height: 216)
        #expect(k.labels[1] == "qwertyu".map(String.init) + [""], "back in portrait: the left thumb's fan")
        try k.transition(toWidth: 667, height: 162)
        try k.tap("⇆")
        #expect(k.labels[1].joined() == "qwertyuiop", "in landscape ⇆ goes back to the standard rows")
    }

    @Test func globeKeyOnlyWhenTheHostAsks() throws {
        let with = try keyboard()
        #expect(with.labels.joined().contains("🌐"))
        try with.tap("globe")
        #expect(with.advanceToNextInputModeCount == 1)
        let without = try keyboard(globe: false)
        #expect(!without.labels.joined().contains("🌐"))
    }

    @Test func numbersPageTypesSymbolsAndSpaceGoesBackToLetters() throws {
        let k = try keyboard()
        try k.tap("123")
        try type(k, "42")
        try k.tap("space")
        #expect(k.labels[1].joined() == "qwertyuiop")
        #expect(k.text == "42 ")
    }

    // MARK: The rules

    @Test func editDistanceCountsASwapOnce() {
        #expect(Words.distance("teh", "the") == 1)
        #expect(Words.distance("recieve", "receive") == 1)
        #expect(Words.distance("wrld", "world") == 1)
        #expect(Words.distance("abc", "xyz") == 3)
    }

    @Test func correctionPrefersTheWordWithItsApostrophe() {
        #expect(Words.correction(for: "dont", suggestions: ["font", "dint", "don", "dot", "don't"]) == "don't")
        #expect(Words.correction(for: "Teh", suggestions: ["the", "eh"]) == "The")
        #expect(Words.correction(for: "th", suggestions: ["ht"]) == nil, "too short to be sure")
        #expect(Words.correction(for: "abcdefg", suggestions: ["zyx"]) == nil)
    }
}
