import KBText
import KBWire

/// The host's pasteboard file (nil without KBHOST_HOME) and the state of it the
/// keyboard last saw: one stat per call, for keyboards with full access only.
struct PasteboardSync {
    let file: Pasteboard?
    private var stamp: [Int] = []

    init(file: Pasteboard?) { self.file = file }

    /// The file's text if the file changed since the keyboard last saw it (`.some(nil)`: now empty).
    mutating func changed() -> String?? {
        guard let file else { return nil }
        let now = file.stamp()
        guard now != stamp else { return nil }
        stamp = now
        return .some((try? file.read()) ?? nil)
    }

    /// The keyboard set the pasteboard: the file takes it, and its new stamp, so that
    /// the keyboard is not sent its own text back. Nil, or why it was not saved.
    mutating func keyboardSet(_ text: String) -> String? {
        guard let file else { return nil }
        do {
            try file.write(text)
            stamp = file.stamp()
            return nil
        } catch {
            return "pasteboard not saved: \(error)"
        }
    }
}

// MARK: The pasteboard, kept in step with the host's file for keyboards with full access

extension KeyboardSession {
    /// A keyboard with full access sees the pasteboard as it is now: when its
    /// file changed (`kbhost pasteboard write`, another session), the next
    /// delivery carries it.
    func refreshPasteboard() {
        guard facts.hasFullAccess, let text = pasteboard.changed() else { return }
        if text != facts.pasteboard {
            facts.pasteboard = text
            factsChanged = true
        }
    }

    /// The keyboard set the pasteboard (its open access already checked); `savePasteboard`
    /// then writes the file, once for a call however many times the call set it.
    func keyboardSetPasteboard(_ text: String) {
        facts.pasteboard = text.isEmpty ? nil : text
        events.append(SessionEvent("pasteboard", text))
    }

    /// The host's pasteboard file takes what the keyboard set last.
    func savePasteboard(_ text: String) {
        if let problem = pasteboard.keyboardSet(text) { events.append(SessionEvent("log", problem)) }
    }
}
