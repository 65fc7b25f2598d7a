import Foundation
import Testing

/// The engine follows what the settings allow, with or without `kbhost serve` (fifth red
/// team): a keyboard's own input source brings back no keyboard the user disabled, and a
/// grant revoked with no daemon running still ends the keyboard's open access.
@Suite("kbhost ibus: only what the settings allow, with no daemon too", .serialized,
       .enabled(if: IBusWorld.missing.isEmpty, IBusWorld.skipNote))
struct IBusSettingsTests {
    /// IBus knows a keyboard's source (`kbhost:ID`) from when it was listed until IBus restarts,
    /// and any app may choose a source: chosen after `disable`, it enabled the keyboard again
    /// and typed through it (R5-4). Now it is as `kbhost set` of a keyboard not enabled: nothing.
    @Test func aDisabledKeyboardsOwnSourceEnablesNothingAndTypesNothing() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.Calculator", "dev.kbhost.NumberPad"], ["set", "dev.kbhost.NumberPad"]])
        // The control: while Calculator is enabled, its source types through it.
        let calculator = try world.client(engine: "kbhost:dev.kbhost.Calculator")
        #expect(try calculator.send("type 12+3=").text == "15", "\(world.log)")
        #expect(try world.kbhost("set", "dev.kbhost.NumberPad").status == 0)
        #expect(try world.kbhost("disable", "dev.kbhost.Calculator").status == 0)
        let again = try world.client(engine: "kbhost:dev.kbhost.Calculator")
        let s = try again.send("type 12+3=")
        #expect(s.text == "12+3=", "keys go to the app: \(s.text) \(world.log)")
        #expect(s.handled == false)
        #expect(!(try world.kbhost("list").out.contains("dev.kbhost.Calculator")), "still disabled")
        #expect(try world.kbhost("current").out == "dev.kbhost.NumberPad\n")
    }

    /// Without `kbhost serve`, the engine looked only for a new current keyboard in the
    /// settings: a keyboard kept its open access after `kbhost access ID off` until the next
    /// login (R5-5). The engine now ends its process on any change that takes the grant.
    @Test func aRevokedGrantTakesWithNoDaemonRunning() throws {
        let id = "dev.example.AccessOnKey"
        let world = try IBusWorld([["enable", id], ["set", id], ["access", id, "on"]], bundles: [(id, "AccessOnKey")],
                                  openAccess: true)
        let app = try world.client()
        #expect(try app.send("type a").text == "1", "the control: granted, it has open access. \(world.log)")
        #expect(try world.kbhost("access", id, "off").status == 0)
        var text = ""
        for _ in 0..<50 {  // the engine looks at the settings once a second
            usleep(100_000)
            text = try app.send("type a").text
            if text.hasSuffix("0") { break }
        }
        #expect(text.hasSuffix("0"), "revoked: \(text) \(world.log)")
    }
}
