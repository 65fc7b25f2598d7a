import Foundation
public import KBText

/// The input manager for one focused field: its document, the current
/// keyboard's session (and a few warm ones), the globe key, the daemon's news,
/// and failover. Front ends — `kbhost attach`, the IBus engine, and `kbhost type`
/// (a field pinned to one keyboard: `Pin`) — feed it keys and draw or print what
/// it holds; none of this logic lives in them.
///
/// The document is the app's: a keyboard that fails takes nothing with it.
/// Its marked text is committed as plain text, the failure is recorded (a
/// keyboard that keeps failing is set aside), and the user lands on the
/// keyboard used before, or on the built-in system keyboard. Keyboards run apart
/// from the user's data (`Apart`: `kbhost stress` and `profile`) go through the same
/// life cycle, but nothing is recorded and the caller chooses each keyboard.
public final class InputManager {
    /// What a front end hears.
    public enum Event: Equatable, Sendable {
        /// The current keyboard changed: the globe key, `set`, the daemon's news, or a failover.
        case currentChanged(String)
        /// A keyboard failed; the user is now on `landedOn`.
        case keyboardFailed(id: String, reason: String, setAside: Bool, landedOn: String)
        /// The document changed by one edit (the keyboard's, or marked text committed for it):
        /// a front end whose app holds the text replays it there (see `ClientEdit`).
        case edited(TextEdit, before: TextBuffer, after: TextBuffer)
    }

    /// How a tap went.
    public enum TapOutcome: Equatable, Sendable {
        case tapped
        /// The current keyboard has no such key (nothing happened).
        case noSuchKey
        /// The keyboard failed on it (see `Event.keyboardFailed`).
        case failed
    }

    public let installation: Installation
    /// The user's settings; nil for keyboards apart (`Apart`), which read and write none.
    public let store: SettingsStore?
    public let registry: KeyboardRegistry
    /// The focused field: its traits decide which keyboards may serve it.
    public private(set) var field: FieldContext
    /// The memory budget every keyboard runs under.
    public let budget: Int
    /// The keyboard this manager's field is pinned to, if any (see `Pin`): the settings then
    /// choose nothing and are never written.
    public let pin: Pin?
    /// The keyboards this manager runs apart from the user's data, if it does (see `Apart`).
    public let apart: Apart?
    /// How keyboards are started: for a person at a field, or for a script.
    public let launching: Launching
    /// The deadline an action's keyboard calls share when a front end sets one
    /// (`actionDeadline.within(milliseconds:)`): every keyboard this manager starts keeps to it.
    public let actionDeadline = ActionDeadline()
    /// The last keyboard that failed, and why, in full (`Event.keyboardFailed` carries the first line).
    public var lastFailure: (id: String, reason: String)? { lastFailover.map { ($0.keyboardID, $0.reason) } }
    /// The last failover in full: the keyboard's `KeyboardFailure` and what it committed.
    public internal(set) var lastFailover: Failover?
    /// Events, on the caller's thread.
    public var onEvent: (Event) -> Void = { _ in }
    /// Called after this manager wrote a new current keyboard to the settings
    /// (the globe key): a front end tells a running daemon.
    public var onSettingsChanged: () -> Void = {}

    public internal(set) var currentID: String
    /// The keyboard used before the current one: where the user lands if the current one fails.
    public internal(set) var previousID: String?
    /// The device's orientation (`rotate()`).
    public private(set) var landscape = false

    let sessions: SessionPool
    /// The last keyboard that failed and where the user landed: it is not started
    /// again on the next focus, only when the user switches to it.
    var failedUntilSwitch: (failed: String, landed: String)?
    /// The document while the system keyboard serves it (a session holds it otherwise).
    var document: TextDocument
    /// Every extension process this manager started (`processesLeft`).
    public internal(set) var processIDs: Set<Int32> = []
    /// The largest footprint seen of each keyboard, in bytes (`notePeaks`).
    public internal(set) var peakFootprints: [String: Int] = [:]

