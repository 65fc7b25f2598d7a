package import CKeyboardABI
import Glibc
import KBSystem
package import KBText
package import KBWire

/// The worker's side of the services table: it answers the plugin's reads
/// from its mirror of the document window, applies the plugin's own edits to
/// that mirror at once (so reads after an edit are fresh), and records every
/// effect, in order, for the reply to the host.
package final class WorkerServices {
    package internal(set) var mirror = DocumentWindow()
    package internal(set) var facts = ControllerFacts()
    var effects: [Effect] = []
    /// The layout as the plugin last set it, for dispatching key actions.
    package internal(set) var layout = WireLayout()
    /// The current layout's keys' extras (set_key_extras), by place; a new layout drops them.
    package internal(set) var keyExtras: [KeyNaming.Position: KeyExtras] = [:]
    /// The current layout's keys by identifier, made when extras are first set (most layouts have none).
    var identifierIndex: [String: KeyNaming.Position]?
    /// Where a drag's touch is, while its drag action runs (the touch() service).
    var currentTouch: DragTouch?
    /// Selectors of the principal class (set before the instance is created).
    var selectors: [String: PreparedSelector] = [:]
    var className = ""
    /// A failure the plugin caused inside a call; reported when the call returns.
    var failure: WorkerFailure?
    /// The keyboard's folders and whether it has open access (from the load request).
    var sandbox = SandboxSpec(enabled: false)
    /// What the last failing service call said (last_error).
    var lastError = ""
    /// The bytes of the last defaults value handed out (borrowed by the plugin).
    private var lentValue: UnsafeMutableRawBufferPointer?

    /// Borrowed strings handed to the plugin: each stays valid until the same function is called again.
    private var borrowed: [Int: UnsafeMutablePointer<CChar>] = [:]
    /// C strings of the current layout's keys, for the sender struct.
    private(set) var keyStrings: [[(identifier: UnsafeMutablePointer<CChar>, label: UnsafeMutablePointer<CChar>)]] = []

    package let table: UnsafeMutablePointer<kbh_host_v1>

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
        table.pointee.advance_to_next_input_mode = { ctx in services(ctx).record(.advanceToNextInputMode) }
        table.pointee.dismiss_keyboard = { ctx in services(ctx).record(.dismissKeyboard) }
        table.pointee.play_input_click = { ctx in services(ctx).record(.playInputClick) }
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
            s.record(.setDisplay(display))
        }
        table.pointee.log = { ctx, level, text in
            services(ctx).record(.log(level: UInt8(clamping: max(0, level)), message: text.map { String(cString: $0) } ?? ""))
        }
        table.pointee.supplementary_lexicon = { ctx in
            services(ctx).lend(7, services(ctx).facts.lexicon.map { "\($0.userInput)\t\($0.documentText)" }.joined(separator: "\n"))
        }
        table.pointee.container_path = { ctx in
            let path = services(ctx).sandbox.containerPath
            return services(ctx).lend(8, path.isEmpty ? nil : path)
        }
        table.pointee.group_container_path = { ctx, group in
            services(ctx).lend(9, services(ctx).group(group)?.path)
        }
        table.pointee.defaults_get = { ctx, group, key, out in services(ctx).defaultsGet(group, key, out) }
        table.pointee.defaults_set = { ctx, group, key, value in services(ctx).defaultsSet(group, key, value) }
        table.pointee.pasteboard_get = { ctx, out in
            let s = services(ctx)
            guard s.requireFullAccess("reading the pasteboard") else { return EPERM }
            out?.pointee = s.lend(10, s.facts.pasteboard)
            return 0
        }
        table.pointee.pasteboard_set = { ctx, text in
            let s = services(ctx)
            guard s.requireFullAccess("writing the pasteboard") else { return EPERM }
            let value = text.map { String(cString: $0) } ?? ""
            s.facts.pasteboard = value.isEmpty ? nil : value
            s.record(.setPasteboard(value))
            return 0
        }
        table.pointee.play_sound = { ctx, name in
            let s = services(ctx)
            guard s.requireFullAccess("playing a sound other than the input click") else { return EPERM }
            s.record(.playSound(name.map { String(cString: $0) } ?? ""))
            return 0
        }
        table.pointee.last_error = { ctx in services(ctx).lend(11, services(ctx).lastError) }
        installInputModels()
    }

    // MARK: Open access, containers and group defaults

    func requireFullAccess(_ what: String) -> Bool {
        guard facts.hasFullAccess else {
            lastError = "\(what) needs open access: the manifest must request it (RequestsOpenAccess) and the user must grant it (kbhost access ID on)"
            return false
        }
        return true
    }

    private func group(_ name: UnsafePointer<CChar>?) -> GroupContainer? {
        guard let name else { return nil }
        let wanted = String(cString: name)
        return sandbox.groups.first { $0.name == wanted }
    }

    /// The errno a failed defaults operation answers with.
    private func errorNumber(_ error: any Error) -> Int32 {
        (error as? SystemError)?.errno ?? (error as? PathRefusal)?.errno ?? (error as? CorruptDefaults)?.errno ?? EIO
    }

    private func store(_ name: UnsafePointer<CChar>?) -> GroupDefaultsStore? {
        guard let g = group(name) else {
            let wanted = name.map { String(cString: $0) } ?? "(null)"
            let declared = sandbox.groups.map(\.name)
            lastError = "app group '\(wanted)' is not declared in the keyboard's manifest (com.apple.security.application-groups)"
                + (declared.isEmpty ? "" : "; it declares \(declared.joined(separator: ", "))")
            return nil
        }
        // A keyboard waits for its group's lock well within the host's deadline for a call
        // (2.5 s): with the app's 5 s, another keyboard of the group holding the lock got this
        // one killed as hung, a failure charged to it (fourth red team). It gets EWOULDBLOCK.
        return GroupDefaultsStore(group: g.name, containerPath: g.path, waitForLock: GroupDefaultsStore.keyboardLockWait)
    }

    private func defaultsGet(_ group: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?,
                             _ out: UnsafeMutablePointer<kbh_value_v1>?) -> Int32 {
        guard let store = store(group) else { return ENOENT }
        guard let key, let out else { lastError = "defaults_get: no key"; return EINVAL }
        let values: [String: DefaultValue]
        do { values = try store.load() } catch {
            lastError = "reading the defaults of '\(store.group)': \(error)"
            return errorNumber(error)
        }
        guard let value = values[String(cString: key)] else { return ENOENT }
        var c = kbh_value_v1()
        func lendBytes(_ bytes: [UInt8]) {
            lentValue?.deallocate()
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 1)
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
            lentValue = buffer
            c.bytes = UnsafePointer(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
            c.length = bytes.count
        }
        switch value {
        case .bool(let b): c.type = KBH_VALUE_BOOL; c.boolean = b
        case .integer(let i): c.type = KBH_VALUE_INT; c.integer = i
        case .double(let d): c.type = KBH_VALUE_DOUBLE; c.real = d
        case .string(let s): c.type = KBH_VALUE_STRING; lendBytes(Array(s.utf8))
        case .data(let d): c.type = KBH_VALUE_DATA; lendBytes(d)
        }
        out.pointee = c
        return 0
    }

    private func defaultsSet(_ group: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?,
                             _ value: UnsafePointer<kbh_value_v1>?) -> Int32 {
        guard let store = store(group) else { return ENOENT }
        guard let key else { lastError = "defaults_set: no key"; return EINVAL }
        guard requireFullAccess("writing the defaults of app group '\(store.group)'") else { return EPERM }
        var decoded: DefaultValue?
        if let v = value?.pointee {
            func bytes() -> [UInt8] { v.bytes.map { Array(UnsafeBufferPointer(start: $0, count: v.length)) } ?? [] }
            switch v.type {
            case KBH_VALUE_BOOL: decoded = .bool(v.boolean)
            case KBH_VALUE_INT: decoded = .integer(v.integer)
            case KBH_VALUE_DOUBLE: decoded = .double(v.real)
            case KBH_VALUE_STRING:
                guard let s = String(validating: bytes(), as: UTF8.self) else {
                    lastError = "defaults_set: the string for '\(String(cString: key))' is not UTF-8"
                    return EINVAL
                }
                decoded = .string(s)
            case KBH_VALUE_DATA: decoded = .data(bytes())
            default:
                lastError = "defaults_set: unknown value type \(v.type.rawValue)"
                return EINVAL
            }
        }
        do {
            try store.set(decoded, forKey: String(cString: key))
            return 0
        } catch {
            lastError = "writing the defaults of '\(store.group)': \(error)"
            return errorNumber(error)
        }
    }

    func edit(_ edit: TextEdit) {
        edit.apply(to: &mirror.buffer)
        record(.edit(edit))
    }

    /// Records an effect for the reply. Consecutive insertions become one (the
    /// document cannot tell them apart), so that a keyboard that inserts 300,000
    /// letters in one action sends one effect. Past `WireLimits.maximumEffects` the
    /// call has failed: nothing more is kept.
    func record(_ effect: Effect) {
        if case .edit(.insertText(let added)) = effect, case .edit(.insertText(var text))? = effects.last {
            effects.removeLast()  // `text` is now the only reference: the append below is in place
            text += added
            effects.append(.edit(.insertText(text)))
            return
        }
        guard effects.count < WireLimits.maximumEffects else {
            failure = failure ?? WorkerFailure(.overLimit, "class \(className): "
                + "made more than \(WireLimits.maximumEffects) changes in one call; one call may make at most \(WireLimits.maximumEffects) (KBH_MAX_CALL_EFFECTS)")
            return
        }
        effects.append(effect)
    }

    func lend(_ slot: Int, _ value: String?) -> UnsafePointer<CChar>? {
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
                                  role: KeyRole(spec.role),
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
        keyExtras = [:]
        identifierIndex = nil
        for row in keyStrings { for k in row { free(k.identifier); free(k.label) } }
        keyStrings = layout.rows.map { $0.map { (strdup($0.identifier)!, strdup($0.label)!) } }
        record(.setLayout(layout))
    }
}

func services(_ ctx: UnsafeMutableRawPointer?) -> WorkerServices {
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
