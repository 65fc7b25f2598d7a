import ArgumentParser
import KBHost
import KBText

/// `stress` counts characters: every acknowledged tap must have put its key's
/// label in the document. A keyboard that composes — its keys set marked text
/// that a later key turns into something else, as Kana's romaji does — cannot
/// be counted that way, so it is refused before the run rather than reported
/// as a MISMATCH after it.
enum StressProbe {
    /// Taps each character key once on an empty document; marked text after
    /// any of them refuses the keyboard (exit 7). A keyboard that fails here is
    /// left to the run, which counts its failure.
    static func refuseComposing(_ keyboard: LoadableKeyboard, configuration: ExtensionProcess.Configuration) throws {
        guard let session = try? KeyboardSession(keyboard: keyboard, configuration: configuration, needsInputModeSwitchKey: false)
        else { return }
        defer { session.close() }
        guard (try? session.appear()) != nil else { return }
        for key in session.layout.rows.joined() where key.role == .character {
            guard (try? session.perform(.tap, on: key)) != nil else { return }
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
