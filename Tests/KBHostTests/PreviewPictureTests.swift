@testable import KBHost
import Testing

/// KeyboardPicture on layouts made here: the cases the sample keyboards do not send.
@Suite("Preview: a layout's picture, its geometry and its escaping")
struct PreviewPictureTests {
    func key(_ label: String, _ role: KeyboardLayout.Key.Role = .character, id: String? = nil, width: Double = 1,
             action: String? = "a", row: Int = 0, column: Int) -> KeyboardLayout.Key {
        KeyboardLayout.Key(identifier: id ?? "r\(row)c\(column)", label: label, role: role, width: width, action: action,
                           touchDownAction: nil, longPressAction: nil, doubleTapAction: nil, repeats: false,
                           row: row, column: column)
    }

    @Test func xmlEscapesMarkupAndControlsAndKeepsTheRest() {
        #expect(KeyboardPicture.xml("<&>\"'") == "&lt;&amp;&gt;&quot;&apos;")
        #expect(KeyboardPicture.xml("a\u{1B}[2J\n\t\u{7F}\u{85}\u{FFFF}") == "a␛[2J␊␉␡\u{FFFD}\u{FFFD}")
        #expect(KeyboardPicture.xml("日本語 🌐 é") == "日本語 🌐 é")
    }

    /// The host's running count of what extras take: a keyboard piling up a call's worth a key,
    /// call after call, is failed on it (KeyboardSession), so it must rise, fall and reset.
    @Test func whatTheExtrasTakeIsCountedAsTheyChange() {
        var layout = KeyboardLayout(rows: [[key("e", column: 0), key("f", column: 1)]])
        #expect(layout.extrasBytes == 0)
        layout.setExtras(KeyboardLayout.KeyExtras(payload: String(repeating: "p", count: 1 << 20)), row: 0, column: 0)
        let one = layout.extrasBytes
        #expect(one > 1 << 20)
        layout.setExtras(KeyboardLayout.KeyExtras(payload: String(repeating: "p", count: 1 << 20)), row: 0, column: 1)
        #expect(layout.extrasBytes == 2 * one, "a second key's adds up")
        layout.setExtras(KeyboardLayout.KeyExtras(payload: "q"), row: 0, column: 0)
        #expect(layout.extrasBytes < one + 1024, "a replaced key's is taken back")
        layout.setExtras(KeyboardLayout.KeyExtras(), row: 0, column: 1)
        #expect(layout.extrasBytes < 1024)
    }

    @Test func aKeysExtrasArePartOfItsPictureAndAbsentWithout() throws {
        var layout = KeyboardLayout(rows: [[key("e", column: 0), key("space", .space, column: 1)]])
        layout.setExtras(KeyboardLayout.KeyExtras(payload: "p", alternates: ["é", "è"]), row: 0, column: 0)
        layout.setExtras(KeyboardLayout.KeyExtras(dragAction: "drag:event:"), row: 0, column: 1)
        let p = KeyboardPicture(keyboard: "k", layout: layout)
        #expect(p.keys[0].payload == "p" && p.keys[0].alternates == ["é", "è"] && p.keys[0].dragAction == nil)
        #expect(p.keys[1].dragAction == "drag:event:" && p.keys[1].alternates == nil)
        let plain = KeyboardPicture(keyboard: "k", layout: KeyboardLayout(rows: [[key("e", column: 0)]]))
        #expect(plain.keys[0].payload == nil && plain.keys[0].alternates == nil)
    }

    @Test func rowsShareOneUnitAndShorterRowsAreCentred() {
        let layout = KeyboardLayout(rows: [
            [key("a", column: 0), key("b", column: 1), key("⌫", .delete, width: 2, column: 2)],
            [key("c", row: 1, column: 0), key("", action: nil, row: 1, column: 1)],
        ])
        let p = KeyboardPicture(keyboard: "k", layout: layout)
        #expect(p.unit == round2((375 - 6) / 4.0))
        #expect(p.keys.map(\.style) == [.character, .character, .function, .character, .gap])
        #expect(p.visibleKeys.count == 4)
        #expect(abs(p.keys[2].frame.width + p.gap - 2 * p.unit) < 0.02, "a width-2 key spans two units")
        #expect(abs(p.keys[3].frame.x - p.gap / 2 - (375 - 2 * p.unit) / 2) < 0.02, "the two-unit row (its gap too) is centred")
        #expect(p.height == 216 && p.displayFrame == nil)
    }

    @Test func candidatesMakeABarAboveTheKeysAndTheDisplayGoesOnTop() {
        let layout = KeyboardLayout(display: "にほんご", rows: [
            [],
            [key("日本語", .function, id: "candidate.0", column: 0), key("二本", .function, id: "candidate.1", width: 3, column: 1)],
            [key("q", row: 2, column: 0)],
        ])
        let p = KeyboardPicture(keyboard: "k", layout: layout, orientation: .landscape, appearance: .dark)
        #expect(p.keys.map(\.style) == [.candidate, .candidate, .character])
        #expect(p.keys[0].frame == KeyboardPicture.Frame(x: 0, y: 26, width: 166.75, height: 34))
        #expect(p.keys[1].frame.width == 500.25, "a bar shares the width by the keys' widths")
        #expect(p.displayFrame == KeyboardPicture.Frame(x: 0, y: 0, width: 667, height: 26))
        #expect(p.height == 26 + 34 + 162)
        #expect(p.hasEastAsianText)
        let svg = p.svg
        #expect(svg.contains("data-appearance=\"dark\"") && svg.contains(">日本語</text>"))
        #expect(svg.split(separator: "<rect", omittingEmptySubsequences: false).count - 1 == 3)
    }

    @Test func aKeyboardWithNoKeysKeepsItsSize() {
        #expect(KeyboardPicture(keyboard: "k", layout: KeyboardLayout()).height == 216)
        #expect(KeyboardPicture(keyboard: "k", layout: KeyboardLayout(), orientation: .landscape).height == 162)
    }

    @Test func labelsShrinkToFitTheirKeys() {
        let layout = KeyboardLayout(rows: [[key("a", column: 0), key("a very long label indeed", .function, column: 1)]])
        let p = KeyboardPicture(keyboard: "k", layout: layout)
        #expect(p.keys[0].fontSize == 22)
        #expect(p.keys[1].fontSize < 15 && p.keys[1].fontSize >= 6)
        #expect(KeyboardPicture.ems("日本") == 2 && KeyboardPicture.ems("ab") == 1.2)
    }
}
