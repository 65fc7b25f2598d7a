public import Glibc
public import KBSystem
package import KBWire

/// One extension process: a worker spawned with posix_spawn on a socketpair,
/// its stdout/stderr collected as log text, its exit watched through a pidfd.
/// Every request has a deadline; whatever the worker does (crash, hang,
/// garbage), the caller gets a `KeyboardFailure` and the worker is reaped.
public final class ExtensionProcess {
    public struct Configuration: Sendable {
        /// The kbhost-worker executable.
        public var workerPath: String
        /// RLIMIT_DATA for the worker: a backstop well above the memory budget.
        public var dataLimitBytes = UInt64(Governor.backstop)
        public var stackLimitBytes: UInt64 = 2 << 20
        /// Launch (spawn → handshake → loaded) must finish within this.
        public var launchDeadlineMilliseconds = 1000
        /// Each delivered event must be answered within this.
        public var eventDeadlineMilliseconds = 2500
        /// A deadline the event calls of one action share, when a front end sets one
        /// (`ActionDeadline`); the input manager gives its keyboards its own.
        public var actionDeadline: ActionDeadline?
        /// Extra environment for the worker (KEY=VALUE), on top of the fixed one.
        public var environment: [String] = []
        /// Start the worker in namespaces of its own (false only for measurements: `kbhost-bench`).
        public var isolate = true
        /// Keep one extension process prepared ahead of need (spawned, in its
        /// namespaces, handshake done), so that the next launch is only a load:
        /// for front ends that switch keyboards (attach, the daemon, stress).
        public var keepSpare = false
        /// Give the worker a network namespace of its own from the start (no open access, or
        /// open access through `userNetwork`).
        public var privateNetwork = false
        /// Open access through a relay in user space (`UserNetwork`): the keyboard's sockets live
        /// in its own network namespace, where the governor sees every one.
        public var userNetwork = false
        /// The worker yields its CPU after each reply, so that a host waiting for it runs at
        /// once where the two share a CPU (an interactive front end, whose key then goes on to
        /// other processes: pinned to one CPU, a key through IBus reached the app 20% sooner).
        /// A tight loop of calls pays a system call per call for it (the tap round trip went
        /// from 1.33x to 1.62x its floor pinned), so scripts and measurements leave it off.
        public var handsOffAfterReply = false
        /// How long the host polls for a reply before it sleeps on the channel, yielding its CPU
        /// between looks (0: it sleeps at once). Where the keyboard's process runs on another CPU,
        /// a reply seen by polling spares the host's wake-up; where the two share one, the yield
        /// runs the keyboard. For an interactive front end (`InputManager.Launching.person`).
        public var pollForReplyMicroseconds = 0
        /// The memory budget the governor enforces (footprint: anonymous + shared memory + swap);
        /// nil: not watched (RLIMIT_DATA remains the backstop).
        public var memoryBudgetBytes: Int?

        public init(workerPath: String) { self.workerPath = workerPath }
    }

    public private(set) var keyboardID: String
    /// The keyboard's process: the one that loads the plugin, whose memory the governor watches.
    public private(set) var pid: pid_t
    /// The process the host spawned: the keyboard's process itself, or, in
    /// namespaces, the launcher that ends as it ends (see CKBSandbox/isolation.c).
    private let spawnedPID: pid_t
    /// A pidfd of the keyboard's process when it is not the spawned one.
    private var keyboardPidfd: Int32
    public private(set) var configuration: Configuration
    private let socket: Int32
    private let pidfd: Int32
    private let output: Int32
    var reader = FrameReader()
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// The key of the calls' numbers on the wire (see ExtensionProcess+Replies).
    let callKey = UInt64.random(in: .min ... .max)
    private var outputTail: [UInt8] = []
    /// The socket's SO_RCVTIMEO as last set (ms).
    private var receiveTimeout = -1
    private var repliesSinceUnreadCheck = 0
    static let unreadCheckInterval = 32
    /// Output is drained on failure, on request, and every few replies so a chatty keyboard never blocks.
    private var repliesSinceDrain = 0
    private static let outputTailLimit = 16 * 1024
    /// How the process ended, once it has.
    public private(set) var termination: Sys.Termination? {
        didSet { if termination != nil { network?.stop() } }  // its sockets close with the keyboard
    }
    /// The relay of its network (`Configuration.userNetwork`), once started.
    public private(set) var network: UserNetwork?