    /// A manager for one field. With a `pin`, that keyboard serves the field instead of the
    /// settings' current one, and the settings are read but never written.
    public convenience init(installation: Installation, store: SettingsStore, registry: KeyboardRegistry, field: FieldContext,
                            text: String = "", budget: Int, warmKeyboards: Int = 3, pin: Pin? = nil,
                            launching: Launching = .person) throws(SettingsError) {
        let settings = try store.load()
        self.init(installation: installation, store: store, registry: registry, field: field, text: text, budget: budget,
                  warmKeyboards: warmKeyboards, pin: pin, apart: nil, launching: launching,
                  current: pin.map { $0.keyboard(for: field) } ?? InputModes.active(settings, registry: registry, field: field))
    }

    init(installation: Installation, store: SettingsStore?, registry: KeyboardRegistry, field: FieldContext, text: String,
         budget: Int, warmKeyboards: Int, pin: Pin?, apart: Apart?, launching: Launching, current: String) {
        self.installation = installation
        self.store = store
        self.registry = registry
        self.field = field
        self.budget = budget
        self.pin = pin
        self.apart = apart
        self.launching = launching
        sessions = SessionPool(limit: warmKeyboards)
        document = TextDocument(text: text, traits: field.traits)
        currentID = current
    }

    /// True while `activate` runs: an advance a keyboard asks for then is ignored (see `activate`).
    var switching = false

    /// Shows the current keyboard (call once, after setting `onEvent`).
    public func start() { activate(currentID) }

    /// The current keyboard's session; nil while the system keyboard serves the field.
    public var active: KeyboardSession? { sessions[currentID] }

    /// The field's document as it is now.
    public var currentDocument: TextDocument { active?.document ?? document }

    /// A keyboard's name to show: its display name, else its identifier.
    public func name(_ id: String) -> String { registry.entry(id)?.manifest.displayName ?? id }

    /// Shows a keyboard: its session (started, or a warm one reused), or the system keyboard.
    /// An advance a keyboard asks for while it disappears or appears here is ignored: it re-entered
    /// this before the switch ended, deeper each time (red team 5: one asking in viewWillDisappear ended
    /// attach and the IBus engine with a stack overflow, SIGSEGV).
    public func activate(_ id: String) {
        let outer = !switching
        switching = true
        defer { if outer { switching = false } }
        if let old = active {  // the document moves with the user (and is the live one when `id` is already current)
            if old.keyboard.identifier != id { try? old.disappear() }
            document = old.document
        }
        let changed = id != currentID
        if changed { previousID = currentID }
        currentID = id
        defer { if changed, currentID == id { onEvent(.currentChanged(id)) } }
        guard let entry = registry.entry(id), let loadable = entry.loadable else { return }
        do {
            let settings = try store?.load()  // nil for keyboards apart
            let session: KeyboardSession
            if let existing = sessions[id], existing.failure == nil {
                session = existing
                sessions.touch(id)
                let doc = document
                try session.editDocument { $0 = doc }
            } else {
                session = try launch(loadable, settings: settings ?? .fresh)
            }
            try session.appear()
        } catch {
            fellBack(from: id, because: "\(error)", failure: error as? KeyboardFailure)
        }
    }

    /// The globe key: the next enabled keyboard the field may use, written to the settings.
    /// A pinned field stays on its keyboard (the keyboard asked; nothing is switched or written).
    public func globe() throws {
        guard pin == nil, let store else { return }  // a pinned field, or keyboards apart: the caller chooses
        let restricted = registry.keyboards.allSatisfy { $0.isSystem || InputModes.ineligibility(of: $0, for: field) != nil }
        guard !restricted else {  // a password field: only the system keyboard, and the user's choice stays
            return activate(SystemKeyboard.identifier)
        }
        // The next keyboard shows first; the settings (written with fsync, 1–20 ms) follow.
        let next = InputModes.next(try store.load(), registry: registry, field: field)
        failedUntilSwitch = nil
        activate(next)
        _ = try store.update { $0.current = next }
        onSettingsChanged()
    }

    /// The daemon says the current keyboard is now `id` (changed elsewhere):
    /// follow it, unless this field may not use it (then the system keyboard).
    public func follow(current id: String) {
        guard pin == nil, apart == nil else { return }  // a pinned field, or keyboards apart, follow no settings
        let allowed = registry.entry(id).map { InputModes.ineligibility(of: $0, for: field) == nil } ?? false
        let target = allowed ? id : SystemKeyboard.identifier
        if target != currentID {
            failedUntilSwitch = nil
            activate(target)
        }
    }

