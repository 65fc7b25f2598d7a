public import KBText
package import KBWire
import KBSystem

/// One keyboard loaded into its own extension process, typing into a
/// document the host owns. Drives the life cycle exactly as UIKit does.
public final class KeyboardSession {
    public let keyboard: LoadableKeyboard
    public internal(set) var document: TextDocument
    public internal(set) var layout = KeyboardLayout()
    /// Counts changes to `layout` (a new layout or display line): a front end redraws only when it moved.
    public internal(set) var layoutVersion = 0
    public internal(set) var events: [SessionEvent] = [] {
        didSet {  // a long-lived front end keeps the last `eventLimit` (amortized: trimmed at twice that)
            if let limit = eventLimit, events.count > 2 * limit { events.removeFirst(events.count - limit) }
            // … and no more than `eventDetailLimit` bytes of each (a script, `scriptEventDetailLimit`): a
            // keyboard that logs megabytes a key would otherwise grow the front end by the event count
            // times that (a script of 100 taps held 1.43 GB: eighteenth red team).
            let detailLimit = eventLimit == nil ? Self.scriptEventDetailLimit : Self.eventDetailLimit
            if let last = events.last, let detail = last.detail, detail.utf8.count > detailLimit {
                events[events.count - 1].detail = SessionEvent.cut(detail, to: detailLimit)
            }
        }
    }
    /// Keep only this many recent events, each detail cut to `eventDetailLimit` bytes (nil: all, each
    /// cut to `scriptEventDetailLimit`, as `kbhost type --json` reports them).
    public var eventLimit: Int?
    /// With `eventLimit`: the bytes of one event's detail (a log line, the pasteboard) that are kept.
    public static let eventDetailLimit = 4096
    /// Without: the bytes of one event's detail that a script's report keeps.
    public static let scriptEventDetailLimit = 64 * 1024
    /// Whether `events` also records the keyboard's edits through its proxy ("insertText: a",
    /// "deleteBackward", "adjustTextPosition: -1", "setMarkedText: か {1, 0}", "unmarkText"),
    /// where they fall among the other events. Consecutive insertions of one call arrive as one.
    public var recordsProxyCalls = false
    /// The keyboard's orientation, as the last transition left it: the layout's space, in which
    /// a drag's points are (`KeyboardPicture` in this orientation).
    public internal(set) var orientation = KeyboardPicture.Orientation.portrait
    /// How many controllers have been created in this process: 1, and one more per `represent`.
    public internal(set) var presentations = 1
    /// Where the session is in its life: UIKit's view life cycle, then its end.
    public enum Phase: Hashable, Sendable {
        /// Loaded (viewDidLoad called) and not shown: before `appear`, after `disappear`.
        case hidden
        /// Shown: from viewDidAppear to viewWillDisappear.
        case visible
        /// The keyboard failed (`failure` says how); the session is over.
        case failed
        /// `close` ended the keyboard's process.
        case closed
    }
    public private(set) var phase = Phase.hidden
    public var isVisible: Bool { phase == .visible }
    /// Set once the keyboard has failed; the session is then closed.
    public private(set) var failure: KeyboardFailure?
    /// Memory warnings delivered so far (the governor counts the ones due).
    var memoryWarningsDelivered = 0
    /// The session's clock (nanoseconds): virtual, advanced by gestures and pauses.
    public internal(set) var clockNanoseconds: Int64 = 0
    /// Called when the keyboard asks for the next input mode (the globe key).
    public var onAdvanceToNextInputMode: (() -> Void)?
    /// Called when the keyboard asks to be dismissed.
    public var onDismiss: (() -> Void)?
    /// Each edit the keyboard made, as it is applied, with the buffer before it
    /// (`document` is after it): a front end whose app holds the text mirrors it.
    public var onEdit: ((TextEdit, _ before: TextBuffer) -> Void)?


    /// The keyboard's end: its extension process, or the testing kit's runtime in process.
    let process: any KeyboardChannel
    var facts: ControllerFacts
    /// Whether the keyboard runs with open access (requested and granted when it started).
    public var hasFullAccess: Bool { facts.hasFullAccess }
    var factsChanged = false
    /// The host's pasteboard, kept in step for a keyboard with full access.
    var pasteboard: PasteboardSync
    /// What the keyboard may reach (sent again with a new presentation's load).
    let sandbox: SandboxSpec
    /// The window of the document the worker holds (see `DocumentMirror`).
    var mirror: DocumentMirror
    var sequence: UInt64 = 0
    /// The kind of spare to prepare once this keyboard has appeared (or closed
    /// first): a spare starting during the load and the first appearance takes the
    /// CPU from them (a load taking a spare: 1.1× the spawn+dlopen floor, 2.4×
    /// with the next spare starting meanwhile, two cores).
    var spareToPrepare: ExtensionProcess.Configuration?

    /// The extension process's pid (a different process from the host).
    public var pid: Int32 { process.pid }
    /// The largest footprint the governor has seen (nil when not under a budget).
    public var peakFootprint: Int? { process.peakFootprint }

    /// The keyboard's stdout/stderr so far (its log).
    public var logText: String { process.outputText }

