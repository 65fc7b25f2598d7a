import KBCore
import KBText
import Testing

/// The globe key's order and which keyboard serves a field (iOS's input mode list), with
/// the time and the keyboards given: no registry, no clock.
@Suite("Cycling: next and active")
struct CyclingRuleTests {
    static let system = SystemKeyboard.identifier
    let keyboards = [CyclingRuleTests.system: KeyboardEntry(manifest: SystemKeyboard.manifest, libraryPath: nil, source: "built in"),
                     "a": entry("a"), "b": entry("b", asciiCapable: true), "c": entry("c")]
    func find(_ id: String) -> KeyboardEntry? { keyboards[id] }

    func next(_ s: KeyboardSettings, _ field: FieldContext = FieldContext(), at now: Double = 0) -> String {
        InputModes.next(s, field: field, at: now, entry: find)
    }

    @Test func nextGoesInTheEnabledOrderAndWraps() {
        let order = [Self.system, "a", "b", "c"]
        #expect(next(settings(order, current: Self.system)) == "a")
        #expect(next(settings(order, current: "a")) == "b")
        #expect(next(settings(order, current: "c")) == Self.system, "after the last comes the first")
    }

    @Test func aCurrentKeyboardThatIsNotEnabledStartsFromTheTop() {
        #expect(next(settings(["a", "b"], current: "gone")) == "a")
    }

    @Test func nextSkipsKeyboardsThatDoNotExist() {
        #expect(next(settings([Self.system, "missing", "b"], current: Self.system)) == "b")
    }

    @Test func aLoneKeyboardIsItsOwnNext() {
        #expect(next(settings(["a"], current: "a")) == "a")
    }

    @Test func nothingEligibleMeansTheSystemKeyboard() {
        #expect(next(settings(["a", "c"], current: "a"), FieldContext(allowsThirdPartyKeyboards: false)) == Self.system)
        #expect(InputModes.active(settings([], current: "a"), field: FieldContext(), at: 0, entry: find) == Self.system)
    }

    @Test func activeKeepsTheCurrentKeyboardWhenItMayServe() {
        #expect(InputModes.active(settings([Self.system, "a", "b"], current: "a"), field: FieldContext(), at: 0, entry: find) == "a")
    }

    @Test func anASCIIFieldSkipsKeyboardsThatAreNotASCIICapable() {
        var traits = TextInputTraits()
        traits.keyboardType = .url
        let field = FieldContext(traits: traits)
        let s = settings([Self.system, "a", "b", "c"], current: "a")
        #expect(InputModes.active(s, field: field, at: 0, entry: find) == "b")
        #expect(InputModes.candidates(s, field: field, startingAfter: "a", at: 0, entry: find) == ["b", Self.system])
    }

    @Test(arguments: [TextInputTraits.KeyboardType.phonePad, .namePhonePad])
    func phonePadsAndSecureFieldsAlwaysUseTheSystemKeyboard(type: TextInputTraits.KeyboardType) {
        var traits = TextInputTraits()
        traits.keyboardType = type
        #expect(InputModes.ineligibility(of: entry("b", asciiCapable: true), for: FieldContext(traits: traits)) != nil)
        traits = TextInputTraits()
        traits.isSecureTextEntry = true
        #expect(InputModes.ineligibility(of: entry("b", asciiCapable: true), for: FieldContext(traits: traits)) != nil)
        #expect(InputModes.ineligibility(of: keyboards[Self.system]!, for: FieldContext(traits: traits)) == nil,
                "the system keyboard serves every field")
    }

    @Test func aFailedKeyboardIsSkippedUntilItsBackoffEndsAndForGoodOnceSetAside() {
        var s = settings([Self.system, "a", "b"], current: Self.system)
        s.recordFailure(of: "a", reason: "crash", at: 100)
        #expect(next(s, at: 100.5) == "b", "within the first failure's one-second backoff")
        #expect(next(s, at: 101) == "a", "the time passed in decides, not a clock")
        s.recordFailure(of: "a", reason: "crash", at: 101)
        s.recordFailure(of: "a", reason: "crash", at: 103)
        #expect(next(s, at: 1_000_000) == "b", "set aside after \(KeyboardSettings.setAsideAfter) failures")
    }

    @Test func theSwitchKeyIsNeededOnlyWithTwoKeyboardsAndNoDeviceGlobe() {
        #expect(!InputModes.needsInputModeSwitchKey(settings(["a"], current: "a"), deviceDrawsGlobeKey: false))
        #expect(InputModes.needsInputModeSwitchKey(settings(["a", "b"], current: "a"), deviceDrawsGlobeKey: false))
        #expect(!InputModes.needsInputModeSwitchKey(settings(["a", "b"], current: "a"), deviceDrawsGlobeKey: true))
    }
}
