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

/// A display line of 1 MiB of ESC characters, each shown as an escape: escaping appended each
/// escape to a String.UnicodeScalarView, which copies all of it every time, and the engine spent
/// minutes on that one line while no app's key was answered (seventeenth red team). The line is
/// cut to what a panel shows, and escaping is linear wherever kbhost prints a keyboard's text.
@Suite("kbhost ibus: a huge display line is shown cut, at once", .serialized,
       .enabled(if: IBusWorld.missing.isEmpty, IBusWorld.skipNote))
struct IBusHugeDisplayTests {
    @Test func aMegabyteOfEscapesIsShownCutAndKeysGoOn() throws {
        let id = "dev.example.SlowReport"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "SlowReport")])
        let app = try world.client(purpose: 0)
        var s = try app.send("type d")
        #expect(s.handled == true)
        #expect(s.auxiliary.hasPrefix(#"\u{1B}\u{1B}"#) && s.auxiliary.count <= 200, "\(s.auxiliary.prefix(40))… (\(s.auxiliary.count))")
        s = try world.client(purpose: 0).send("type b")
        #expect(s.text == "b", "another app's key is answered")
    }

    /// A display line of 201 characters, each a letter and 5,000 combining accents (2 MB): cut by
    /// characters it stayed whole, and was escaped and sent again at every focus change in every
    /// app (eighteenth red team, F2). The panel cuts by Unicode scalars.
    @Test func aLineOfStackedAccentsIsCutByScalars() throws {
        let id = "dev.example.SlowReport"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "SlowReport")])
        let app = try world.client(purpose: 0)
        let s = try app.send("type k")
        #expect(s.handled == true && s.auxiliary.unicodeScalars.starts(with: "e\u{301}".unicodeScalars), "the control: the line is shown: \(s.auxiliary.unicodeScalars.prefix(4))")
        #expect(s.auxiliary.unicodeScalars.count <= 200, "\(s.auxiliary.unicodeScalars.count) scalars shown")
    }
}

/// A keyboard with thousands of candidates: the panel shows the first hundred, each cut to what
/// a candidate window can show (the third red team's keyboard cost 1.2 s a key with 60,000).
@Suite("kbhost ibus: the candidate window is bounded", .serialized,
       .enabled(if: IBusWorld.missing.isEmpty, IBusWorld.skipNote))
struct IBusCandidateLimitTests {
    @Test func thousandsOfCandidatesShowAsTheFirstHundredCut() throws {
        let id = "dev.example.ManyCandidates"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "ManyCandidates")])
        let app = try world.client()
        let first = try app.send("type a")
        #expect(first.text == "a")
        let s = try app.send("type a")
        #expect(s.text == "aa", "the keys still type")
        #expect(s.candidates.count == 100, "\(s.candidates.count) candidates")
        #expect(s.candidates.allSatisfy { $0.count <= 80 && $0.hasPrefix("ccc") && $0.hasSuffix("…") }, "\(s.candidates.first ?? "")")
    }
}