    // MARK: Focus: a front end whose app has many fields (the IBus engine)

    /// A field took focus, with its traits and the app's text around the
    /// cursor: the keyboard this field may use appears (the current one, or the
    /// system keyboard for a password field) and reads the field's text.
    public func focus(_ field: FieldContext, text: TextBuffer = TextBuffer()) {
        self.field = field
        var next = TextDocument(traits: field.traits)
        next.buffer = text
        var target = pin?.keyboard(for: field) ?? apart.map { _ in currentID }
            ?? (try? store?.load()).map { InputModes.active($0, registry: registry, field: field) } ?? SystemKeyboard.identifier
        if let stay = failedUntilSwitch, stay.failed == target {
            let landed = registry.entry(stay.landed).map { InputModes.ineligibility(of: $0, for: field) == nil } ?? false
            target = landed ? stay.landed : SystemKeyboard.identifier
        }
        if let session = active, target == currentID {
            do {
                try session.editDocument { $0 = next }
                try session.appear()
            } catch {
                fellBack(from: currentID, because: error.description)
            }
        } else {
            document = next
            activate(target)
        }
    }

    /// The field lost focus: marked text is committed (as iOS does when the
    /// keyboard goes away) and the keyboard disappears; its process stays warm.
    public func blur() {
        commitMarkedText()
        guard let session = active else { return }
        do { try session.disappear() } catch { fellBack(from: currentID, because: error.description) }
    }

    /// The front end ends the current keyboard as failed (`reason` says why: it answers too slowly,
    /// say): recorded as any failure, the user lands where a failure lands them.
    public func endCurrentKeyboard(because reason: String) {
        guard active != nil else { return }
        fellBack(from: currentID, because: reason)
    }

    /// The app changed its text or moved the cursor (the user clicked, or
    /// another input reached it): the keyboard gets textDidChange or
    /// selectionDidChange. Nothing happens when the text is what it already has.
    public func appChanged(_ text: TextBuffer) {
        guard let session = active else { return document.buffer = text }
        guard session.document.buffer != text else { return }
        do { try session.editDocument { $0.buffer = text } } catch { fellBack(from: currentID, because: error.description) }
    }

    /// The app commits the marked text (a reset, a click elsewhere, focus
    /// leaving): it becomes plain text; the keyboard hears textDidChange.
    public func commitMarkedText() {
        guard let session = active, session.document.buffer.markedRange != nil else { return }
        let before = session.document.buffer
        do { try session.editDocument { $0.buffer.unmarkText() } } catch {
            return fellBack(from: currentID, because: error.description)
        }
        onEvent(.edited(.unmarkText, before: before, after: session.document.buffer))
    }

    /// The settings changed elsewhere (the daemon says so). A keyboard whose
    /// open access was granted or revoked, or that was disabled, does not go
    /// on as it was: its process is ended, and the current one starts again
    /// under the new grant. Sandboxes are fixed at launch, so a revocation
    /// reaches a running keyboard only this way.
    public func settingsChanged() {
        guard let settings = try? store?.load() else { return }
        var restart = false
        for session in sessions.all {
            let id = session.keyboard.identifier
            let granted = settings.fullAccess.contains(id) && session.keyboard.manifest.requestsOpenAccess
            let enabled = settings.enabled.contains(id) || id == pin?.keyboard
            guard session.hasFullAccess != granted || !enabled else { continue }
            if id == currentID {
                try? session.disappear()
                document = session.document
                restart = true
            }
            sessions.remove(id)?.close()
        }
        if restart {
            let id = currentID
            currentID = SystemKeyboard.identifier  // so that it starts anew, and is announced
            let stays = settings.enabled.contains(id) || id == pin?.keyboard
            activate(stays ? id : InputModes.active(settings, registry: registry, field: field))
        }
    }

