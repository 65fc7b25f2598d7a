import KBText
import KBWire

/// A keyboard that can be loaded: its manifest and its plugin library.
public struct LoadableKeyboard: Hashable, Sendable {
    public var manifest: KeyboardManifest
    public var libraryPath: String

    public init(manifest: KeyboardManifest, libraryPath: String) {
        self.manifest = manifest
        self.libraryPath = libraryPath
    }

    public var identifier: String { manifest.bundleIdentifier }
}

/// Something the session saw the keyboard do, or did to it.
public struct SessionEvent: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var detail: String?

    public init(_ name: String, _ detail: String? = nil) {
        self.name = name
        self.detail = detail
    }

    public var description: String { detail.map { "\(name): \($0)" } ?? name }
}

public enum SessionError: Error, Hashable, Sendable, CustomStringConvertible {
    case keyboardFailed(KeyboardFailure)
    case noSuchKey(name: String, keyboardID: String, labels: [String])

    public var description: String {
        switch self {
        case .keyboardFailed(let f): f.description
        case .noSuchKey(let name, let id, let labels):
            TerminalText.line("keyboard \(id) has no key '\(name)'; its keys are: \(labels.joined(separator: " "))")
        }
    }
}

/// One keyboard loaded into its own extension process, typing into a
/// document the host owns. Drives the life cycle exactly as UIKit does.
public final class KeyboardSession {
    public let keyboard: LoadableKeyboard
    public private(set) var document: TextDocument
    public private(set) var layout = KeyboardLayout()
    public private(set) var events: [SessionEvent] = []
    public private(set) var isVisible = false
    /// Set once the keyboard has failed; the session is then closed.
    public private(set) var failure: KeyboardFailure?
    /// The session's clock (nanoseconds): virtual, advanced by gestures and pauses.
    public private(set) var clockNanoseconds: Int64 = 0
    /// Called when the keyboard asks for the next input mode (the globe key).
    public var onAdvanceToNextInputMode: (() -> Void)?
    /// Called when the keyboard asks to be dismissed.
    public var onDismiss: (() -> Void)?

    private let process: ExtensionProcess
    private var facts: ControllerFacts
    private var factsChanged = false
    /// The host's pasteboard (nil without KBHOST_HOME), and the state of its file the keyboard last saw.
    private let pasteboard: Pasteboard?
    private var pasteboardStamp: [Int] = []
    /// The window last sent to the worker, kept only until it is sent.
    private var mirror = DocumentWindow()
    /// Where the worker's window starts in the document, and how long it is now.
    private var mirrorStart = 0
    private var mirrorLength = 0
    /// How much of the document lies after the window when it was cut; the
    /// keyboard's edits happen inside the window, so this stays put while the mirror is faithful.
    private var mirrorTail = 0
    private var windowStale = false
    /// A freshly cut window the worker has not been sent yet.
    private var pendingWindow = false
    private var sequence: UInt64 = 0
    private let windowLimit: Int

    /// The extension process's pid (a different process from the host).
    public var pid: Int32 { process.pid }
    /// The largest footprint the governor has seen (nil when not under a budget).
    public var peakFootprint: Int? { process.peakFootprint }

    /// The keyboard's stdout/stderr so far (its log).
    public var logText: String { process.outputText }

