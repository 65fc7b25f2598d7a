import Foundation
import Testing

/// What a keyboard shows in the desktop's panel (the candidate window and the auxiliary text)
/// is text: its control characters and bidi overrides are shown as escapes, as kbhost prints
/// them everywhere else, never passed on (a newline splits a candidate's row, U+202E turns
/// the rest of it around, and the panel is the desktop's, not the keyboard's).
@Suite("kbhost ibus: the panel shows a keyboard's labels as text", .serialized,
       .enabled(if: IBusWorld.missing.isEmpty, IBusWorld.skipNote))
struct IBusPanelTextTests {
    @Test func candidatesAndTheDisplayLineHoldNoControlCharacters() throws {
        let id = "dev.example.EditsInLifeCycle"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "EditsInLifeCycle")])
        let app = try world.client()
        let s = try app.send("type a")
        let controls = { (text: String) in
            text.unicodeScalars.filter { $0.properties.generalCategory == .control || $0 == "\u{202E}" }
        }
        // The control: the display line, which the engine already escaped.
        #expect(s.auxiliary.hasPrefix("display") && controls(s.auxiliary).isEmpty, "\(s.auxiliary.debugDescription)")
        // The target: the candidate's label.
        #expect(s.candidates.count == 1 && s.candidates.first?.contains("evil") == true, "\(s.candidates)")
        #expect(controls(s.candidates.joined()).isEmpty, "escaped: \(s.candidates.map(\.debugDescription))")
    }
}
