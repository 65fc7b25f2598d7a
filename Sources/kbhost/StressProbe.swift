import ArgumentParser
import KBHost
import KBText

/// `stress` counts characters: every acknowledged tap must have put its key's
/// label in the document. A keyboard that composes — its keys set marked text
/// that a later key turns into something else, as Kana's romaji does — cannot
/// be counted that way, so it is refused before the run rather than reported
/// as a MISMATCH after it.
enum StressProbe {
    /// Taps each character key of the `probe`'s one keyboard once on an empty document;
    /// marked text after any of them refuses the keyboard (exit 7). A keyboard that fails
    /// here is left to the run, which counts its failure. The probe is closed after.
    static func refuseComposing(_ probe: InputManager) throws {
        defer { probe.close() }
        guard let keyboard = probe.apart?.keyboards.first else { return }
        probe.activate(keyboard.identifier)
        guard let session = probe.active else { return }
        for key in session.layout.rows.joined() where key.role == .character {
            guard probe.tap(key) == .tapped else { return }
            if session.document.buffer.markedText != nil {
                throw exitWithError("""
                    \(TerminalText.line(keyboard.identifier)) composes text (key '\(TerminalText.line(key.label))' left marked text), \
                    so its keys do not insert their labels and stress cannot count its characters; \
                    profile it instead (kbhost profile \(TerminalText.line(keyboard.identifier)) --script FILE)
                    """, status: Kbhost.Exit.refused)
            }
        }
    }
}