    /// Spawns the worker and completes the versioned handshake.
    public init(keyboardID: String, configuration: Configuration) throws(KeyboardFailure) {
        self.keyboardID = keyboardID
        self.configuration = configuration
        func failure(_ s: String) -> KeyboardFailure {
            KeyboardFailure(keyboardID: keyboardID, phase: "launch", reason: .spawnFailed(s))
        }
        guard Sys.fileExists(configuration.workerPath) else {
            throw failure("no worker executable at \(configuration.workerPath); run `swift build` first")
        }
        var hostEnd: Int32 = -1, childEnd: Int32 = -1, outRead: Int32 = -1, outWrite: Int32 = -1
        do {
            (hostEnd, childEnd) = try Sys.socketPair()
            // A descriptor the keyboard sends over its channel would wait in the host's queue,
            // belonging to no process, until the host read it: 600 MiB of files and 880 MiB of
            // socket queues were parked so under a 48 MiB budget (eighth red team, H). The host
            // end takes none (on kernels before 6.16, which lack the option, see README).
            _ = Sys.refuseDescriptorPassing(hostEnd)
            // A write to the keyboard waits at most as long as its reply may: a keyboard that
            // peeked at its requests and answered them without reading filled the channel until
            // the host's next send blocked for good (ninth red team, M).
            try Sys.setSendTimeout(hostEnd, milliseconds: max(configuration.eventDeadlineMilliseconds, configuration.launchDeadlineMilliseconds))
            (outRead, outWrite) = try Sys.pipe()
            // Keep the child's ends above 3 so that dup2 onto 1, 2, 3 always clears close-on-exec.
            let c = try Sys.duplicate(childEnd, atLeast: 10); Sys.close(childEnd); childEnd = c
            let w = try Sys.duplicate(outWrite, atLeast: 10); Sys.close(outWrite); outWrite = w
            try Sys.setNonBlocking(outRead)
            Sys.setPipeSize(outRead, 1 << 20)
        } catch {
            [hostEnd, childEnd, outRead, outWrite].forEach(Sys.close)
            throw failure("\(error)")
        }
        let arguments = [configuration.workerPath,
                         "--data-limit", String(configuration.dataLimitBytes),
                         "--stack-limit", String(configuration.stackLimitBytes),
                        ] + (configuration.isolate ? [] : ["--no-isolate"])
                         // A relay's keyboard (or a spare one may take) gets socket tables of its own: the
                         // governor reads them. They cost a second network namespace (0.3 ms) at start.
                         + (configuration.privateNetwork ? ["--network", configuration.userNetwork ? "relay" : "private"] : [])
                         + (configuration.handsOffAfterReply ? ["--hand-off"] : [])
        let spawned: pid_t
        do {
            spawned = try Spawn.spawn(path: configuration.workerPath, arguments: arguments,
                                      // The host's pid by the environment, which the worker wipes once read: in its
                                      // arguments Swift kept a copy the keyboard found in its memory (eleventh red team, F3).
                                      environment: ExtensionProcess.workerEnvironment(configuration.environment) + ["KBHOST_PARENT=\(getpid())"],
                                      files: [.init(outWrite, as: 1), .init(outWrite, as: 2), .init(childEnd, as: 3)])
        } catch {
            [hostEnd, childEnd, outRead, outWrite].forEach(Sys.close)
            throw failure("\(error)")
        }
        Sys.close(childEnd)
        Sys.close(outWrite)
        spawnedPID = spawned
        pid = spawned  // until the handshake names the keyboard's process
        keyboardPidfd = -1
        socket = hostEnd
        output = outRead
        do {
            pidfd = try Sys.pidfdOpen(spawned)
        } catch {
            try? Sys.kill(spawned, SIGKILL)
            _ = try? Sys.waitForChild(spawned)
            Sys.close(hostEnd); Sys.close(outRead)
            throw failure("\(error)")
        }
        // An exit wakes a waiting receive at once, whoever else holds the channel.
        let channel = hostEnd
        ExitWatcher.shared.watch(pidfd: pidfd) { Sys.shutdown(channel) }

        let reply = try request(.hello(protocolVersion: WireVersion.protocolVersion, abiVersion: WireVersion.abiVersion),
                                phase: "launch", deadlineMilliseconds: configuration.launchDeadlineMilliseconds)
        guard case .hello(let p, let a, let keyboardPID) = reply, p == WireVersion.protocolVersion, a == WireVersion.abiVersion else {
            let text = if case .hello(let p, let a, _) = reply {
                "worker speaks protocol \(p) / ABI \(a); this host speaks protocol \(WireVersion.protocolVersion) / ABI \(WireVersion.abiVersion)"
            } else { "the worker's first reply was not a hello" }
            throw end(phase: "launch", .protocolViolation(text))
        }
        // In namespaces the keyboard's process is the launcher's grandchild: watch that one.
        if keyboardPID != spawned {
            guard keyboardPID > 0, let fd = try? Sys.pidfdOpen(keyboardPID) else {
                throw end(phase: "launch", .protocolViolation("the worker named no keyboard process it could be watched through (pid \(keyboardPID))"))
            }
            pid = keyboardPID
            keyboardPidfd = fd
        }
        watchMemory()
    }

