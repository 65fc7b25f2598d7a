import KBText

// The binary form of every message. Tags are fixed forever; a new message
// gets a new tag and a protocol version bump. Tests pin the bytes.

/// What both directions' messages share: one way to write them, framed or not.
package protocol WireMessage {
    func write(to writer: inout ByteWriter)
}

extension WireMessage {
    /// The message without framing.
    package func encoded() -> [UInt8] {
        var w = ByteWriter()
        write(to: &w)
        return w.bytes
    }

    /// The message as one frame, ready to send (one buffer, no copy).
    package func encodedFrame() -> [UInt8] {
        var w = ByteWriter.forFrame()
        write(to: &w)
        return w.frame()
    }
}

extension HostMessage: WireMessage {
    package func write(to w: inout ByteWriter) {
        switch self {
        case .hello(let p, let a):
            w.u8(1); w.u32(p); w.u32(a)
        case .load(let r):
            w.u8(2); w.string(r.pluginPath); w.string(r.className); w.facts(r.facts); w.window(r.window)
            w.sandbox(r.sandbox)
        case .deliver(let d):
            w.u8(3); w.u64(d.sequence)
            if let f = d.facts { w.u8(1); w.facts(f) } else { w.u8(0) }
            if let win = d.window { w.u8(1); w.window(win) } else { w.u8(0) }
            w.call(d.call)
        case .shutdown:
            w.u8(4)
        }
    }

    package static func decode(_ bytes: [UInt8]) throws(WireError) -> HostMessage {
        var r = ByteReader(bytes)
        let message: HostMessage
        switch try r.u8("host message") {
        case 1: message = .hello(protocolVersion: try r.u32("protocol version"), abiVersion: try r.u32("ABI version"))
        case 2:
            message = .load(LoadRequest(pluginPath: try r.string("plugin path"), className: try r.string("class name"),
                                        facts: try r.facts(), window: try r.window(), sandbox: try r.sandbox()))
        case 3:
            let seq = try r.u64("sequence")
            let facts = try r.bool("facts flag") ? try r.facts() : nil
            let window = try r.bool("window flag") ? try r.window() : nil
            message = .deliver(Delivery(sequence: seq, facts: facts, window: window, call: try r.call()))
        case 4: message = .shutdown
        case let tag: throw .invalidTag(type: "host message", tag: tag)
        }
        try r.finish()
        return message
    }
}

extension WorkerMessage: WireMessage {
    package func write(to w: inout ByteWriter) {
        switch self {
        case .hello(let p, let a, let pid):
            w.u8(1); w.u32(p); w.u32(a); w.i32(pid)
        case .loaded(let reply):
            w.u8(2)
            w.count(reply.selectors.count)
            for s in reply.selectors { w.string(s.name); w.string(s.types) }
            w.effects(reply.effects)
        case .done(let seq, let effects):
            w.u8(3); w.u64(seq); w.effects(effects)
        case .failure(let f):
            w.u8(4); w.u8(f.kind.rawValue); w.string(f.message)
        }
    }

    /// Decodes a worker's message, spending at most `budget` bytes of memory on
    /// what it holds (see `WireLimits`): a hostile plugin may write any frame.
    package static func decode(_ bytes: [UInt8], budget: Int = WireLimits.maximumEffectMemory) throws(WireError) -> WorkerMessage {
        var r = ByteReader(bytes, budget: budget)
        let message: WorkerMessage
        switch try r.u8("worker message") {
        case 1:
            message = .hello(protocolVersion: try r.u32("protocol version"), abiVersion: try r.u32("ABI version"),
                             pid: try r.i32("pid"))
        case 2:
            let n = try r.count("selectors", minimumSize: 8)
            try r.charge(WireLimits.arrayCost(n, stride: MemoryLayout<SelectorInfo>.stride))
            var selectors: [SelectorInfo] = []
            selectors.reserveCapacity(n)
            for _ in 0..<n {
                selectors.append(SelectorInfo(name: try r.string("selector name"), types: try r.string("type encoding")))
            }
            message = .loaded(LoadReply(selectors: selectors, effects: try r.effects()))
        case 3:
            message = .done(sequence: try r.u64("sequence"), effects: try r.effects())
        case 4:
            message = .failure(WorkerFailure(try r.enumCase(WorkerFailure.Kind.self, "failure kind"),
                                             try r.string("failure message")))
        case let tag: throw .invalidTag(type: "worker message", tag: tag)
        }
        try r.finish()
        return message
    }
}