    /// Launches the extension process, loads the plugin, creates its principal
    /// class and calls viewDidLoad.
    public init(keyboard: LoadableKeyboard, document: TextDocument = TextDocument(),
                configuration: ExtensionProcess.Configuration, needsInputModeSwitchKey: Bool = true,
                hasFullAccess: Bool = false, inputModes: [String]? = nil,
                windowLimit: Int = DocumentWindow.defaultLimit, access: KeyboardAccess = KeyboardAccess()) throws(KeyboardFailure) {
        self.keyboard = keyboard
        self.document = document
        self.windowLimit = windowLimit
        let fullAccess = hasFullAccess && keyboard.manifest.requestsOpenAccess
        facts = ControllerFacts(needsInputModeSwitchKey: needsInputModeSwitchKey, hasFullAccess: fullAccess,
                                primaryLanguage: keyboard.manifest.primaryLanguage,
                                documentIdentifier: document.identifier, traits: document.traits,
                                inputModes: inputModes ?? [keyboard.identifier], lexicon: access.lexicon)
        pasteboard = access.pasteboard
        let sandbox: SandboxSpec
        do { sandbox = try access.sandbox(for: keyboard, openAccess: fullAccess) } catch {
            throw KeyboardFailure(keyboardID: keyboard.identifier, phase: "launch",
                                  reason: .spawnFailed("cannot prepare its containers: \(error)"))
        }
        var configuration = configuration
        configuration.isolate = configuration.isolate && access.sandboxed
        configuration.privateNetwork = configuration.isolate && !fullAccess
        process = try ExtensionProcess.launch(keyboardID: keyboard.identifier, configuration: configuration)
        cutWindow()
        refreshPasteboard()
        let request = LoadRequest(pluginPath: keyboard.libraryPath, className: keyboard.manifest.principalClass,
                                  facts: facts, window: mirror, sandbox: sandbox)
        let reply: WorkerMessage
        do {
            reply = try process.request(.load(request), phase: "load",
                                        deadlineMilliseconds: configuration.launchDeadlineMilliseconds)
        } catch {
            throw fail(error)
        }
        guard case .loaded(let loaded) = reply else {
            throw fail(violation("answered load with something other than loaded", phase: "load"))
        }
        try apply(loaded.effects)
        try deliver(.lifecycle(.viewDidLoad, animated: false), phase: "viewDidLoad")
    }

    deinit { process.shutdown() }

    // MARK: Life cycle

    /// viewWillAppear → viewDidAppear.
    public func appear(animated: Bool = false) throws(KeyboardFailure) {
        guard !isVisible else { return }
        try deliver(.lifecycle(.viewWillAppear, animated: animated), phase: "viewWillAppear")
        try deliver(.lifecycle(.viewDidAppear, animated: animated), phase: "viewDidAppear")
        isVisible = true
    }

    /// viewWillDisappear → viewDidDisappear. The process stays (as on iOS).
    public func disappear(animated: Bool = false) throws(KeyboardFailure) {
        guard isVisible else { return }
        try deliver(.lifecycle(.viewWillDisappear, animated: animated), phase: "viewWillDisappear")
        try deliver(.lifecycle(.viewDidDisappear, animated: animated), phase: "viewDidDisappear")
        isVisible = false
    }

    /// The keyboard's size changes (rotation).
    public func transition(toWidth width: Double, height: Double) throws(KeyboardFailure) {
        try deliver(.transition(width: width, height: height), phase: "viewWillTransition")
    }

    /// Ends the extension process.
    public func close() { process.shutdown() }

    /// Updates what the controller reports (needsInputModeSwitchKey, full access, input modes).
    public func updateFacts(needsInputModeSwitchKey: Bool? = nil, hasFullAccess: Bool? = nil, inputModes: [String]? = nil) {
        if let v = needsInputModeSwitchKey { facts.needsInputModeSwitchKey = v }
        if let v = hasFullAccess { facts.hasFullAccess = v && keyboard.manifest.requestsOpenAccess }
        if let v = inputModes { facts.inputModes = v }
        factsChanged = true
    }

    // MARK: Keys

    /// Taps a key by name (see `KeyboardLayout.key(named:)`).
    public func tap(_ name: String) throws(SessionError) {
        try perform(.tap, on: name)
    }

    public func perform(_ gesture: Gesture, on name: String) throws(SessionError) {
        guard let key = layout.key(named: name) else {
            throw .noSuchKey(name: name, keyboardID: keyboard.identifier, labels: Array(layout.labels.joined()))
        }
        do { try perform(gesture, on: key) } catch { throw .keyboardFailed(error) }
    }