    /// A process for `keyboardID`: a prepared spare when one matches (see
    /// `Configuration.keepSpare`), else a new one. The caller prepares the next
    /// spare (`SpareProcesses.prepare(like:)`) once the keyboard has appeared
    /// (`KeyboardSession` does): a spare starting meanwhile takes the CPU from the load.
    public static func launch(keyboardID: String, configuration: Configuration) throws(KeyboardFailure) -> ExtensionProcess {
        let process: ExtensionProcess
        if configuration.keepSpare, let spare = SpareProcesses.shared.take(like: configuration) {
            spare.adopt(keyboardID: keyboardID, configuration: configuration)
            process = spare
        } else {
            process = try ExtensionProcess(keyboardID: keyboardID, configuration: configuration)
        }
        if configuration.userNetwork { try process.startNetwork() }
        return process
    }

    /// Brings up the keyboard's network (`Configuration.userNetwork`) before its plugin is
    /// opened: nothing of the keyboard runs while it has none.
    private func startNetwork() throws(KeyboardFailure) {
        do {
            let relay = try UserNetwork(for: pid, deadlineMilliseconds: configuration.launchDeadlineMilliseconds)
            network = relay
            // The launcher's sock_diag socket, made in the keyboard's network (-1 where it has none; the
            // tests' control pretends it away: KBHOST_SANDBOX_PRETEND_MISSING naming socket-diagnostics).
            let pretend = getenv("KBHOST_SANDBOX_PRETEND_MISSING").map { String(cString: $0).split(separator: ",").contains("socket-diagnostics") } ?? false
            let diagnostics = keyboardPidfd >= 0 && !pretend ? Sys.takeDiagnosticsSocket(ExtensionProcess.launcherDiagnosticsDescriptor, of: pidfd) ?? -1 : -1
            // What the keyboard leaves in its network when it ends goes with the relay (`sweepsOnStop`),
            // through the launcher's second sock_diag socket (not the governor's: a count and the sweep
            // on one socket refuse and read each other's dumps; a review of this change).
            if diagnostics >= 0, let sweeper = Sys.takeDiagnosticsSocket(ExtensionProcess.launcherSweepDescriptor, of: pidfd) {
                if let keyboard = try? Sys.duplicate(keyboardPidfd, atLeast: 3) {
                    relay.sweepsOnStop(diagnostics: sweeper, keyboardPidfd: keyboard)
                } else {
                    Sys.close(sweeper)
                }
            }
            Governor.shared.countRelay(of: pid, relay: relay, diagnostics: diagnostics)
            // The relay ends the moment the keyboard does, not at the host's next call: a keyboard the
            // governor killed while the host waited for a person left it running, with every socket
            // it held, until the next key (eleventh red team, F4).
            let channel = socket
            ExitWatcher.shared.watch(pidfd: pidfd) { Sys.shutdown(channel); relay.stop() }
        } catch {
            throw end(phase: "launch", .spawnFailed("cannot give the keyboard its network: \(error)"))
        }
    }

    /// Where the launcher of a keyboard with a network of its own keeps a sock_diag socket made in
    /// that network (KBH_LAUNCHER_DIAG_FD in the sandbox's header).
    static let launcherDiagnosticsDescriptor: Int32 = 200
    /// Where it keeps a second one, for the sweep as the keyboard ends (KBH_LAUNCHER_SWEEP_FD).
    static let launcherSweepDescriptor: Int32 = 201

    /// A spare becomes a keyboard's: its name in failures, its deadlines, its budget.
    func adopt(keyboardID: String, configuration: Configuration) {
        self.keyboardID = keyboardID
        self.configuration = configuration
        watchMemory()
    }