// MARK: Composite values

extension ByteWriter {
    mutating func traits(_ t: TextInputTraits) {
        u8(UInt8(t.keyboardType.rawValue)); u8(UInt8(t.returnKeyType.rawValue))
        u8(UInt8(t.autocapitalization.rawValue)); u8(UInt8(t.autocorrection.rawValue))
        u8(UInt8(t.spellChecking.rawValue)); u8(UInt8(t.appearance.rawValue))
        bool(t.isSecureTextEntry); bool(t.enablesReturnKeyAutomatically)
    }

    mutating func facts(_ f: ControllerFacts) {
        bool(f.needsInputModeSwitchKey); bool(f.hasFullAccess)
        string(f.primaryLanguage); string(f.documentIdentifier)
        traits(f.traits)
        count(f.inputModes.count)
        for m in f.inputModes { string(m) }
        count(f.lexicon.count)
        for e in f.lexicon { string(e.userInput); string(e.documentText) }
        optionalString(f.pasteboard)
    }

    mutating func sandbox(_ s: SandboxSpec) {
        bool(s.enabled); bool(s.openAccess)
        count(s.readPaths.count)
        for p in s.readPaths { string(p) }
        count(s.readIdentities.count)
        for i in s.readIdentities { u64(i.device); u64(i.inode) }
        string(s.containerPath)
        count(s.groups.count)
        for g in s.groups { string(g.name); string(g.path) }
        count(s.allowMissing.count)
        for m in s.allowMissing { string(m) }
    }

    mutating func range(_ r: UTF16Range) { int(r.location); int(r.length) }

    mutating func window(_ w: DocumentWindow) {
        string(w.buffer.text); range(w.buffer.selection)
        if let m = w.buffer.markedRange { u8(1); range(m) } else { u8(0) }
        bool(w.truncatedBefore); bool(w.truncatedAfter)
    }

    mutating func call(_ c: Call) {
        switch c {
        case .lifecycle(let l, let animated): u8(1); u8(l.rawValue); bool(animated)
        case .textInput(let t): u8(2); u8(t.rawValue)
        case .key(let row, let column, let e):
            u8(3); i32(row); i32(column)
            u8(e.kind.rawValue); i32(e.tapCount); i32(e.repeatCount); i64(e.timestampNanoseconds)
        case .transition(let width, let height): u8(4); double(width); double(height)
        case .memoryWarning: u8(5)
        case .alternate(let row, let column, let choice, let e):
            u8(6); i32(row); i32(column); string(choice); i32(e.tapCount); i64(e.timestampNanoseconds)
        case .drag(let row, let column, let t): u8(7); i32(row); i32(column); dragTouch(t)
        }
    }

    mutating func edit(_ e: TextEdit) {
        switch e {
        case .insertText(let s): u8(1); string(s)
        case .deleteBackward: u8(2)
        case .adjustTextPosition(let n): u8(3); int(n)
        case .setMarkedText(let s, let r): u8(4); string(s); range(r)
        case .unmarkText: u8(5)
        }
    }

    mutating func layout(_ l: WireLayout) {
        string(l.display)
        count(l.rows.count)
        for row in l.rows {
            count(row.count)
            for k in row {
                string(k.identifier); string(k.label); u8(k.role.rawValue); double(k.width)
                optionalString(k.action); optionalString(k.touchDownAction)
                optionalString(k.longPressAction); optionalString(k.doubleTapAction)
                bool(k.repeats)
            }
        }
    }

    mutating func effects(_ list: [Effect]) {
        count(list.count)
        for e in list {
            switch e {
            case .edit(let edit): u8(1); self.edit(edit)
            case .setLayout(let l): u8(2); layout(l)
            case .setDisplay(let s): u8(3); string(s)
            case .advanceToNextInputMode: u8(4)
            case .dismissKeyboard: u8(5)
            case .playInputClick: u8(6)
            case .log(let level, let message): u8(7); u8(level); string(message)
            case .setPasteboard(let s): u8(8); string(s)
            case .playSound(let s): u8(9); string(s)
            case .setKeyExtras(let change): u8(10); i32(change.row); i32(change.column); keyExtras(change.extras)
            case .haptic(let kind, let intensity): u8(11); u8(kind.rawValue); double(intensity)
            }
        }
    }
}

