import CKeyboardABI

/// The keyboard's view of the document, as UITextDocumentProxy: edits go to
/// the host's document; reads come from a window around the insertion point
/// that already reflects this keyboard's own edits. Offsets are UTF-16 code
/// units; the host never splits a grapheme cluster.
public final class TextDocumentProxy {
    let host: UnsafePointer<kbh_host_v1>

    init(host: UnsafePointer<kbh_host_v1>) { self.host = host }

    private var ctx: UnsafeMutableRawPointer? { host.pointee.ctx }

    private func string(_ f: (@convention(c) (UnsafeMutableRawPointer?) -> UnsafePointer<CChar>?)?) -> String? {
        guard let f, let p = f(ctx) else { return nil }
        return String(cString: p)
    }

    /// Inserts text at the insertion point, replacing the selection or the marked text.
    public func insertText(_ text: String) {
        text.withCString { host.pointee.insert_text(ctx, $0) }
    }

    /// Deletes the selection, or the character (grapheme cluster) before the
    /// insertion point; with marked text, within it. On an empty document, or
    /// at its start, it does nothing.
    public func deleteBackward() { host.pointee.delete_backward(ctx) }

    /// Moves the insertion point by a number of UTF-16 code units.
    public func adjustTextPosition(byCharacterOffset offset: Int) {
        host.pointee.adjust_text_position(ctx, Int64(offset))
    }

    /// Replaces the marked text (or the selection) with provisional text and
    /// selects `selectedRange` (UTF-16 offsets within it), as an IME composes.
    public func setMarkedText(_ markedText: String, selectedRange: Range<Int>) {
        markedText.withCString {
            host.pointee.set_marked_text(ctx, $0, Int64(selectedRange.lowerBound), Int64(selectedRange.count))
        }
    }

    /// Commits the marked text as it is.
    public func unmarkText() { host.pointee.unmark_text(ctx) }

    /// Whether the document has any text.
    public var hasText: Bool { host.pointee.has_text(ctx) }

    /// Text before the insertion point, within a window (about a paragraph); nil if none.
    public var documentContextBeforeInput: String? { string(host.pointee.document_context_before_input) }
    /// Text after the insertion point, within a window; nil if none.
    public var documentContextAfterInput: String? { string(host.pointee.document_context_after_input) }
    /// The selected text; nil when the selection is empty.
    public var selectedText: String? { string(host.pointee.selected_text) }
    /// The marked (provisional) text; nil when nothing is marked.
    public var markedText: String? { string(host.pointee.marked_text) }
    /// Identifies the document; changes when the user moves to another field.
    public var documentIdentifier: String { string(host.pointee.document_identifier) ?? "" }

    /// The focused field's text input traits.
    public var traits: TextInputTraits {
        var c = kbh_traits_v1()
        host.pointee.text_input_traits(ctx, &c)
        var t = TextInputTraits()
        t.keyboardType = .init(rawValue: Int32(c.keyboard_type.rawValue)) ?? .default
        t.returnKeyType = .init(rawValue: Int32(c.return_key_type.rawValue)) ?? .default
        t.autocapitalizationType = .init(rawValue: Int32(c.autocapitalization.rawValue)) ?? .sentences
        t.autocorrectionType = .init(rawValue: Int32(c.autocorrection.rawValue)) ?? .default
        t.spellCheckingType = .init(rawValue: Int32(c.spell_checking.rawValue)) ?? .default
        t.keyboardAppearance = .init(rawValue: Int32(c.appearance.rawValue)) ?? .default
        t.isSecureTextEntry = c.secure_text_entry
        t.enablesReturnKeyAutomatically = c.enables_return_key_automatically
        return t
    }

    /// The field's keyboard type (`traits.keyboardType`).
    public var keyboardType: TextInputTraits.KeyboardType { traits.keyboardType }
    /// What the return key means in the field (`traits.returnKeyType`).
    public var returnKeyType: TextInputTraits.ReturnKeyType { traits.returnKeyType }
    /// When to capitalize (`traits.autocapitalizationType`).
    public var autocapitalizationType: TextInputTraits.AutocapitalizationType { traits.autocapitalizationType }
    /// Whether to autocorrect (`traits.autocorrectionType`).
    public var autocorrectionType: TextInputTraits.AutocorrectionType { traits.autocorrectionType }
    /// Whether to check spelling (`traits.spellCheckingType`).
    public var spellCheckingType: TextInputTraits.SpellCheckingType { traits.spellCheckingType }
    /// Dark or light keys (`traits.keyboardAppearance`).
    public var keyboardAppearance: TextInputTraits.KeyboardAppearance { traits.keyboardAppearance }
    /// A password field: no suggestions, no learning (`traits.isSecureTextEntry`).
    public var isSecureTextEntry: Bool { traits.isSecureTextEntry }
}

/// The argument of the UITextInputDelegate callbacks: the document, opaque.
public struct TextInput: Sendable {
    let raw: UInt
}
