@testable import KBHost
import KBWire
import Testing

/// The host checks again what only a keyboard with open access may do: the keyboard's own
/// process sends the effects, so what its worker checked may be forged.
@Suite("What a keyboard's effects may do without open access")
struct EffectPolicyTests {
    @Test(arguments: [Effect.haptic(.light, intensity: 1), .haptic(.error, intensity: 0.3), .setPasteboard("x"), .playSound("Tink")])
    func refusedWithoutOpenAccessAllowedWithIt(effect: Effect) {
        #expect(EffectPolicy.refusal(of: effect, hasFullAccess: false) != nil)
        #expect(EffectPolicy.refusal(of: effect, hasFullAccess: true) == nil)
    }

    @Test func theClickAndTheKeysExtrasNeedNone() {
        for effect in [Effect.playInputClick, .setKeyExtras(KeyExtrasChange(row: 0, column: 0, extras: KeyExtras(payload: "p")))] {
            #expect(EffectPolicy.refusal(of: effect, hasFullAccess: false) == nil)
        }
    }

    @Test func aHapticRefusalSaysWhat() throws {
        let refusal = try #require(EffectPolicy.refusal(of: .haptic(.light, intensity: 1), hasFullAccess: false))
        #expect(refusal.what == "played haptic feedback without open access")
    }
}
