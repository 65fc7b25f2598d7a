import Testing

/// What one key costs the app in messages: the engine's per-key latency is mostly
/// D-Bus traffic through ibus-daemon (each signal is serialized, routed by the
/// daemon and deserialized by the app), so a key that only types must reach the
/// app as its commit and nothing else — no preedit, auxiliary text or candidate
/// window updated, shown or hidden again when nothing on them changed. (ibus-daemon
/// itself drops a hide of what is hidden, so such a hide would cost the engine's send
/// and the daemon's work without showing here; an update always reaches the app.)
@Suite("kbhost ibus: a typed key is one commit on the bus", .serialized,
       .enabled(if: IBusWorld.missing.isEmpty, IBusWorld.skipNote))
struct IBusKeyTrafficTests {
    @Test func aKeyThatOnlyTypesReachesTheAppAsOneCommitAlone() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.NumberPad", "dev.kbhost.Kana"], ["set", "dev.kbhost.NumberPad"]])
        // The client counts every kind of signal: Kana's composing shows them (the positive control).
        let kana = try world.client(engine: "kbhost:dev.kbhost.Kana")
        let composing = try kana.send("type ni")
        #expect(composing.preedit == "に", "\(world.log)")
        #expect((composing.signals["update-preedit-text"] ?? 0) >= 2, "the preedit redrawn per key is counted: \(composing.signals)")
        #expect(composing.signals["commit-text"] == nil)

        // An app without surrounding text (a terminal), then one with it (GTK).
        for surrounding in [false, true] {
            let app = try world.client(engine: "kbhost:dev.kbhost.NumberPad", surrounding: surrounding)
            _ = try app.send("type 0")  // the first key after focus settles whatever the panel shows
            let s = try app.send("type 123456789")
            #expect(s.text.hasSuffix("123456789"), "\(s.text)")
            #expect(s.signals == ["commit-text": 9],
                    "surrounding text \(surrounding): nine keys, nine commits, nothing else: \(s.signals)")
        }
    }
}