    /// Delivers the UIControl events of a gesture (see `Gesture.steps`); events
    /// the key has no action for are not sent.
    public func perform(_ gesture: Gesture, on key: KeyboardLayout.Key) throws(KeyboardFailure) {
        let start = clockNanoseconds
        let plan = gesture.steps(repeats: key.repeats, hasLongPress: key.longPressAction != nil)
        for step in plan.steps {
            clockNanoseconds = start + step.atNanoseconds
            guard key.action(for: step.kind) != nil else { continue }
            let event = KeyEvent(kind: step.kind, tapCount: step.tapCount, repeatCount: step.repeatCount,
                                 timestampNanoseconds: clockNanoseconds)
            try deliver(.key(row: Int32(key.row), column: Int32(key.column), event: event), phase: "key '\(key.label)'")
        }
        clockNanoseconds = start + plan.duration
    }

    /// Taps several keys with their requests pipelined: one write for all, the
    /// replies applied in order as they come. Much faster than one tap at a
    /// time; meant for keys that do not change the layout (the worker resolves
    /// each tap against its layout at that moment). `acknowledged` counts the
    /// keys whose every event was answered, also when a failure cuts the batch short.
    public func tapAll(_ keys: [KeyboardLayout.Key], acknowledged: inout Int) throws(KeyboardFailure) {
        if let failure { throw failure }
        var messages: [HostMessage] = []
        var lastMessageOfKey: [Int] = []
        for key in keys {
            let start = clockNanoseconds
            let plan = Gesture.tap.steps(repeats: key.repeats, hasLongPress: key.longPressAction != nil)
            for step in plan.steps where key.action(for: step.kind) != nil {
                let event = KeyEvent(kind: step.kind, tapCount: step.tapCount, repeatCount: step.repeatCount,
                                     timestampNanoseconds: start + step.atNanoseconds)
                messages.append(.deliver(nextDelivery(.key(row: Int32(key.row), column: Int32(key.column), event: event))))
            }
            clockNanoseconds = start + plan.duration
            lastMessageOfKey.append(messages.count - 1)
        }
        let first = sequence - UInt64(messages.count) + 1
        var keyIndex = 0
        do {
            try process.requestAll(messages, phase: "key '\(keys[min(keyIndex, keys.count - 1)].label)'") { (i, reply) throws(KeyboardFailure) in
                guard case .done(let seq, let effects) = reply, seq == first + UInt64(i) else {
                    throw violation("answered call \(first + UInt64(i)) out of turn", phase: "key batch")
                }
                try apply(effects)
                while keyIndex < lastMessageOfKey.count && lastMessageOfKey[keyIndex] <= i {
                    keyIndex += 1
                    acknowledged += 1
                }
            }
        } catch {
            throw fail(error)
        }
    }

    /// Lets time pass on the session's clock.
    public func pause(milliseconds: Int) {
        clockNanoseconds += Int64(milliseconds) * 1_000_000
    }