    /// Whether the process still runs (a spare may have died while it waited).
    var isAlive: Bool {
        guard termination == nil else { return false }
        guard let ended = try? Sys.reap(pidfd: pidfd, wait: false) else { return true }
        termination = ended
        return false
    }

    private func watchMemory() {
        if let budget = configuration.memoryBudgetBytes {
            Governor.shared.watch(pid: pid, pidfd: keyboardPidfd >= 0 ? keyboardPidfd : pidfd, budget: budget)
        }
    }

    /// A fixed, minimal environment: nothing of the user's (secrets in
    /// variables included) reaches a keyboard. The worker sets HOME and TMPDIR
    /// to its container. No Swift backtracer: a crashing keyboard must die at
    /// once, as on iOS, not spend seconds and megabytes on a report.
    static func workerEnvironment(_ extra: [String]) -> [String] {
        var environment = ["PATH=/usr/bin:/bin", "LANG=C.UTF-8", "SWIFT_BACKTRACE=enable=no"]
        // The tests' and `kbhost doctor`'s way to play a kernel without some protection.
        if let pretend = getenv("KBHOST_SANDBOX_PRETEND_MISSING") {
            environment.append("KBHOST_SANDBOX_PRETEND_MISSING=" + String(cString: pretend))
        }
        return environment + extra
    }

    deinit {
        ExitWatcher.shared.unwatch(pidfd: pidfd)
        Governor.shared.unwatch(pid: pid)
        if termination == nil {
            try? Sys.kill(-spawnedPID, SIGKILL)  // anything the keyboard forked goes with it (not after reaping: the pid may be reused)
            _ = try? Sys.pidfdSendSignal(pidfd, SIGKILL)
            _ = try? Sys.reap(pidfd: pidfd, wait: true)
        }
        Sys.close(socket)
        Sys.close(pidfd)
        Sys.close(keyboardPidfd)
        Sys.close(output)
    }

    public var isRunning: Bool { termination == nil }

    /// What the worker wrote to stdout/stderr recently (its log).
    public var outputText: String {
        drainOutput()
        return String(decoding: outputTail, as: UTF8.self)
    }

    /// Sends one request and waits for its one reply. A `.failure` reply, an
    /// exit, a missed deadline, a malformed frame or anything but one reply to
    /// this request (see `accept`) all end the worker and throw.
    package func request(_ message: HostMessage, phase: @autoclosure () -> String,
                        deadlineMilliseconds: Int? = nil) throws(KeyboardFailure) -> WorkerMessage {
        guard termination == nil else { throw end(phase: phase(), .io("the extension process has already ended")) }
        try refuseUnasked(phase: phase)
        do {
            try Sys.sendAll(socket, sealed(message).encodedFrame())
        } catch {
            throw end(phase: phase(), .io("\(error)"), preferExit: true)
        }
        let reply = try receive(phase: phase, deadlineMilliseconds: deadlineMilliseconds ?? configuration.eventDeadlineMilliseconds,
                                sharesActionDeadline: deadlineMilliseconds == nil)
        if case .failure(let f) = reply {
            throw end(phase: phase(), .loadFailed(.init(f.kind), f.message))
        }
        let accepted = try accept(reply, answering: message, last: true, phase: phase)
        try refuseUnread(phase: phase)
        return accepted
    }

    /// Pipelining: sends several requests in one write, then hands each reply,
    /// in order, to `handle`. The worker answers them one by one; if it dies
    /// part way, the replies it sent are still handed over before the failure.
    /// Each reply must answer its own request, and nothing may follow the last.
    package func requestAll(_ messages: [HostMessage], phase: @autoclosure () -> String,
                           handle: (Int, WorkerMessage) throws(KeyboardFailure) -> Void) throws(KeyboardFailure) {
        guard termination == nil else { throw end(phase: phase(), .io("the extension process has already ended")) }
        try refuseUnasked(phase: phase)
        var bytes: [UInt8] = []
        for message in messages { bytes += sealed(message).encodedFrame() }
        do {
            try Sys.sendAll(socket, bytes)
        } catch {
            throw end(phase: phase(), .io("\(error)"), preferExit: true)
        }
        for i in messages.indices {
            let reply = try receive(phase: phase, deadlineMilliseconds: configuration.eventDeadlineMilliseconds, sharesActionDeadline: true)
            if case .failure(let f) = reply { throw end(phase: phase(), .loadFailed(.init(f.kind), f.message)) }
            let accepted = try accept(reply, answering: messages[i], last: i == messages.count - 1, phase: phase)
            if i == messages.count - 1 { try refuseUnread(phase: phase) }
            try handle(i, accepted)
        }
    }

