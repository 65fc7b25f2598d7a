import CKeyboardABI
import Glibc
import KBText
import KBWire

/// The worker's side of the services table: it answers the plugin's reads
/// from its mirror of the document window, applies the plugin's own edits to
/// that mirror at once (so reads after an edit are fresh), and records every
/// effect, in order, for the reply to the host.
public final class WorkerServices {
    public internal(set) var mirror = DocumentWindow()
    public internal(set) var facts = ControllerFacts()
    var effects: [Effect] = []
    /// The layout as the plugin last set it, for dispatching key actions.
    public internal(set) var layout = WireLayout()
    /// Selectors of the principal class (set before the instance is created).
    var selectors: [String: PreparedSelector] = [:]
    var className = ""
    /// A failure the plugin caused inside a call; reported when the call returns.
    var failure: WorkerFailure?

    /// Borrowed strings handed to the plugin: each stays valid until the same function is called again.
    private var borrowed: [Int: UnsafeMutablePointer<CChar>] = [:]
    /// C strings of the current layout's keys, for the sender struct.
    private(set) var keyStrings: [[(identifier: UnsafeMutablePointer<CChar>, label: UnsafeMutablePointer<CChar>)]] = []

    public let table: UnsafeMutablePointer<kbh_host_v1>

    init() {
        table = .allocate(capacity: 1)
        table.initialize(to: kbh_host_v1())
        table.pointee.abi_version = UInt32(KBH_ABI_VERSION)
        table.pointee.struct_size = UInt32(MemoryLayout<kbh_host_v1>.size)
        table.pointee.ctx = Unmanaged.passUnretained(self).toOpaque()
        table.pointee.insert_text = { ctx, text in
            services(ctx).edit(.insertText(text.map { String(cString: $0) } ?? ""))
        }
        table.pointee.delete_backward = { ctx in services(ctx).edit(.deleteBackward) }
        table.pointee.adjust_text_position = { ctx, offset in
            let clamped = Int(max(min(offset, Int64(Int32.max)), Int64(-Int32.max)))
            services(ctx).edit(.adjustTextPosition(clamped))
        }
        table.pointee.set_marked_text = { ctx, text, location, length in
            let range = UTF16Range(location: Int(max(0, min(location, Int64(Int32.max)))),
                                   length: Int(max(0, min(length, Int64(Int32.max)))))
            services(ctx).edit(.setMarkedText(text.map { String(cString: $0) } ?? "", selectedRange: range))
        }
        table.pointee.unmark_text = { ctx in services(ctx).edit(.unmarkText) }
        table.pointee.has_text = { ctx in services(ctx).mirror.hasText }
        table.pointee.document_context_before_input = { ctx in services(ctx).lend(0, services(ctx).mirror.contextBefore) }
        table.pointee.document_context_after_input = { ctx in services(ctx).lend(1, services(ctx).mirror.contextAfter) }
        table.pointee.selected_text = { ctx in services(ctx).lend(2, services(ctx).mirror.selectedText) }
        table.pointee.marked_text = { ctx in services(ctx).lend(3, services(ctx).mirror.markedText) }
        table.pointee.document_identifier = { ctx in services(ctx).lend(4, services(ctx).facts.documentIdentifier) }
        table.pointee.text_input_traits = { ctx, out in
            guard let out else { return }
            out.pointee = cTraits(services(ctx).facts.traits)
        }
        table.pointee.advance_to_next_input_mode = { ctx in services(ctx).effects.append(.advanceToNextInputMode) }
        table.pointee.dismiss_keyboard = { ctx in services(ctx).effects.append(.dismissKeyboard) }
        table.pointee.play_input_click = { ctx in services(ctx).effects.append(.playInputClick) }
        table.pointee.needs_input_mode_switch_key = { ctx in services(ctx).facts.needsInputModeSwitchKey }
        table.pointee.has_full_access = { ctx in services(ctx).facts.hasFullAccess }
        table.pointee.primary_language = { ctx in services(ctx).lend(5, services(ctx).facts.primaryLanguage) }
        table.pointee.input_modes = { ctx in
            services(ctx).lend(6, services(ctx).facts.inputModes.joined(separator: "\n"))
        }
        table.pointee.set_layout = { ctx, layout in
            guard let layout else { return }
            services(ctx).setLayout(layout)
        }
        table.pointee.set_display = { ctx, text in
            let s = services(ctx)
            let display = text.map { String(cString: $0) } ?? ""
            s.layout.display = display
            s.effects.append(.setDisplay(display))
        }
        table.pointee.log = { ctx, level, text in
            services(ctx).effects.append(.log(level: UInt8(clamping: max(0, level)), message: text.map { String(cString: $0) } ?? ""))
        }
    }