    /// Launches the extension process, loads the plugin, creates its principal
    /// class and calls viewDidLoad.
    public convenience init(keyboard: LoadableKeyboard, document: TextDocument = TextDocument(),
                            configuration: ExtensionProcess.Configuration, needsInputModeSwitchKey: Bool = true,
                            hasFullAccess: Bool = false, inputModes: [String]? = nil,
                            windowLimit: Int = DocumentWindow.defaultLimit, access: KeyboardAccess = KeyboardAccess()) throws(KeyboardFailure) {
        // Its library by its real path: only the real folders are in its sandbox (`KeyboardAccess.sandbox(for:)`).
        var keyboard = keyboard
        if let real = Sys.realPath(keyboard.libraryPath) { keyboard.libraryPath = real }
        let fullAccess = hasFullAccess && keyboard.manifest.requestsOpenAccess
        let facts = ControllerFacts(needsInputModeSwitchKey: needsInputModeSwitchKey, hasFullAccess: fullAccess,
                                    primaryLanguage: keyboard.manifest.primaryLanguage,
                                    documentIdentifier: document.identifier, traits: document.traits,
                                    inputModes: inputModes ?? [keyboard.identifier], lexicon: access.lexicon.map(\.wire))
        let sandbox: SandboxSpec
        do {
            sandbox = try access.sandbox(for: keyboard, openAccess: fullAccess,
                                         products: configuration.workerPath.split(separator: "/", omittingEmptySubsequences: false)
                                            .dropLast().joined(separator: "/"))
        } catch {
            throw KeyboardFailure(keyboardID: keyboard.identifier, phase: "launch",
                                  reason: .spawnFailed("cannot prepare its containers: \(error)"))
        }
        var configuration = configuration
        configuration.isolate = configuration.isolate && access.sandboxed
        // With open access, a network of its own through a relay (every socket it makes is then one
        // the governor can find). Where none can run, the host's network only if the user allowed
        // it for this keyboard, as for any protection the machine lacks: there the kernel keeps
        // memory for it that no count can tell from another program's (orphans, sockets hidden
        // behind a blocked read, datagrams waiting for neighbours), and the neighbour table it can
        // fill is the whole machine's (twelfth red team, N1).
        configuration.userNetwork = configuration.isolate && fullAccess && UserNetwork.available
        let userNetwork = SandboxSpec.Mechanism.userNetwork.rawValue
        if configuration.isolate && fullAccess && !UserNetwork.available && !sandbox.allowMissing.contains(userNetwork) {
            throw KeyboardFailure(keyboardID: keyboard.identifier, phase: "launch", reason: .loadFailed(.sandbox,
                "this machine cannot give a keyboard with open access a network of its own (\(UserNetwork.missingReason ?? "")), "
                + "which kbhost's sandbox needs (protection '\(userNetwork)'); the keyboard was not started. To run it in your "
                + "own network without that protection: kbhost protection \(keyboard.identifier) allow \(userNetwork)"))
        }
        configuration.privateNetwork = configuration.isolate && (!fullAccess || configuration.userNetwork)
        let process = try ExtensionProcess.launch(keyboardID: keyboard.identifier, configuration: configuration)
        do {
            try self.init(keyboard: keyboard, document: document, channel: process, facts: facts, sandbox: sandbox,
                          pasteboard: access.pasteboard, windowLimit: windowLimit,
                          loadDeadlineMilliseconds: configuration.launchDeadlineMilliseconds)
        } catch {
            if configuration.keepSpare { SpareProcesses.shared.prepare(like: configuration) }
            throw error
        }
        if configuration.keepSpare { spareToPrepare = configuration }
    }

    /// Loads the keyboard through a channel already open (the extension
    /// process, or the testing kit's runtime in process), creates its principal
    /// class and calls viewDidLoad. `facts` are what the controller reports at first.
    package init(keyboard: LoadableKeyboard, document: TextDocument, channel: any KeyboardChannel,
                 facts: ControllerFacts, sandbox: SandboxSpec, pasteboard: Pasteboard?,
                 windowLimit: Int = DocumentWindow.defaultLimit, loadDeadlineMilliseconds: Int? = nil) throws(KeyboardFailure) {
        self.keyboard = keyboard
        self.document = document
        self.facts = facts
        self.pasteboard = PasteboardSync(file: pasteboard)
        self.sandbox = sandbox
        process = channel
        mirror = DocumentMirror(limit: windowLimit)
        mirror.cut(from: document.buffer)
        refreshPasteboard()
        let request = LoadRequest(pluginPath: keyboard.libraryPath, className: keyboard.manifest.principalClass,
                                  facts: self.facts, window: mirror.window, sandbox: sandbox)
        let reply: WorkerMessage
        do {
            reply = try process.request(.load(request), phase: "load", deadlineMilliseconds: loadDeadlineMilliseconds)
        } catch {
            throw fail(error)
        }
        guard case .loaded(let loaded) = reply else {
            throw fail(violation("answered load with something other than loaded", phase: "load"))
        }
        // Its folders on a tmpfs, and with open access its sockets' queues, hold memory: the
        // governor counts them into its footprint.
        Governor.shared.countHeld(of: process.pid, folders: [sandbox.containerPath] + (sandbox.openAccess ? sandbox.groups.map(\.path) : []),
                                  sockets: sandbox.openAccess)
        try apply(loaded.effects, phase: "load")
        try deliver(.lifecycle(.viewDidLoad, animated: false), phase: "viewDidLoad")
    }