    /// Taps the key with this label or role name (`delete`, `return`, `space`,
    /// `shift`, `globe`). A letter whose key shows the other case is typed
    /// through shift when it must be (`tapThroughShift`); `-`, `*`, `/` also
    /// reach `−`, `×`, `÷`. With `otherPages`, a character on another page is
    /// typed there (`tapOnAnotherPage`). The system keyboard types the character itself.
    @discardableResult
    public func tap(_ name: String, otherPages: Bool = false) -> TapOutcome {
        guard let session = active else {
            switch name {
            case "delete": document.buffer.deleteBackward()
            case "return": document.buffer.insertText("\n")
            case "space": document.buffer.insertText(" ")
            default: document.buffer.insertText(name)
            }
            return .tapped
        }
        if let key = session.layout.key(named: name) {  // the usual case: one lookup, the key tapped as it is
            do { try session.perform(.tap, on: key) } catch {
                fellBack(from: currentID, because: SessionError.keyboardFailed(error).description)
                return .failed
            }
            return .tapped
        }
        let target = session.layout.keyName(typed: name)
        do {
            if session.layout.key(named: target) == nil, let shown = Self.otherCase(of: target),
               session.layout.key(named: shown) != nil, session.layout.key(named: "shift") != nil {
                return try tapThroughShift(target, shown: shown, on: session)
            }
            if otherPages, session.layout.key(named: target) == nil {
                return try tapOnAnotherPage(target, on: session) ? .tapped : .noSuchKey
            }
            try session.tap(target)
            return .tapped
        } catch {
            if case .noSuchKey = error { return .noSuchKey }
            fellBack(from: currentID, because: error.description)
            return .failed
        }
    }

    /// A one-letter name in the other case: `h` for `H`, `I` for `i`; nil for anything else.
    static func otherCase(of name: String) -> String? {
        guard name.count == 1 else { return nil }
        if name != name.lowercased() { return name.lowercased() }
        if name != name.uppercased() { return name.uppercased() }
        return nil
    }

    /// A letter whose key shows the other case (`H` on a key labelled `h`; `i` while a latched
    /// shift shows `I`): which case it types depends on a shift state the layout may not show.
    /// The key is tapped as it is first, so a keyboard that capitalizes by itself (English at a
    /// sentence's start) types the capital, and shift is not tapped off. If it inserted the other
    /// case, that letter is deleted, shift tapped, and the letter tapped with the label it has
    /// now (labels that change with shift, as Science's, show the wanted case). A miss taps shift
    /// back, so it never leaves shift latched.
    private func tapThroughShift(_ target: String, shown: String, on session: KeyboardSession) throws(SessionError) -> TapOutcome {
        let before = String(session.document.buffer.textBeforeSelection)
        try session.tap(shown)
        let after = session.document.buffer.textBeforeSelection
        // Only a plain insertion of the other case is taken back (not a composition or a correction).
        guard after == before + shown else { return .tapped }
        try session.tap("delete")
        try session.tap("shift")
        if session.layout.key(named: target) != nil { try session.tap(target) } else if
            session.layout.key(named: shown) != nil { try session.tap(shown) } else {
            try session.tap("shift")
            return .noSuchKey
        }
        return .tapped
    }

    /// One auto-repeat of the held key with this label or role name (see
    /// `tap`): a repeating key gets a repeat event; others nothing.
    @discardableResult
    public func repeatKey(_ name: String, count: Int) -> TapOutcome {
        guard let session = active else { return tap(name) }
        guard let key = session.layout.key(named: name) else { return .noSuchKey }
        do { try session.repeatKey(key, count: count) } catch {
            fellBack(from: currentID, because: error.description)
            return .failed
        }
        return .tapped
    }

    /// Moves the insertion point (the keyboard gets its selection callbacks).
    public func moveCursor(by characters: Int) {
        guard let session = active else { return document.buffer.moveInsertionPoint(byCharacters: characters) }
        do { try session.editDocument { $0.buffer.moveInsertionPoint(byCharacters: characters) } } catch {
            fellBack(from: currentID, because: "\(error)")
        }
    }

    /// Turns the device: the keyboard hears its new size (viewWillTransition).
    public func rotate() {
        landscape.toggle()
        let size = landscape ? TapStep.landscape : TapStep.portrait
        guard let session = active else { return }
        do { try session.transition(toWidth: size.width, height: size.height) } catch {
            fellBack(from: currentID, because: error.description)
        }
    }

    /// Ends every keyboard's session (their peak footprints noted first).
    public func close() {
        notePeaks()
        sessions.closeAll()
    }
}
