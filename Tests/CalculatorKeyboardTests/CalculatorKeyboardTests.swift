@testable import Calculator
import KeyboardSDK
import KeyboardTesting
import Testing

@Suite("Calculator keyboard, in process")
struct CalculatorKeyboardTests {
    func keyboard(text: String = "") throws -> KeyboardTestDriver {
        let k = try KeyboardTestDriver(CalculatorViewController.self, text: text)
        try k.appear()
        return k
    }

    @Test func expressionStaysOnTheKeyboardUntilEquals() throws {
        let k = try keyboard()
        for key in ["1", "2", "+", "3"] { try k.tap(key) }
        #expect(k.display == "12+3")
        #expect(k.text == "", "nothing reaches the document before =")
        try k.tap("=")
        #expect(k.text == "15")
        #expect(k.display == "")
    }

    @Test func multiplicationBindsTighterThanAddition() throws {
        let k = try keyboard()
        for key in ["2", "+", "3", "×", "4", "−", "6", "÷", "3", "="] { try k.tap(key) }
        #expect(k.text == "12")
    }

    @Test func resultIsInsertedAtTheInsertionPoint() throws {
        let k = try keyboard(text: "total: ")
        for key in ["7", "×", "6", "="] { try k.tap(key) }
        #expect(k.text == "total: 42")
    }

    @Test func divisionByZeroShowsAnErrorAndInsertsNothing() throws {
        let k = try keyboard()
        for key in ["1", "÷", "0", "="] { try k.tap(key) }
        #expect(k.text == "")
        #expect(k.display.contains("division by zero"))
    }

    @Test func deleteEditsTheExpressionThenTheDocument() throws {
        let k = try keyboard(text: "ab")
        try k.type("1", "2")
        try k.tap("delete")
        #expect(k.display == "1")
        try k.tap("delete")
        #expect(k.display == "")
        try k.tap("delete")
        #expect(k.text == "a", "with an empty expression, delete edits the document")
    }

    @Test func globeKeyFollowsNeedsInputModeSwitchKey() throws {
        let with = try keyboard()
        #expect(with.labels.joined().contains("🌐"))
        try with.tap("globe")
        #expect(with.advanceToNextInputModeCount == 1)

        let without = try KeyboardTestDriver(CalculatorViewController.self, needsInputModeSwitchKey: false)
        try without.appear()
        #expect(!without.labels.joined().contains("🌐"))
    }

    @Test func nonIntegerResultsHaveAtMostTenDecimals() {
        #expect(Expression.format(1.0 / 3.0) == "0.3333333333")
        #expect(Expression.format(15) == "15")
        #expect(Expression.format(-2.5) == "-2.5")
    }

    @Test func operatorsReplaceEachOtherAndOnlyMinusMayLead() throws {
        var e = Expression()
        e.append("+")
        #expect(e.text == "")
        e.append("−"); e.append("5"); e.append("+"); e.append("×"); e.append("2")
        #expect(e.text == "−5×2")
        #expect(try e.evaluate().get() == "-10")
    }
}
