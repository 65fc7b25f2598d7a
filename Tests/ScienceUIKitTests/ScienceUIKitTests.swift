import KeyboardSDK
import KeyboardTesting
import ScienceUIKit
import Testing

/// The seed's Science keyboard, its controller compiled from UIKit-spelled code, in process.
@Suite("Science (UIKit port), in process")
struct ScienceUIKitTests {
    func keyboard(text: String = "", globe: Bool = true) throws -> KeyboardTestDriver {
        let k = try KeyboardTestDriver(KeyboardViewController.self, text: text, needsInputModeSwitchKey: globe)
        try k.appear()
        return k
    }

    @Test func layoutIsTheSeedsToolbarRowsAndBottomRow() throws {
        let k = try keyboard()
        #expect(k.labels.first == ["abc", "x₂", "x²", "αβγ", "∑∫", "◀", "▶", "⏎"])
        #expect(k.labels[1] == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"], "NumRow")
        #expect(k.labels[5] == ["+", "-", "×", "÷", "=", "(", ")", "/"], "OperatorRow")
        #expect(k.labels.last == ["🌐", "⇪", "space", "⌫"])
        let noGlobe = try keyboard(globe: false)
        #expect(noGlobe.labels.last == ["⇪", "space", "⌫"], "needsInputModeSwitchKey false: no NextKeyboardButton")
    }

    @Test func everyModeTypesItsOwnCharacters() throws {
        let k = try keyboard()
        try k.tap("x₂"); try k.tap("₂"); try k.tap("ₓ")
        try k.tap("x²"); try k.tap("²"); try k.tap("ⁿ")
        try k.tap("αβγ"); try k.tap("π")
        try k.tap("∑∫"); try k.tap("∫"); try k.tap("∞")
        try k.tap("abc"); try k.tap("x"); try k.tap("÷")
        #expect(k.text == "₂ₓ²ⁿπ∫∞x÷")
    }

    @Test func shiftStateUppercasesLatinAndGreekUntilToggledAgain() throws {
        let k = try keyboard()
        try k.tap("shift")
        #expect(k.labels[2].first == "Q" && k.labels.last?[1] == "⇧")
        try k.type("Q", "E", "D")
        try k.tap("αβγ")
        try k.tap("Ω"); try k.tap("Σ")
        try k.tap("shift")
        try k.tap("ω"); try k.tap("ς")
        #expect(k.text == "QEDΩΣως")
    }

    @Test func cursorMovesByOneCharacterOverAnEmoji() throws {
        let k = try keyboard(text: "👍🏽a👍🏽b")
        try k.tap("◀")
        #expect(k.selection.location == 9, "before b; the seed's before.prefix(1) is the first 👍🏽: 4 units back")
        try k.tap("◀")
        #expect(k.selection.location == 5, "over the whole emoji (4 UTF-16 units)")
        try k.type("◀", "◀")
        #expect(k.selection.location == 0)
        try k.type("▶", "▶")
        #expect(k.selection.location == 5, "moveRightAction: after.prefix(1) is the emoji")
        try k.tap("⌫")
        #expect(k.text == "👍🏽👍🏽b")
    }

    @Test func moveRightAtTheEndAndLeftAtTheStartStayInTheDocument() throws {
        let k = try keyboard(text: "xy")
        try k.tap("▶")
        #expect(k.selection.location == 2, "documentContextAfterInput is nil at the end: offset 1, nothing after")
        try k.type("◀", "◀", "◀")
        #expect(k.selection.location == 0)
        try k.tap("z")
        #expect(k.text == "zxy")
    }

    @Test func deleteTextActionDoesNothingWithoutText() throws {
        let k = try keyboard()
        try k.tap("⌫")
        #expect(k.text == "" && !k.events.contains("deleteBackward"))
        try k.type("a", "⌫", "⌫")
        #expect(k.text == "")
    }

    @Test func holdingDeleteAndTheArrowsRepeats() throws {
        let k = try keyboard(text: "abcdefghij")
        try k.perform(.hold(milliseconds: 1000), on: "⌫")
        #expect(k.text == "abc", "0.4 s then every 0.1 s: 6 repeats and the release")
        try k.perform(.hold(milliseconds: 500), on: "◀")
        #expect(k.selection.location == 1, "the first move, one repeat at 0.4 s, and the release")
    }

    @Test func returnSpaceAndTheGlobeKey() throws {
        let k = try keyboard()
        try k.type("e", "space", "=", "m", "c", "⏎")
        #expect(k.text == "e =mc\n")
        try k.tap("globe")
        try k.perform(.longPress, on: "globe")
        #expect(k.advanceToNextInputModeCount == 2, "handleInputModeList(from:with:), on a tap and a long press")
    }

    @Test func landscapeDropsTheNumberRowThroughViewWillTransition() throws {
        let k = try keyboard()
        try k.transition(toWidth: 812, height: 375)
        #expect(k.labels[1].first == "q", "landscape: no NumRow")
        try k.tap("x₂")
        #expect(k.labels[1].first == "ₐ")
        try k.transition(toWidth: 375, height: 812)
        #expect(k.labels[1].first == "₁", "portrait: the mode's NumRow is back")
    }
}