    /// A reply to requests the worker has not read (it peeked at them): the host's writes would
    /// pile up in the channel until one blocked (ninth red team, M). Every request must be read
    /// by the time its last reply comes.
    /// Asked every `unreadCheckInterval` replies, not at each: the question is a system call on
    /// the key's path (every reply, it took the tap round trip from 1.34x to 1.55x its floor
    /// pinned), and unread requests only pile up (a hundred bytes each) until one is asked.
    func refuseUnread(phase: () -> String) throws(KeyboardFailure) {
        repliesSinceUnreadCheck += 1
        guard repliesSinceUnreadCheck >= ExtensionProcess.unreadCheckInterval else { return }
        repliesSinceUnreadCheck = 0
        guard let unread = Sys.unreadSent(socket), unread > 0 else { return }
        throw end(phase: phase(), .protocolViolation("answered a call it had not read (\(unread) bytes of the host's requests unread)"))
    }

    /// Waits for one whole frame from the worker: a blocking receive bounded
    /// by SO_RCVTIMEO (one system call on the fast path, no poll). The worker's
    /// end of the socket closes when it dies, so an exit shows as end of file;
    /// a hang shows as the timeout.
    /// An event's call (`sharesActionDeadline`) ends at its own deadline or at the action's, the sooner.
    private func receive(phase: () -> String, deadlineMilliseconds callDeadline: Int,
                         sharesActionDeadline: Bool = false) throws(KeyboardFailure) -> WorkerMessage {
        var deadlineMilliseconds = callDeadline
        var deadline = Sys.monotonicNanoseconds() + Int64(callDeadline) * 1_000_000
        if sharesActionDeadline, let action = configuration.actionDeadline?.current, action.end < deadline {
            // Reported as the action's deadline: the keyboard had that long for the event, in all.
            (deadline, deadlineMilliseconds) = (action.end, action.milliseconds)
        }
        var timeout = Int(max((deadline - Sys.monotonicNanoseconds() + 999_999) / 1_000_000, 1))
        repliesSinceDrain += 1
        if repliesSinceDrain >= 32 { drainOutput() }
        let pollUntil = configuration.pollForReplyMicroseconds > 0
            ? Sys.monotonicNanoseconds() + Int64(configuration.pollForReplyMicroseconds) * 1000 : 0
        while true {
            do {
                if let payload = try reader.nextFrame() { return try WorkerMessage.decode(payload) }
            } catch {
                throw end(phase: phase(), .protocolViolation("\(error)"))
            }
            // Polled while `pollUntil` lasts, then waited for under SO_RCVTIMEO.
            let polling = pollUntil > 0 && Sys.monotonicNanoseconds() < pollUntil
            if !polling && timeout != receiveTimeout {
                do { try Sys.setReceiveTimeout(socket, milliseconds: timeout) } catch {
                    throw end(phase: phase(), .io("\(error)"))
                }
                receiveTimeout = timeout
            }
            let n: Int?
            do {
                n = try readBuffer.withUnsafeMutableBytes { (b) throws(SystemError) in try Sys.receive(socket, into: b, waiting: !polling) }
            } catch {
                throw end(phase: phase(), .io("\(error)"), preferExit: true)
            }
            guard let n else { throw end(phase: phase(), .io("the channel closed"), preferExit: true) }
            if n == 0 && polling {  // nothing yet
                Sys.yieldProcessor()
                continue
            }
            if n == 0 {  // timed out
                throw end(phase: phase(), .deadlineExceeded(milliseconds: deadlineMilliseconds))
            }
            readBuffer.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            // Part of a frame: wait only for what is left of the deadline.
            let left = (deadline - Sys.monotonicNanoseconds() + 999_999) / 1_000_000
            guard left > 0 || reader.pendingByteCount == 0 else {
                throw end(phase: phase(), .deadlineExceeded(milliseconds: deadlineMilliseconds))
            }
            timeout = Int(max(left, 1))
        }
    }

