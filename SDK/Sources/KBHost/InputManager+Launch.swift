import KBCore

// How the manager starts a keyboard: one place for every front end, the user's keyboards
// (their grants, containers, replacements) and keyboards apart (none of those) alike.
extension InputManager {
    /// How the manager starts a keyboard's process.
    public struct Launching: Hashable, Sendable {
        /// Keep a spare extension process prepared, so that a switch costs only a load.
        public var keepsSpare: Bool
        /// The least time (ms) a keyboard gets to start; nil: the installation's deadline.
        public var leastLaunchDeadlineMilliseconds: Int?
        /// The recent events a session keeps, each detail cut (nil: every one, whole).
        public var eventLimit: Int?
        /// The time (ms) a keyboard gets to answer each event; nil: the installation's deadline.
        public var eventDeadlineMilliseconds: Int?
        /// The keyboard's process yields its CPU after each reply (`ExtensionProcess.Configuration.handsOffAfterReply`).
        public var handsOffAfterReply: Bool
        /// How long the host polls for each reply before it sleeps (`ExtensionProcess.Configuration.pollForReplyMicroseconds`).
        public var pollForReplyMicroseconds = 0

        /// A way of starting keyboards; `person` and `script` are the usual two (`kbhost stress`
        /// keeps a spare and sets its own event deadline).
        public init(keepsSpare: Bool, leastLaunchDeadlineMilliseconds: Int?, eventLimit: Int?,
                    eventDeadlineMilliseconds: Int? = nil, handsOffAfterReply: Bool = false) {
            self.keepsSpare = keepsSpare
            self.handsOffAfterReply = handsOffAfterReply
            self.leastLaunchDeadlineMilliseconds = leastLaunchDeadlineMilliseconds
            self.eventLimit = eventLimit
            self.eventDeadlineMilliseconds = eventDeadlineMilliseconds
        }

        /// A person at a field that may live for days (`attach`, the IBus engine): a spare kept,
        /// since keyboards switch; as Android rebinds an input method within 3 s, 3 s to start
        /// (a loaded machine needs it); the last 1,000 events (a front end reads no history); the
        /// keyboard's process hands its CPU on after each reply, for the key's latency.
        /// The host polls for each reply for up to 0.2 ms (a key's reply takes tens of µs) before
        /// it sleeps on the channel: across CPUs that spares its wake-up on every key.
        public static let person: Launching = {
            var person = Launching(keepsSpare: true, leastLaunchDeadlineMilliseconds: 3000, eventLimit: 1000, handsOffAfterReply: true)
            person.pollForReplyMicroseconds = 200
            return person
        }()
        /// A script that ends (`kbhost type`): no spare, the installation's deadline, and every
        /// event kept whole for the report.
        public static let script = Launching(keepsSpare: false, leastLaunchDeadlineMilliseconds: nil, eventLimit: nil)
    }

    /// Starts a keyboard's session on the field's document, under the budget, with what the
    /// user's `settings` grant it (keyboards apart: nothing), and puts it in the pool (the
    /// pool's keyboards' peaks noted first: the least recently used may end).
    func launch(_ loadable: LoadableKeyboard, settings: KeyboardSettings) throws -> KeyboardSession {
        try actionDeadline.excluding { () throws -> KeyboardSession in try start(loadable, settings: settings) }
    }

    private func start(_ loadable: LoadableKeyboard, settings: KeyboardSettings) throws -> KeyboardSession {
        let id = loadable.identifier
        var configuration = installation.processConfiguration
        configuration.keepSpare = launching.keepsSpare
        configuration.handsOffAfterReply = launching.handsOffAfterReply
        configuration.pollForReplyMicroseconds = launching.pollForReplyMicroseconds
        configuration.memoryBudgetBytes = budget
        if let least = launching.leastLaunchDeadlineMilliseconds {
            configuration.launchDeadlineMilliseconds = max(configuration.launchDeadlineMilliseconds, least)
        }
        if let deadline = launching.eventDeadlineMilliseconds { configuration.eventDeadlineMilliseconds = deadline }
        configuration.actionDeadline = actionDeadline
        let session: KeyboardSession
        if let apart {  // as a keyboard the user never installed: no grant, container or replacement
            session = try KeyboardSession(keyboard: loadable, document: document, configuration: configuration,
                                          needsInputModeSwitchKey: apart.needsInputModeSwitchKey)
        } else {
            let pinned = pin?.keyboard == id ? pin : nil  // a pinned field has one input mode: its keyboard
            session = try KeyboardSession(keyboard: loadable, document: document, configuration: configuration,
                                          needsInputModeSwitchKey: pinned?.needsInputModeSwitchKey
                                              ?? InputModes.needsInputModeSwitchKey(settings, deviceDrawsGlobeKey: settings.deviceDrawsGlobeKey),
                                          hasFullAccess: settings.fullAccess.contains(id),
                                          inputModes: pinned == nil ? settings.enabled : nil,
                                          access: KeyboardAccess(settings: settings, home: store?.directory ?? "", keyboard: id))
            // No app holds the text of keyboards apart: only these replay edits.
            session.onEdit = { [weak self, unowned session] edit, before in
                self?.onEvent(.edited(edit, before: before, after: session.document.buffer))
            }
        }
        session.eventLimit = launching.eventLimit
        session.onAdvanceToNextInputMode = { [weak self] in if self?.switching == false { try? self?.globe() } }
        processIDs.insert(session.pid)
        notePeaks()
        sessions.insert(session)
        return session
    }
}
