import KBText
import KBWire

// MARK: Effects: what the keyboard's process asked for, checked and applied

extension KeyboardSession {
    func apply(_ effects: [Effect]) throws(KeyboardFailure) {
        var advance = false, dismiss = false
        for effect in effects {
            switch effect {
            case .edit(let edit):
                let before = document.buffer
                edit.apply(to: &document.buffer)
                mirror.length += document.buffer.utf16Count - before.utf16Count
                if recordsProxyCalls { events.append(edit.proxyEvent) }
                onEdit?(edit, before)
            case .setLayout(let wire):
                layout = KeyboardLayout(wire)
                layoutVersion &+= 1
            case .setDisplay(let text):
                layout.display = text
                layoutVersion &+= 1
            case .advanceToNextInputMode:
                events.append(SessionEvent("advanceToNextInputMode"))
                advance = true
            case .dismissKeyboard:
                events.append(SessionEvent("dismissKeyboard"))
                dismiss = true
            case .playInputClick:
                events.append(SessionEvent("playInputClick"))
            case .log(_, let message):
                events.append(SessionEvent("log", message))
            case .setPasteboard(let text):
                // The keyboard's own process sends this: check again what the worker checked.
                guard facts.hasFullAccess else {
                    throw fail(violation("set the pasteboard without open access", phase: "pasteboard"))
                }
                keyboardSetPasteboard(text)
            case .playSound(let name):
                guard facts.hasFullAccess else {
                    throw fail(violation("played a sound without open access", phase: "playSound"))
                }
                events.append(SessionEvent("playSound", name))
            }
        }
        if !mirror.matches(document.buffer) { mirror.isStale = true }
        if advance { onAdvanceToNextInputMode?() }
        if dismiss { onDismiss?() }
    }
}
