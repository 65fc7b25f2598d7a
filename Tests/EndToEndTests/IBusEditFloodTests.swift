import Foundation
import Testing

/// A call of 64,000 edits that leave the text as it was (a letter inserted and deleted, again
/// and again) reached an app through IBus as 64,000 commits and deletions, one D-Bus message
/// each, while the engine (one process for every app) did nothing else.
@Suite("kbhost ibus: a call's many edits reach the app as their result", .serialized,
       .enabled(if: IBusWorld.missing.isEmpty, IBusWorld.skipNote))
struct IBusEditFloodTests {
    @Test(arguments: [true, false])
    func editsThatCancelOutSendTheAppNothing(surrounding: Bool) throws {
        let id = "dev.example.EditFloodOnKey"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "EditFloodOnKey")])
        let app = try world.client(surrounding: surrounding)
        #expect(try app.send("type 1").text == "1")
        let clock = ContinuousClock()
        let start = clock.now
        let s = try app.send("type !")
        let took = clock.now - start
        #expect(s.text == "1", "\(s.text.prefix(80))")
        // What the app was sent for that key, counted (not timed: the machines are shared): nothing,
        // where it had been 64,000 commits and deletions.
        #expect(s.signals.values.reduce(0, +) <= 2, "the app was sent \(s.signals) (the key took \(took))")
        #expect(try app.send("type 2").text == "12")
    }
}