    func edit(_ edit: TextEdit) {
        edit.apply(to: &mirror.buffer)
        effects.append(.edit(edit))
    }

    private func lend(_ slot: Int, _ value: String?) -> UnsafePointer<CChar>? {
        if let old = borrowed.removeValue(forKey: slot) { free(old) }
        guard let value, let copy = strdup(value) else { return nil }
        borrowed[slot] = copy
        return UnsafePointer(copy)
    }

    /// Copies a layout out of the plugin's structs, checking every action it names.
    private func setLayout(_ c: UnsafePointer<kbh_layout_v1>) {
        var rows: [[WireKey]] = []
        for r in 0 ..< Int(c.pointee.row_count) {
            let row = c.pointee.rows[r]
            var keys: [WireKey] = []
            for k in 0 ..< Int(row.key_count) {
                let spec = row.keys[k]
                func str(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
                let key = WireKey(identifier: str(spec.identifier) ?? "r\(r)c\(k)", label: str(spec.label) ?? "",
                                  role: KeyRole(rawValue: UInt8(truncatingIfNeeded: spec.role.rawValue)) ?? .function,
                                  width: spec.width > 0 && spec.width <= 100 ? spec.width : 1,
                                  action: str(spec.action), touchDownAction: str(spec.touch_down_action),
                                  longPressAction: str(spec.long_press_action),
                                  doubleTapAction: str(spec.double_tap_action), repeats: spec.repeats)
                for action in key.actions where selectors[action] == nil || SelectorRules.known[action] != nil {
                    failure = failure ?? WorkerFailure(.badLayout, "class \(className): key '\(key.label)' (row \(r + 1), key \(k + 1)) names action '\(action)', which the class does not implement as a key action")
                }
                keys.append(key)
            }
            rows.append(keys)
        }
        layout = WireLayout(display: c.pointee.display.map { String(cString: $0) } ?? "", rows: rows)
        for row in keyStrings { for k in row { free(k.identifier); free(k.label) } }
        keyStrings = layout.rows.map { $0.map { (strdup($0.identifier)!, strdup($0.label)!) } }
        effects.append(.setLayout(layout))
    }
}

private func services(_ ctx: UnsafeMutableRawPointer?) -> WorkerServices {
    Unmanaged<WorkerServices>.fromOpaque(ctx!).takeUnretainedValue()
}

private func cTraits(_ t: TextInputTraits) -> kbh_traits_v1 {
    kbh_traits_v1(keyboard_type: kbh_keyboard_type(rawValue: UInt32(t.keyboardType.rawValue)),
                  return_key_type: kbh_return_key_type(rawValue: UInt32(t.returnKeyType.rawValue)),
                  autocapitalization: kbh_autocapitalization(rawValue: UInt32(t.autocapitalization.rawValue)),
                  autocorrection: kbh_tristate(rawValue: UInt32(t.autocorrection.rawValue)),
                  spell_checking: kbh_tristate(rawValue: UInt32(t.spellChecking.rawValue)),
                  appearance: kbh_appearance(rawValue: UInt32(t.appearance.rawValue)),
                  secure_text_entry: t.isSecureTextEntry,
                  enables_return_key_automatically: t.enablesReturnKeyAutomatically)
}