extension ByteReader {
    mutating func small<E: RawRepresentable<Int>>(_: E.Type, _ field: String) throws(WireError) -> E {
        let raw = try u8(field)
        guard let v = E(rawValue: Int(raw)) else { throw .invalidTag(type: field, tag: raw) }
        return v
    }

    mutating func traits() throws(WireError) -> TextInputTraits {
        TextInputTraits(keyboardType: try small(TextInputTraits.KeyboardType.self, "keyboard type"),
                        returnKeyType: try small(TextInputTraits.ReturnKeyType.self, "return key type"),
                        autocapitalization: try small(TextInputTraits.Autocapitalization.self, "autocapitalization"),
                        autocorrection: try small(TextInputTraits.Tristate.self, "autocorrection"),
                        spellChecking: try small(TextInputTraits.Tristate.self, "spell checking"),
                        appearance: try small(TextInputTraits.Appearance.self, "keyboard appearance"),
                        isSecureTextEntry: try bool("secure text entry"),
                        enablesReturnKeyAutomatically: try bool("enables return key automatically"))
    }

    mutating func facts() throws(WireError) -> ControllerFacts {
        let needs = try bool("needsInputModeSwitchKey"), full = try bool("hasFullAccess")
        let language = try string("primary language"), document = try string("document identifier")
        let traits = try traits()
        let n = try count("input modes", minimumSize: 4)
        var modes: [String] = []
        for _ in 0..<n { modes.append(try string("input mode")) }
        let entries = try count("lexicon", minimumSize: 8)
        var lexicon: [LexiconEntry] = []
        for _ in 0..<entries {
            lexicon.append(LexiconEntry(userInput: try string("lexicon shortcut"), documentText: try string("lexicon phrase")))
        }
        return ControllerFacts(needsInputModeSwitchKey: needs, hasFullAccess: full, primaryLanguage: language,
                               documentIdentifier: document, traits: traits, inputModes: modes, lexicon: lexicon,
                               pasteboard: try optionalString("pasteboard"))
    }

    mutating func sandbox() throws(WireError) -> SandboxSpec {
        var s = SandboxSpec(enabled: try bool("sandbox enabled"), openAccess: try bool("open access"))
        for _ in 0..<(try count("read paths", minimumSize: 4)) { s.readPaths.append(try string("read path")) }
        for _ in 0..<(try count("read path identities", minimumSize: 16)) {
            s.readIdentities.append(ReadPathIdentity(device: try u64("read path device"), inode: try u64("read path inode")))
        }
        guard s.readIdentities.isEmpty || s.readIdentities.count == s.readPaths.count else {
            throw WireError.invalidValue(field: "read path identities", reason: "\(s.readIdentities.count) for \(s.readPaths.count) read paths")
        }
        s.containerPath = try string("container path")
        for _ in 0..<(try count("groups", minimumSize: 8)) {
            s.groups.append(GroupContainer(name: try string("group name"), path: try string("group path")))
        }
        for _ in 0..<(try count("allowed missing protections", minimumSize: 4)) {
            s.allowMissing.append(try string("allowed missing protection"))
        }
        return s
    }

    mutating func range(_ field: String) throws(WireError) -> UTF16Range {
        let location = try int(field), length = try int(field)
        guard location >= 0, length >= 0, location <= Int(Int32.max), length <= Int(Int32.max) else {
            throw .invalidValue(field: field, reason: "range {\(location), \(length)} is out of bounds")
        }
        return UTF16Range(location: location, length: length)
    }

    mutating func window() throws(WireError) -> DocumentWindow {
        let text = try string("window text")
        let selection = try range("selection")
        let marked = try bool("marked flag") ? try range("marked range") : nil
        let count = text.utf16.count
        guard selection.end <= count, (marked?.end ?? 0) <= count else {
            throw .invalidValue(field: "window", reason: "selection or marked range lies outside the text")
        }
        return DocumentWindow(buffer: TextBuffer(text: text, selection: selection, markedRange: marked),
                              truncatedBefore: try bool("truncated before"), truncatedAfter: try bool("truncated after"))
    }

