import KBSystem
import KBText
import KBWire

// MARK: Effects: what the keyboard's process asked for, checked and applied

extension KeyboardSession {
    /// The longest a keyboard may make the document it types into (UTF-16 code units): 16 Mi, 32 MiB.
    package static let documentLimit = 16 << 20

    func apply(_ effects: [Effect], phase: @autoclosure () -> String) throws(KeyboardFailure) {
        // Counted before anything is applied: the time the host spends on one call's edits is
        // bounded as their count and memory are (WireLimits.maximumEditWork).
        let deadline = Sys.monotonicNanoseconds() + Int64(WireLimits.maximumEditCheckMilliseconds) * 1_000_000
        if let excess = WireLimits.editWorkViolation(effects, document: document.buffer,
                                                     timeIsUp: { Sys.monotonicNanoseconds() > deadline }) {
            throw fail(KeyboardFailure(keyboardID: keyboard.identifier, phase: phase(), reason: .loadFailed(.overLimit, excess),
                                       stderrTail: process.outputText))
        }
        var advance = false, dismiss = false
        var pasteboardSet: String?  // written once, the last of the call's: each write is a file replaced and synced
        for effect in effects {
            if let refusal = EffectPolicy.refusal(of: effect, hasFullAccess: facts.hasFullAccess) {
                throw fail(violation(refusal.what, phase: refusal.phase))
            }
            switch effect {
            case .edit(let edit):
                // The document stays within bounds across calls too: a keyboard inserting 2 MB a key had
                // `kbhost type` of 200 keys hold 816 MB (twenty-fifth red team). Nothing past the bound is applied.
                let added: Int
                switch edit {
                case .insertText(let text), .setMarkedText(let text, _): added = text.utf16.count
                default: added = 0
                }
                if added > 0, document.buffer.utf16Count + added > Self.documentLimit {
                    throw fail(KeyboardFailure(keyboardID: keyboard.identifier, phase: phase(), reason: .loadFailed(.overLimit,
                        "made the document longer than \(Self.documentLimit) UTF-16 code units, the most a document may hold"),
                                               stderrTail: process.outputText))
                }
                // The document before the edit is kept only for someone who asked for it: the
                // copy costs as much as the document is long, at every edit.
                let before = onEdit == nil ? nil : document.buffer
                let length = document.buffer.utf16Count
                edit.apply(to: &document.buffer)
                mirror.length += document.buffer.utf16Count - length
                if recordsProxyCalls { events.append(edit.proxyEvent) }
                if let onEdit, let before { onEdit(edit, before) }
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
                keyboardSetPasteboard(text)
                pasteboardSet = text
            case .playSound(let name):
                events.append(SessionEvent("playSound", name))
            case .setKeyExtras(let change):
                guard layout.setExtras(KeyboardLayout.KeyExtras(change.extras), row: Int(change.row), column: Int(change.column)) else {
                    throw fail(violation("gave extras to key (\(change.row), \(change.column)), which its layout does not have",
                                         phase: "set_key_extras"))
                }
                guard layout.extrasBytes <= WireLimits.maximumEffectMemory else {
                    throw fail(violation("gave its keys extras that would take the host \(layout.extrasBytes >> 20) MiB to hold; at most \(WireLimits.maximumEffectMemory >> 20) MiB for one layout (KBH_MAX_CALL_MEMORY)",
                                         phase: "set_key_extras"))
                }
                layoutVersion &+= 1
            case .haptic(let kind, let intensity):
                events.append(SessionEvent("haptic", intensity == 1 ? kind.name : "\(kind.name) \(intensity)"))
            }
        }
        if let pasteboardSet { savePasteboard(pasteboardSet) }
        if !mirror.matches(document.buffer) { mirror.isStale = true }
        if advance { onAdvanceToNextInputMode?() }
        if dismiss { onDismiss?() }
    }
}

/// What a keyboard's effects may do, checked again on the host's side: the
/// keyboard's own process sends them, so what the worker checked may be forged.
enum EffectPolicy {
    /// Why the host refuses an effect (a protocol violation that ends the keyboard), or nil.
    static func refusal(of effect: Effect, hasFullAccess: Bool) -> (what: String, phase: String)? {
        guard !hasFullAccess else { return nil }
        switch effect {
        case .setPasteboard: return ("set the pasteboard without open access", "pasteboard")
        case .playSound: return ("played a sound without open access", "playSound")
        case .haptic: return ("played haptic feedback without open access", "play_haptic")
        default: return nil
        }
    }
}
