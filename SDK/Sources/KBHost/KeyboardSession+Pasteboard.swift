import KBText
import KBWire

// MARK: The pasteboard, kept in step with the host's file for keyboards with full access

extension KeyboardSession {
    /// A keyboard with full access sees the pasteboard as it is now: when its
    /// file changed (`kbhost pasteboard write`, another session), the next
    /// delivery carries it. One stat per call, for those keyboards only.
    func refreshPasteboard() {
        guard facts.hasFullAccess, let pasteboard else { return }
        let stamp = pasteboard.stamp()
        guard stamp != pasteboardStamp else { return }
        pasteboardStamp = stamp
        let text = (try? pasteboard.read()) ?? nil
        if text != facts.pasteboard {
            facts.pasteboard = text
            factsChanged = true
        }
    }

    /// The keyboard set the pasteboard (its open access already checked): the host's file
    /// takes it, and its new stamp, so that the keyboard is not sent its own text back.
    func keyboardSetPasteboard(_ text: String) {
        facts.pasteboard = text.isEmpty ? nil : text
        if let pasteboard {
            do {
                try pasteboard.write(text)
                pasteboardStamp = pasteboard.stamp()
            } catch {
                events.append(SessionEvent("log", "pasteboard not saved: \(error)"))
            }
        }
        events.append(SessionEvent("pasteboard", text))
    }
}