    mutating func call() throws(WireError) -> Call {
        switch try u8("call") {
        case 1: return .lifecycle(try enumCase(Lifecycle.self, "life-cycle selector"), animated: try bool("animated"))
        case 2: return .textInput(try enumCase(TextInputCallback.self, "text input callback"))
        case 3:
            let row = try i32("key row"), column = try i32("key column")
            let event = KeyEvent(kind: try enumCase(KeyEvent.Kind.self, "key event kind"), tapCount: try i32("tap count"),
                                 repeatCount: try i32("repeat count"), timestampNanoseconds: try i64("timestamp"))
            return .key(row: row, column: column, event: event)
        case 4: return .transition(width: try double("width"), height: try double("height"))
        case 5: return .memoryWarning
        case 6:
            let row = try i32("key row"), column = try i32("key column"), choice = try string("alternate")
            let event = KeyEvent(kind: .touchUpInside, tapCount: try i32("tap count"), timestampNanoseconds: try i64("timestamp"))
            return .alternate(row: row, column: column, choice: choice, event: event)
        case 7:
            let row = try i32("key row"), column = try i32("key column")
            return .drag(row: row, column: column, touch: try dragTouch())
        case let tag: throw .invalidTag(type: "call", tag: tag)
        }
    }

    mutating func edit() throws(WireError) -> TextEdit {
        switch try u8("edit") {
        case 1: return .insertText(try string("inserted text"))
        case 2: return .deleteBackward
        case 3:
            let n = try int("text position offset")
            guard n.magnitude <= UInt(Int32.max) else { throw .invalidValue(field: "text position offset", reason: "\(n) is out of range") }
            return .adjustTextPosition(n)
        case 4: return .setMarkedText(try string("marked text"), selectedRange: try range("marked selected range"))
        case 5: return .unmarkText
        case let tag: throw .invalidTag(type: "edit", tag: tag)
        }
    }

    mutating func layout() throws(WireError) -> WireLayout {
        let display = try string("layout display")
        let rowCount = try count("layout rows", minimumSize: 4)
        try charge(WireLimits.arrayCost(rowCount, stride: MemoryLayout<[WireKey]>.stride))
        var rows: [[WireKey]] = []
        rows.reserveCapacity(rowCount)
        for _ in 0..<rowCount {
            let keyCount = try count("layout keys", minimumSize: 22)
            try charge(WireLimits.arrayCost(keyCount, stride: WireLimits.keyCost))
            var row: [WireKey] = []
            row.reserveCapacity(keyCount)
            for _ in 0..<keyCount {
                let identifier = try string("key identifier")
                try charge(WireLimits.identifierIndexCost(identifier.utf8.count))
                let key = WireKey(identifier: identifier, label: try string("key label"),
                                  role: try enumCase(KeyRole.self, "key role"), width: try double("key width"),
                                  action: try optionalString("key action"),
                                  touchDownAction: try optionalString("touch-down action"),
                                  longPressAction: try optionalString("long-press action"),
                                  doubleTapAction: try optionalString("double-tap action"),
                                  repeats: try bool("key repeats"))
                guard key.width > 0, key.width <= 100 else {
                    throw .invalidValue(field: "key width", reason: "\(key.width) is not in (0, 100]")
                }
                row.append(key)
            }
            rows.append(row)
        }
        return WireLayout(display: display, rows: rows)
    }

    mutating func effects() throws(WireError) -> [Effect] {
        let n = try count("effects")
        guard n <= WireLimits.maximumEffects else { throw .overLimit(field: "effects", count: n, limit: WireLimits.maximumEffects) }
        try charge(WireLimits.arrayCost(n, stride: MemoryLayout<Effect>.stride))
        var list: [Effect] = []
        list.reserveCapacity(n)
        for _ in 0..<n {
            switch try u8("effect") {
            case 1: list.append(.edit(try edit()))
            case 2: list.append(.setLayout(try layout()))
            case 3: list.append(.setDisplay(try string("display")))
            case 4: list.append(.advanceToNextInputMode)
            case 5: list.append(.dismissKeyboard)
            case 6: list.append(.playInputClick)
            case 7: list.append(.log(level: try u8("log level"), message: try string("log message")))
            case 8: list.append(.setPasteboard(try string("pasteboard text")))
            case 9: list.append(.playSound(try string("sound name")))
            case 10:
                try charge(WireLimits.keyExtrasCost)
                let row = try i32("extras row"), column = try i32("extras column")
                list.append(.setKeyExtras(KeyExtrasChange(row: row, column: column, extras: try keyExtras())))
            case 11: list.append(try haptic())
            case let tag: throw .invalidTag(type: "effect", tag: tag)
            }
        }
        return list
    }
}
