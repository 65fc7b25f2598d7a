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
}
