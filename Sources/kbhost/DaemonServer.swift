import Foundation
import Glibc
import KBHost
import KBSystem
import Logging

/// One thread, poll over the listener and the clients, every socket
/// non-blocking: replies wait in a bounded queue per client, so a client that
/// stops reading (a suspended `attach`, a hostile script) is dropped instead of
/// blocking everyone else. Requests are handled in order.
struct DaemonServer {
    struct Client {
        var inbox: [UInt8] = []
        var outbox: [UInt8] = []
        var subscriber = false
        var settings = false
        var lastActive: Double
    }

    /// Replies a client may leave unread before it is dropped.
    static let outboxLimit = 256 << 10
    /// Connections beyond this are closed at once (each costs a descriptor).
    static let maximumClients = 900
    /// A connection that is not a subscriber and sends nothing for this long is closed.
    static let idleSeconds = 30.0

    let listener: Int32
    let path: String
    /// The socket file this daemon made: removed at the end only if it is still that one.
    let identity: FileIdentity?
    let logger: Logger
    var clients: [Int32: Client] = [:]
    let home = SettingsStore.defaultDirectory()
    /// The keyboards, read again only when their files change (for the names in events).
    let keyboards = RegistryCache(installation: Installation.current(), home: SettingsStore.defaultDirectory())
    /// The current keyboard as of the last reload: subscribers hear of changes to it.
    var current: String?
    /// Failure counts as of the last reload: new failures are logged.
    var failures: [String: Int] = [:]
    var running = true

    init(listener: Int32, path: String, identity: FileIdentity?, logger: Logger) {
        self.listener = listener
        self.path = path
        self.identity = identity
        self.logger = logger
        let settings = try? SettingsStore(directory: home).load()
        current = settings?.current
        failures = settings?.failures.mapValues(\.count) ?? [:]
    }

    mutating func run() {
        let files = Int32(RLIMIT_NOFILE.rawValue)
        if let limit = try? Sys.resourceLimit(files), limit.soft < 1024 {
            try? Sys.setResourceLimit(files, soft: min(limit.hard, 1024), hard: limit.hard)
        }
        try? Sys.setNonBlocking(listener)
        while running {
            let order = Array(clients.keys)
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            fds += order.map { fd in
                pollfd(fd: fd, events: Int16(POLLIN) | (clients[fd]!.outbox.isEmpty ? 0 : Int16(POLLOUT)), revents: 0)
            }
            guard (try? Sys.poll(&fds, timeoutMilliseconds: 5000)) != nil else { continue }
            if fds[0].revents != 0 { acceptAll() }
            for entry in fds.dropFirst() where entry.revents != 0 && clients[entry.fd] != nil {
                if entry.revents & Int16(POLLOUT) != 0 { flush(entry.fd) }
                if clients[entry.fd] != nil, entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { serve(entry.fd) }
                if !running { break }
            }
            dropIdle()
        }
        for fd in clients.keys { flush(fd) }
        if identity?.remove(path) == true {
            logger.info("stopped; removed \(path)")
        } else {
            logger.info("stopped; \(path) is no longer this daemon's socket, left as it is")
        }
    }

    mutating func acceptAll() {
        while let fd = UnixSocket.accept(listener) {
            guard UnixSocket.peerUID(fd) == getuid() else {
                logger.warning("refused a connection from another user")
                Sys.close(fd)
                continue
            }
            // Full: the connection idle longest that is not a subscriber makes room (a script
            // holding hundreds of silent connections must not keep `kbhost next` out).
            if clients.count >= Self.maximumClients {
                guard let idlest = clients.filter({ !$0.value.subscriber }).min(by: { $0.value.lastActive < $1.value.lastActive })?.key else {
                    logger.warning("refused a connection: \(Self.maximumClients) subscribers already")
                    Sys.close(fd)
                    continue
                }
                drop(idlest, "\(Self.maximumClients) clients: the one idle longest makes room")
            }
            try? Sys.setNonBlocking(fd)
            clients[fd] = Client(lastActive: Self.now)
            logger.debug("client \(fd) connected (\(clients.count) now)")
        }
    }

    static var now: Double { Date().timeIntervalSince1970 }

    mutating func drop(_ fd: Int32, _ why: String? = nil) {
        guard clients.removeValue(forKey: fd) != nil else { return }
        if let why { logger.warning("dropped client \(fd): \(why)") } else { logger.debug("client \(fd) left") }
        Sys.close(fd)
    }

    mutating func dropIdle() {
        let now = Self.now
        for (fd, client) in clients where !client.subscriber && now - client.lastActive > Self.idleSeconds {
            drop(fd, "sent nothing for \(Int(Self.idleSeconds)) s")
        }
    }

