import Foundation
import Testing

/// A password field gets nothing from a third-party keyboard, also from one that types
/// without a key, as it appears or goes away (the fault keyboard `EditsInLifeCycle`: it
/// inserts `<appear>` when it appears, `<disappear>` and the marked text `<marked>` when it
/// goes). ibus-daemon tells an engine that a field has focus before it tells what the field
/// is (FocusIn, then ContentType), and a field may become a password field while it has focus
/// ("show password" buttons, pages that swap an input's type).
@Suite("kbhost ibus: nothing a keyboard does reaches a password field", .serialized,
       .enabled(if: IBusWorld.missing.isEmpty, IBusWorld.skipNote))
struct IBusPasswordFieldTests {
    static let id = "dev.example.EditsInLifeCycle"

    static func world() throws -> IBusWorld {
        try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "EditsInLifeCycle")])
    }

    @Test func aPasswordFieldTakingFocusGetsNothingTheKeyboardTypesAsItAppears() throws {
        let world = try Self.world()
        // The control: an ordinary field gets what the keyboard types as it appears.
        let plain = try world.client()
        var s = try plain.send("type a")
        #expect(s.handled == true)
        #expect(s.text.contains("<appear>") && s.text.hasSuffix("a"), "the keyboard types as it appears: \(s.text)\n\(world.log)")

        // The target: a password field (its purpose set before focus, as GTK does).
        let secret = try world.client(purpose: 8)  // GTK_INPUT_PURPOSE_PASSWORD
        s = try secret.send("type b")
        #expect(s.handled == false, "the app types its password itself")
        #expect(s.commits.isEmpty, "nothing committed into the password field: \(s.commits)")
        #expect(s.preedit.isEmpty, "no preedit in the password field: \(s.preedit)")
        s = try secret.send("focus_out")
        #expect(s.text == "b", "the password is what the user typed: \(s.text)")
    }

    @Test func aFieldBecomingAPasswordFieldGetsNothingMore() throws {
        let world = try Self.world()
        // The control: a field that becomes a phone field (the system keyboard, not secret)
        // gets what the keyboard types and marks as it goes away.
        let phone = try world.client()
        var s = try phone.send("type a")
        #expect(s.text.hasSuffix("a"), "\(s.text)\n\(world.log)")
        s = try phone.send("purpose 4")  // GTK_INPUT_PURPOSE_PHONE
        #expect(s.text.contains("<disappear>") && s.preedit == "<marked>", "\(s.text) [\(s.preedit)]")

        // The target: the same, becoming a password field.
        let secret = try world.client()
        s = try secret.send("type a")
        let typed = s.text
        #expect(typed.hasSuffix("a"), "\(typed)")
        s = try secret.send("purpose 8")  // GTK_INPUT_PURPOSE_PASSWORD
        #expect(s.text == typed, "nothing the keyboard typed as it went away: \(s.text)")
        #expect(s.preedit.isEmpty, "no preedit shown in clear in the password field: \(s.preedit)")
        s = try secret.send("type b")
        #expect(s.handled == false)
        s = try secret.send("focus_out")
        #expect(s.text == typed + "b", "no marked text committed into the password field at focus out: \(s.text)")
    }
}