    // MARK: Changes from outside the keyboard

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
        windowStale = true
        try deliver(.textInput(did), phase: did.selector.dropLast().description)
    }

    // MARK: Delivery

    private func deliver(_ call: Call, phase: @autoclosure () -> String) throws(KeyboardFailure) {
        if let failure { throw failure }
        let delivery = nextDelivery(call)
        record(call)
        let reply: WorkerMessage
        do { reply = try process.request(.deliver(delivery), phase: phase()) } catch { throw fail(error) }
        guard case .done(let seq, let effects) = reply, seq == sequence else {
            throw fail(violation("answered call \(sequence) out of turn", phase: phase()))
        }
        try apply(effects)
    }

    /// The next delivery of a call: numbered, carrying the facts and a fresh
    /// window only when they changed since the worker last heard.
    private func nextDelivery(_ call: Call) -> Delivery {
        sequence += 1
        if windowStale { cutWindow() }
        refreshPasteboard()
        defer {
            pendingWindow = false
            factsChanged = false
        }
        return Delivery(sequence: sequence, facts: factsChanged ? facts : nil, window: pendingWindow ? mirror : nil, call: call)
    }

    /// A keyboard with full access sees the pasteboard as it is now: when its
    /// file changed (`kbhost pasteboard write`, another session), the next
    /// delivery carries it. One stat per call, for those keyboards only.
    private func refreshPasteboard() {
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

    /// Cuts a fresh window from the document; the next delivery carries it.
    private func cutWindow() {
        let cut = DocumentWindow.cut(from: document.buffer, limit: windowLimit)
        mirror = cut.window
        mirrorStart = cut.start
        mirrorLength = cut.window.buffer.utf16Count
        mirrorTail = document.buffer.utf16Count - cut.start - cut.window.buffer.utf16Count
        windowStale = false
        pendingWindow = true
    }

    private func apply(_ effects: [Effect]) throws(KeyboardFailure) {
        var advance = false, dismiss = false
        for effect in effects {
            switch effect {
            case .edit(let edit):
                let before = document.buffer.utf16Count
                edit.apply(to: &document.buffer)
                mirrorLength += document.buffer.utf16Count - before
            case .setLayout(let wire):
                layout = KeyboardLayout(wire)
            case .setDisplay(let text):
                layout.display = text
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
            case .playSound(let name):
                guard facts.hasFullAccess else {
                    throw fail(violation("played a sound without open access", phase: "playSound"))
                }
                events.append(SessionEvent("playSound", name))
            }
        }
        if !mirrorMatchesDocument() { windowStale = true }
        if advance { onAdvanceToNextInputMode?() }
        if dismiss { onDismiss?() }
    }

    /// Whether the worker's window is still a faithful view of the document.
    /// Both sides apply the same edits with the same code, so they can only part
    /// where an edit reached past the window's edge (deleting before its start,
    /// moving beyond it), and that always leaves the selection or the marked
    /// text outside the window as the host counts it. The window is also recut
    /// when the insertion point nears an edge with more text beyond, or it grows
    /// too long. No text is compared: this is on every key's path.
    private func mirrorMatchesDocument() -> Bool {
        let doc = document.buffer
        let end = mirrorStart + mirrorLength
        func inside(_ r: UTF16Range) -> Bool { r.location >= mirrorStart && r.end <= end }
        return mirrorLength >= 0 && doc.utf16Count - end == mirrorTail
            && inside(doc.selection) && (doc.markedRange.map(inside) ?? true)
            && !(mirrorStart > 0 && doc.selection.location - mirrorStart < windowLimit / 4)
            && !(mirrorTail > 0 && end - doc.selection.end < windowLimit / 4)
            && mirrorLength <= 4 * windowLimit
    }

    private func record(_ call: Call) {
        switch call {
        case .lifecycle(let step, _): events.append(SessionEvent(String(step.selector.split(separator: ":").first!)))
        case .textInput(let t): events.append(SessionEvent(String(t.selector.dropLast())))
        case .transition(let w, let h): events.append(SessionEvent("viewWillTransition", "\(w)x\(h)"))
        case .memoryWarning: events.append(SessionEvent("didReceiveMemoryWarning"))
        case .key: break
        }
    }

    private func violation(_ what: String, phase: String) -> KeyboardFailure {
        process.kill()
        return KeyboardFailure(keyboardID: keyboard.identifier, phase: phase, reason: .protocolViolation(what),
                               stderrTail: process.outputText)
    }

    /// Records the failure; what the keyboard committed stays, its marked text is committed as plain text.
    private func fail(_ error: KeyboardFailure) -> KeyboardFailure {
        failure = failure ?? error
        process.kill()
        document.buffer.commitMarkedText()
        isVisible = false
        events.append(SessionEvent("failed", error.reasonDescription))
        return error
    }
}
