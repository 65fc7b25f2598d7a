import ArgumentParser
import KBHost
import KBText

/// `stress` counts characters: every acknowledged tap must have put its key's
/// label in the document. A keyboard that cannot be counted that way is refused
/// before the run rather than reported as a MISMATCH (or a PASSED that counted
/// nothing) after it: one that composes — its keys set marked text that a later
/// key turns into something else, as Kana's romaji does — and one none of whose
/// keys insert their label (Calculator's keys work its display line; a keyboard
/// with no character keys has nothing to count).
enum StressProbe {
    /// The field stress types into: keys insert their labels as they are (no auto-capital at the
    /// start of each fresh document, no autocorrection on a space).
    static let field = FieldContext(traits: TextInputTraits(autocapitalization: .none, autocorrection: .no, spellChecking: .no))

    /// Taps each character key of the `probe`'s one keyboard once, each on an empty document in
    /// the stress field: marked text after any of them, or no key typing its label, refuses the
    /// keyboard (exit 7). A keyboard that fails here is left to the run, which counts its failure.
    /// The probe is closed after.
    static func refuseUncountable(_ probe: InputManager) throws {
        defer { probe.close() }
        guard let keyboard = probe.apart?.keyboards.first else { return }
        probe.activate(keyboard.identifier)
        probe.focus(field)
        guard let session = probe.active else { return }
        let id = TerminalText.line(keyboard.identifier)
        let keys = session.layout.rows.joined().filter { $0.role == .character }
        var other: (label: String, typed: String)?
        var counted = 0
        for key in keys {
            probe.appChanged(TextBuffer())
            guard probe.active === session, probe.tap(key) == .tapped, probe.active === session else { return }
            if session.document.buffer.markedText != nil {
                throw exitWithError("""
                    \(id) composes text (key '\(TerminalText.line(key.label))' left marked text), \
                    so its keys do not insert their labels and stress cannot count its characters; \
                    profile it instead (kbhost profile \(id) --script FILE)
                    """, status: Kbhost.Exit.refused)
            }
            if session.document.text == key.label { counted += 1 } else { other = other ?? (key.label, session.document.text) }
        }
        guard counted == 0 else { return }  // the run learns which keys it can count
        let what = if let other {
            "none of its \(keys.count) character keys types its label (key '\(TerminalText.line(other.label))' typed "
                + (other.typed.isEmpty ? "nothing" : "'\(TerminalText.line(String(other.typed.prefix(20))))'") + ")"
        } else { "it has no character keys" }
        throw exitWithError("\(id) cannot be counted: \(what), so stress has no tap whose text it can check; "
                            + "profile it instead (kbhost profile \(id) --script FILE)", status: Kbhost.Exit.refused)
    }
}