    deinit { process.shutdown() }

    // MARK: Life cycle

    /// viewWillAppear → viewDidAppear.
    public func appear(animated: Bool = false) throws(KeyboardFailure) {
        guard phase != .visible else { return }
        try deliver(.lifecycle(.viewWillAppear, animated: animated), phase: "viewWillAppear")
        try deliver(.lifecycle(.viewDidAppear, animated: animated), phase: "viewDidAppear")
        phase = .visible
        prepareSpare()
    }

    private func prepareSpare() {
        guard let configuration = spareToPrepare else { return }
        spareToPrepare = nil
        SpareProcesses.shared.prepare(like: configuration)
    }

    /// viewWillDisappear → viewDidDisappear. The process stays (as on iOS).
    public func disappear(animated: Bool = false) throws(KeyboardFailure) {
        guard phase == .visible else { return }
        try deliver(.lifecycle(.viewWillDisappear, animated: animated), phase: "viewWillDisappear")
        try deliver(.lifecycle(.viewDidDisappear, animated: animated), phase: "viewDidDisappear")
        phase = .hidden
    }

    /// The keyboard's size changes (rotation).
    public func transition(toWidth width: Double, height: Double) throws(KeyboardFailure) {
        try deliver(.transition(width: width, height: height), phase: "viewWillTransition")
        orientation = width > height ? .landscape : .portrait
    }

    /// Ends the extension process.
    public func close() {
        prepareSpare()
        process.shutdown()
        if phase != .failed { phase = .closed }
    }

    /// Updates what the controller reports (needsInputModeSwitchKey, full access, input modes).
    public func updateFacts(needsInputModeSwitchKey: Bool? = nil, hasFullAccess: Bool? = nil, inputModes: [String]? = nil) {
        if let v = needsInputModeSwitchKey { facts.needsInputModeSwitchKey = v }
        if let v = hasFullAccess { facts.hasFullAccess = v && keyboard.manifest.requestsOpenAccess }
        if let v = inputModes { facts.inputModes = v }
        factsChanged = true
    }

    // MARK: Delivery

    func deliver(_ call: Call, phase: @autoclosure () -> String) throws(KeyboardFailure) {
        if let failure { throw failure }
        if case .memoryWarning = call {} else if process.memoryWarnings > memoryWarningsDelivered {
            // Past the warning line since the last call: the keyboard hears it first, as on iOS.
            memoryWarningsDelivered = process.memoryWarnings
            try deliver(.memoryWarning, phase: "didReceiveMemoryWarning")
        }
        let delivery = nextDelivery(call)
        record(call)
        let reply: WorkerMessage
        do { reply = try process.request(.deliver(delivery), phase: phase(), deadlineMilliseconds: nil) } catch { throw fail(error) }
        guard case .done(let seq, let effects) = reply, seq == sequence else {
            throw fail(violation("answered call \(sequence) out of turn", phase: phase()))
        }
        try apply(effects, phase: phase())
    }

    /// The next delivery of a call: numbered, carrying the facts and a fresh
    /// window only when they changed since the worker last heard.
    func nextDelivery(_ call: Call) -> Delivery {
        sequence += 1
        if mirror.isStale { mirror.cut(from: document.buffer) }
        refreshPasteboard()
        defer {
            mirror.isPending = false
            factsChanged = false
        }
        return Delivery(sequence: sequence, facts: factsChanged ? facts : nil, window: mirror.isPending ? mirror.window : nil, call: call)
    }

    func record(_ call: Call) {
        switch call {
        case .lifecycle(let step, _): events.append(SessionEvent(String(step.selector.split(separator: ":").first!)))
        case .textInput(let t): events.append(SessionEvent(String(t.selector.dropLast())))
        case .transition(let w, let h): events.append(SessionEvent("viewWillTransition", "\(w)x\(h)"))
        case .memoryWarning: events.append(SessionEvent("didReceiveMemoryWarning"))
        case .key, .alternate, .drag: break
        }
    }

    func violation(_ what: String, phase: String) -> KeyboardFailure {
        process.kill()
        return KeyboardFailure(keyboardID: keyboard.identifier, phase: phase, reason: .protocolViolation(what),
                               stderrTail: process.outputText)
    }

    /// Records the failure; what the keyboard committed stays, its marked text is committed as plain text.
    func fail(_ error: KeyboardFailure) -> KeyboardFailure {
        failure = failure ?? error
        process.kill()
        if document.buffer.markedRange != nil {  // the app keeps the marked text, as plain text
            let before = document.buffer
            document.buffer.commitMarkedText()
            onEdit?(.unmarkText, before)
        }
        phase = .failed
        events.append(SessionEvent("failed", error.reasonDescription))
        return error
    }
}