    /// Asks the worker to exit, then makes sure it has.
    public func shutdown() {
        guard termination == nil else { return }
        _ = try? Sys.sendAll(socket, HostMessage.shutdown.encodedFrame())
        var fds = [pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)]
        _ = try? Sys.poll(&fds, timeoutMilliseconds: 200)
        kill()
    }

    /// The peak footprint the governor has seen (nil when not watched).
    public var peakFootprint: Int? { Governor.shared.peak(of: pid) }
    /// Memory warnings the governor has seen cause for (see `Governor.memoryWarningFraction`).
    public var memoryWarnings: Int { Governor.shared.warnings(of: pid) }

    /// SIGKILL through the pidfd (and to its process group, so nothing it
    /// forked survives it), then reap.
    public func kill() {
        guard termination == nil else { return }  // reaped: its pid (and group id) may be reused
        try? Sys.kill(-spawnedPID, SIGKILL)
        _ = try? Sys.pidfdSendSignal(pidfd, SIGKILL)
        termination = (try? Sys.reap(pidfd: pidfd, wait: true)) ?? .signaled(SIGKILL)
        awaitKeyboardProcess()
        drainOutput()
    }

    /// Ends the worker and builds the failure. With `preferExit`, a process
    /// that has ended by itself is reported by how it ended (signal or status).
    func end(phase: @autoclosure () -> String, _ reason: KeyboardFailure.Reason, preferExit: Bool = false) -> KeyboardFailure {
        var finalReason = reason
        // Whether the governor had ended it before this end: a main thread it sees ended after the
        // host's own kill is that kill's teardown (a process of many threads and mappings takes longer
        // than the governor's grace to go), and a keyboard killed for its deadline was reported as
        // having ended its main thread.
        let governorFirst = Governor.shared.kill(of: pid) != nil
        var killedHere = false
        if termination == nil {
            if preferExit {
                // The channel broke: the process is ending; give it a moment to be reaped.
                var fds = [pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)]
                _ = try? Sys.poll(&fds, timeoutMilliseconds: 1000)
            }
            if let ended = try? Sys.reap(pidfd: pidfd, wait: false) {
                termination = ended
                try? Sys.kill(-spawnedPID, SIGKILL)  // what it forked dies with it
                awaitKeyboardProcess()
            } else {
                kill()
                killedHere = true
            }
        }
        if preferExit, let termination {
            finalReason = switch termination {
            case .signaled(let s): .signaled(signal: s)
            case .exited(let status): .exited(status: status)
            }
        }
        // Whatever the channel saw, a process the governor killed died of its budget; but one
        // that ended by a signal of its own while its threads went (a crash dumping core can
        // outlast the governor's grace for a main thread that ended) died of that.
        if let kill = Governor.shared.kill(of: pid) {
            var endedOnItsOwn = false
            if kill.mainThreadEnded, case .signaled(let s)? = termination, s != SIGKILL { endedOnItsOwn = true }
            if kill.mainThreadEnded, case .exited? = termination { endedOnItsOwn = true }
            // (Nor are a stop that did not come or a listing cut short while the host's kill tore it down.)
            if kill.mainThreadEnded || kill.notPaused || kill.mappingsListingCut, killedHere, !governorFirst { endedOnItsOwn = true }
            if !endedOnItsOwn { finalReason = .memoryExceeded(kill) }
        }
        drainOutput()
        return KeyboardFailure(keyboardID: keyboardID, phase: phase(), reason: finalReason,
                               stderrTail: String(decoding: outputTail, as: UTF8.self))
    }

    /// The launcher is reaped; the keyboard's process (its grandchild) is
    /// ending with it. Wait until it has: a killed process ends in milliseconds, but on a
    /// loaded machine (a full test run on 2 cores) it once took longer than the 1 s this
    /// waited, and a caller was told a keyboard had failed while its process still ran.
    private func awaitKeyboardProcess() {
        guard keyboardPidfd >= 0 else { return }
        _ = try? Sys.pidfdSendSignal(keyboardPidfd, SIGKILL)
        var fds = [pollfd(fd: keyboardPidfd, events: Int16(POLLIN), revents: 0)]
        _ = try? Sys.poll(&fds, timeoutMilliseconds: 5000)
    }

    private func drainOutput() {
        repliesSinceDrain = 0
        while true {
            let n = try? readBuffer.withUnsafeMutableBytes { (b) throws(SystemError) in try Sys.readAvailable(output, into: b) }
            guard let count = n ?? nil, count > 0 else { return }
            outputTail.append(contentsOf: readBuffer[..<count])
            if outputTail.count > ExtensionProcess.outputTailLimit {
                outputTail.removeFirst(outputTail.count - ExtensionProcess.outputTailLimit)
            }
        }
    }
}
