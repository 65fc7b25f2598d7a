import KBText
import KBWire

// MARK: Changes from outside the keyboard

extension KeyboardSession {
    /// Changes the document as the app or the user would: the keyboard gets
    /// textWillChange/textDidChange (or selectionWillChange/selectionDidChange
    /// when only the selection moved), and a fresh window.
    public func editDocument(_ change: (inout TextDocument) -> Void) throws(KeyboardFailure) {
        var changed = document
        change(&changed)
        let textChanged = changed.buffer.text != document.buffer.text || changed.buffer.markedRange != document.buffer.markedRange
        let selectionChanged = changed.buffer.selection != document.buffer.selection
        if changed.traits != document.traits || changed.identifier != document.identifier {
            facts.traits = changed.traits
            facts.documentIdentifier = changed.identifier
            factsChanged = true
        }
        guard textChanged || selectionChanged || factsChanged else { return }
        let (will, did): (TextInputCallback, TextInputCallback) = textChanged
            ? (.textWillChange, .textDidChange) : (.selectionWillChange, .selectionDidChange)
        // The document is the app's: a keyboard that fails in textWillChange
        // cannot veto the change, so it is applied whatever happens.
        do {
            try deliver(.textInput(will), phase: will.selector.dropLast().description)
        } catch {
            document = changed
            document.buffer.commitMarkedText()
            throw error
        }
        document = changed
        mirror.isStale = true
        try deliver(.textInput(did), phase: did.selector.dropLast().description)
    }
}
