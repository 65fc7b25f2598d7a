import Foundation
import Testing

/// The IBus engine replays a keyboard's cursor move as Left/Right keys for the app. A
/// keyboard that moved the cursor across a 2 MiB document in one key press made the engine
/// queue four million key events: 1.7 GB in the engine and the desktop's typing stuck for
/// minutes. One action forwards a bounded number of moves (the app's own text stays the truth).
@Suite("kbhost ibus: one key press forwards a bounded number of cursor moves", .serialized,
       .enabled(if: IBusWorld.missing.isEmpty, IBusWorld.skipNote))
struct IBusCursorMoveTests {
    @Test func aFarMoveIsBoundedAndANearOneIsExact() throws {
        let id = "dev.example.FarCursorMove"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "FarCursorMove")])
        let app = try world.client()
        // The control: a move of one character is one Left key.
        var s = try app.send("type n")
        #expect(s.text == "ab" && s.forwarded == ["Left"], "\(s.text) \(s.forwarded)\n\(world.log)")
        // The target: 3,000 characters typed, then six moves across them in the same action.
        s = try app.send("type f")
        #expect(s.handled == true)
        #expect(s.text.filter { $0 == "x" }.count == 3000)
        #expect(s.forwarded.count <= 1000, "\(s.forwarded.count) keys forwarded for one key press")
    }

    /// Edits outside an action of the app's (the keyboard disappearing because the user disabled
    /// it, noticed by an engine running without `kbhost serve`) each had an allowance of their own:
    /// a keyboard that moved back and forth 200 times as it disappeared made the engine forward
    /// 400,000 keys, and the app's next keys waited tens of seconds (fifteenth red team). They are
    /// one action now. The keyboard, armed, moves 200 times across 3,000 letters as it disappears.
    @Test func movesAsTheKeyboardDisappearsAreBoundedToo() throws {
        let id = "dev.example.FarCursorMove"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "FarCursorMove")])
        let app = try world.client()
        var s = try app.send("type d")
        #expect(s.handled == true, "\(world.log)")
        #expect(try world.w.run(["disable", id], extraEnvironment: world.env).status == 0)
        // The engine looks at the settings once a second without a daemon.
        var forwarded = 0, letters = 0
        for _ in 0..<8 {
            s = try app.send("wait 500")
            forwarded += s.forwarded.count
            letters = s.text.filter { $0 == "x" }.count
        }
        #expect(letters == 3000, "what it typed as it disappeared reached the app")
        #expect(forwarded <= 1000, "\(forwarded) keys forwarded as it disappeared")
        // The app's keys go on (the system keyboard's now), where the moves left its cursor.
        s = try app.send("type q")
        #expect(s.text.filter { $0 == "q" }.count == 1 && s.text.count == 3001, "\(s.text.count) characters")
    }

    /// One action of many signals (a commit, 998 moves, a Return) took the engine 80–140 ms to send,
    /// and ibus-daemon hands each to the field focused when it reads it: the user moving to a password
    /// field 5 ms after the key got the Return there (seventeenth red team). The engine sends 32 at
    /// once, the rest after a round trip to the daemon each, while the focus stays: the Return (a key
    /// after text, which always waits for an answer) and all but one batch of the moves no longer
    /// follow the focus. (A batch still meets a focus change the daemon makes between its answer and
    /// the batch, as any IBus engine's output does: README.) The
    /// control: where the focus stays, every one arrives.
    /// The signals the engine sends between two answers of ibus-daemon (`IBusFrontEnd.signalsAtOnce`).
    static let oneBatch = 32

    @Test func aLongActionIsNotSplitIntoTheNextField() throws {
        let id = "dev.example.FarCursorMove"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "FarCursorMove")])
        let app = try world.client(purpose: 0)
        _ = try app.send("type w")
        var s = try IBusSlowKeyboardTests.until(app) { $0.text.hasSuffix("\n") }  // 32 batches, each after an answer
        #expect(s.text.hasPrefix("PAYLOAD") && s.text.hasSuffix("\n"), "the control: \(s.text.debugDescription)")
        s = try app.send("keyfocus w 5 8")
        let keys = s.second_forwarded ?? []
        #expect(!keys.contains("Return") && keys.count <= Self.oneBatch, "reached the password field: \(s.second_commits ?? []), \(keys.count) keys, Return: \(keys.contains("Return"))")
    }

    /// Keys queued behind slow ones were handled after the user had moved to another field, and
    /// what they typed landed there, in a password field too: IBus gives an engine's text to the
    /// field focused when it arrives (fifteenth red team, F2). A typist presses a 0.7 s key three
    /// times and moves at once to another app's password field: nothing reaches that field. The
    /// control: the same key pressed where the focus stays types its text.
    @Test func keysQueuedBehindSlowOnesDoNotTypeIntoTheNextField() throws {
        let id = "dev.example.SlowKey"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "SlowKey")])
        let first = try world.client()
        #expect(try first.send("type s").text == "PAYLOAD", "the control: a slow key types where the focus stays")
        _ = try first.send("burst sss")
        let password = try world.client(purpose: 8)  // GTK_INPUT_PURPOSE_PASSWORD
        var landed: [String] = []
        for _ in 0..<8 { landed += try password.send("wait 500").commits }
        #expect(!landed.contains { $0.contains("PAYLOAD") }, "typed into the password field: \(landed)")
        _ = try first.send("wait 200")
    }
}