    mutating func serve(_ fd: Int32) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        // nil: end of file, or the read failed; 0: nothing to read now.
        guard let n = chunk.withUnsafeMutableBytes({ try? Sys.readAvailable(fd, into: $0) }) else { return drop(fd) }
        if n == 0 { return }
        clients[fd]?.lastActive = Self.now
        clients[fd]?.inbox.append(contentsOf: chunk[..<n])
        while running, let newline = clients[fd]?.inbox.firstIndex(of: 10) {
            let line = Array(clients[fd]!.inbox[..<newline])
            clients[fd]!.inbox.removeSubrange(...newline)
            handle(line, from: fd)
        }
        if (clients[fd]?.inbox.count ?? 0) > LineChannel.maximumLine { drop(fd, "a line longer than 1 MiB") }
    }

    mutating func handle(_ line: [UInt8], from fd: Int32) {
        guard let request = try? JSONDecoder().decode(DaemonRequest.self, from: Data(line)) else {
            logger.warning("refused a request that is not one the daemon takes (\(line.count) bytes)")
            return send(.refusal("not a request the daemon takes"), to: fd)
        }
        guard request.home == home else { return send(DaemonReply(declined: true), to: fd) }
        switch request.request {
        case .subscribe:
            clients[fd]?.subscriber = true
            clients[fd]?.settings = request.settings == true
            logger.info("client \(fd) subscribed\(request.settings == true ? " (with settings)" : "")")
            send(currentEvent(try? SettingsStore(directory: home).load()) ?? DaemonReply(event: "current"), to: fd)
        case .reload:
            reload()
            send(DaemonReply(ok: true), to: fd)
        case .stop:
            logger.info("asked to stop by client \(fd)")
            send(DaemonReply(ok: true), to: fd)
            running = false
        }
    }

    mutating func reload() {
        let settings = try? SettingsStore(directory: home).load()
        let now = settings?.current
        if let now, now != current, let event = currentEvent(settings) {
            logger.info("current keyboard: \(current ?? "none") → \(now)")
            for (fd, client) in clients where client.subscriber { send(event, to: fd) }
        }
        for (fd, client) in clients where client.settings { send(DaemonReply(event: "settings"), to: fd) }
        if let now { current = now }
        for (id, record) in settings?.failures ?? [:] where record.count > failures[id] ?? 0 {
            logger.warning("keyboard \(id) failed (\(record.count) time(s)\(record.setAside ? ", set aside" : "")): \(record.lastReason)")
        }
        if let settings { failures = settings.failures.mapValues(\.count) }
    }

    /// The event that tells subscribers which keyboard is current, with its name.
    func currentEvent(_ settings: KeyboardSettings?) -> DaemonReply? {
        guard let settings else { return nil }
        let before = keyboards.discoveries
        let registry = try? keyboards.registry()
        if keyboards.discoveries != before {  // read anew: say once what was skipped
            for problem in registry?.problems ?? [] { logger.warning("skipped \(TerminalText.line(problem))") }
        }
        let entry = registry?.entry(settings.current)
        let name = TerminalText.line(entry?.manifest.displayName ?? settings.current)
        return DaemonReply(event: "current", identifier: settings.current, name: name)
    }

    /// Queues a reply and writes what the socket takes now; a client whose
    /// unread replies pass the limit is dropped (a subscriber reconnects).
    mutating func send(_ reply: DaemonReply, to fd: Int32) {
        guard clients[fd] != nil, let data = try? JSONEncoder().encode(reply) else { return }
        clients[fd]!.outbox.append(contentsOf: Array(data) + [10])
        flush(fd)
        if let waiting = clients[fd]?.outbox.count, waiting > Self.outboxLimit {
            drop(fd, "it does not read its replies (\(waiting >> 10) KiB waiting)")
        }
    }

    mutating func flush(_ fd: Int32) {
        while let outbox = clients[fd]?.outbox, !outbox.isEmpty {
            // nil: the write failed; 0: the socket takes nothing now.
            guard let n = outbox.withUnsafeBytes({ try? Sys.writeAvailable(fd, $0) }) else { return drop(fd, "its socket failed") }
            if n == 0 { return }
            clients[fd]!.outbox.removeFirst(n)
        }
    }

    /// Ends the daemon running on `path`: asks it, then, if it does not go (stuck, or
    /// suspended), SIGTERM and at last SIGKILL to the pid its lock names. nil if none ran;
    /// else how it ended ("" when it did as asked).
    static func end(path: String, lock: String) -> String? {
        let pid = InstanceLock.holder(lock)
        let asked = DaemonClient.stop()
        guard asked || pid != nil else { return nil }
        if asked, gone(path: path, lock: lock, within: 5) { return "" }
        guard let pid = pid ?? InstanceLock.holder(lock) else { return asked ? "" : nil }
        // SIGCONT after SIGTERM: a suspended daemon handles it (and removes its socket) once it runs.
        for (signals, name, wait) in [([SIGTERM, SIGCONT], "SIGTERM", 2.0), ([SIGKILL], "SIGKILL", 3.0)] {
            for signal in signals { try? Sys.kill(pid, signal) }
            if gone(path: path, lock: lock, within: wait) { return " (it did not answer: ended with \(name))" }
        }
        return " (it did not answer, and pid \(pid) outlived SIGKILL)"
    }

    /// Waits until no daemon holds the lock or listens on `path`; true when none does.
    static func gone(path: String, lock: String, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if InstanceLock.holder(lock) == nil, !UnixSocket.answers(path) { return true }
            usleep(10_000)
        } while Date() < deadline
        return false
    }
}
