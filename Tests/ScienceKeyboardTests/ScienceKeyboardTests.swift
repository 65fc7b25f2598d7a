import KeyboardSDK
import KeyboardTesting
@testable import Science
import Testing

@Suite("Science keyboard, in process")
struct ScienceKeyboardTests {
    func keyboard(text: String = "") throws -> KeyboardTestDriver {
        let k = try KeyboardTestDriver(ScienceViewController.self, text: text)
        try k.appear()
        return k
    }

    @Test func everyModeHasItsOwnCharacters() throws {
        let k = try keyboard()
        try k.tap("id:mode.1"); try k.tap("₂")
        try k.tap("id:mode.2"); try k.tap("²")
        try k.tap("id:mode.3"); try k.tap("π")
        try k.tap("id:mode.4"); try k.tap("∫")
        try k.tap("id:mode.0"); try k.tap("x")
        #expect(k.text == "₂²π∫x")
    }

    @Test func shiftUppercasesLatinAndGreek() throws {
        let k = try keyboard()
        try k.tap("shift")
        try k.tap("Q")
        try k.tap("id:mode.3")
        try k.tap("Ω")
        try k.tap("shift")
        try k.tap("ω")
        #expect(k.text == "QΩω")
    }

    @Test func cursorMovesByOneCharacterOverEmoji() throws {
        let k = try keyboard(text: "a👍🏽b")
        try k.tap("id:left")
        #expect(k.selection.location == 5, "before b: a is 1 UTF-16 unit, 👍🏽 is 4")
        try k.tap("id:left")
        #expect(k.selection.location == 1, "one tap moves over the whole emoji")
        try k.tap("id:right")
        #expect(k.selection.location == 5)
        try k.tap("delete")
        #expect(k.text == "ab")
    }

    @Test func deleteDoesNothingOnAnEmptyDocument() throws {
        let k = try keyboard()
        try k.tap("delete")
        #expect(k.text == "")
        try k.tap("a"); try k.tap("delete"); try k.tap("delete")
        #expect(k.text == "")
    }

    @Test func holdingDeleteRepeats() throws {
        let k = try keyboard(text: "abcdefghij")
        try k.perform(.hold(milliseconds: 1000), on: "delete")
        #expect(k.text == "abc", "repeats at 0.4 s then every 0.1 s: 6 repeats and the release")
    }

    @Test func spaceAndReturnInsertWhitespace() throws {
        let k = try keyboard()
        try k.type("a", "space", "b", "return")
        #expect(k.text == "a b\n")
    }

    @Test func selectionChangesFromOutsideReachTheKeyboard() throws {
        let k = try keyboard(text: "hello")
        try k.editDocument { $0.select(.init(location: 0, length: 0)) }
        try k.tap("x")
        #expect(k.text == "xhello")
        #expect(k.events.contains("selectionWillChange"))
        #expect(k.events.contains("selectionDidChange"))
    }
}
