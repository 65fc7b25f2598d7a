import ArgumentParser
import Foundation
import Glibc
import KBHost
import KBSystem
import Logging

/// Where the daemon listens: KBHOST_RUNTIME_DIR, else $XDG_RUNTIME_DIR/kbhost,
/// else /tmp/kbhost-UID. The folder is 0700 and the socket 0600.
enum DaemonPaths {
    static var directory: String {
        let env = ProcessInfo.processInfo.environment
        if let dir = env["KBHOST_RUNTIME_DIR"], !dir.isEmpty { return dir }
        if let run = env["XDG_RUNTIME_DIR"], !run.isEmpty { return run + "/kbhost" }
        return "/tmp/kbhost-\(getuid())"
    }
    static var socket: String { directory + "/control" }
    /// Whether the folder is itself (no link) a folder of this user's that only this user may enter.
    /// Without XDG_RUNTIME_DIR it is /tmp/kbhost-UID, a name any user of the machine may take first:
    /// nothing in a folder that is not private is trusted (twenty-third red team, E and F).
    static var isPrivate: Bool {
        guard let folder = try? Sys.linkStatus(directory) else { return false }
        return folder.st_mode & S_IFMT == S_IFDIR && folder.st_uid == getuid() && folder.st_mode & 0o077 == 0
    }
    static let notPrivate = "is not a folder of your own that only you may enter"
    /// Whether a daemon takes connections now (a stuck one, whose backlog is full, does not); only
    /// in a private folder (a socket another user put there is not a daemon of this user's).
    static var answers: Bool {
        guard isPrivate, case .success(let fd) = UnixSocket.connect(socket, timeoutMilliseconds: 100) else { return false }
        Sys.close(fd)
        return true
    }
    /// Held by the running daemon for its life (flock), with its pid inside.
    static var lock: String { directory + "/control.lock" }
}

/// The requests on the control socket, one JSON object per line. The daemon
/// changes nothing a keyboard may do: the user's own commands write the
/// settings (under the settings lock) and then only tell the daemon to look.
/// Anything else — an old-style `argv`, an unknown request — is refused.
struct DaemonRequest: Codable {
    enum Kind: String, Codable, CaseIterable {
        /// The settings changed: re-read them and tell subscribers if the current keyboard did.
        case reload
        /// Send this connection an event whenever the current keyboard changes.
        case subscribe
        /// End the daemon (`kbhost serve --stop`, `--replace`); it removes its socket.
        case stop
    }

    var request: Kind
    /// The client's settings folder: a daemon serving another one declines.
    var home: String
    /// With subscribe: also a "settings" event after every change (an attached
    /// session ends a keyboard whose open access was revoked).
    var settings: Bool? = nil
}

struct DaemonReply: Codable {
    /// The request was carried out.
    var ok: Bool?
    /// The request was refused, and why.
    var error: String?
    /// The daemon serves another KBHOST_HOME: do it yourself.
    var declined: Bool?
    /// Sent to subscribers: "current" when the current keyboard changes,
    /// "settings" after any change (grants, the enabled list…).
    var event: String?
    var identifier: String?
    var name: String?

    static func refusal(_ why: String) -> DaemonReply {
        let kinds = DaemonRequest.Kind.allCases.map { "\"\($0.rawValue)\"" }
        return DaemonReply(error: "\(why); the daemon takes only \(kinds.dropLast().joined(separator: ", ")) and \(kinds.last!) requests — settings change only through your own kbhost commands")
    }
}

enum DaemonClient {
    /// How long a command waits for the daemon before going on without it.
    static let timeoutMilliseconds = 2000

    /// Sends one request to a running daemon and returns its first reply and
    /// the open channel; nil when none runs, it serves another home, refused,
    /// or did not answer in time (then a warning says so: the settings are saved either way).
    private static func request(_ kind: DaemonRequest.Kind,
                                timeout: Int = timeoutMilliseconds) -> (LineChannel, DaemonReply)? {
        guard ProcessInfo.processInfo.environment["KBHOST_NO_DAEMON"] == nil else { return nil }
        let fd: Int32
        switch UnixSocket.connect(DaemonPaths.socket, timeoutMilliseconds: timeout) {
        case .success(let connected): fd = connected
        case .failure(let error):
            // EAGAIN: a daemon is there but has not taken a connection in all that time (its
            // backlog is full: a connect without a timeout hung there for good).
            if error.errno == EAGAIN || error.errno == EWOULDBLOCK { warnNoAnswer(kind, timeout) }
            return nil
        }
        guard UnixSocket.peerUID(fd) == getuid() else {  // someone else's socket where ours should be
            Sys.close(fd)
            Console.err("kbhost: warning: \(DaemonPaths.socket) belongs to another user; not talking to it")
            return nil
        }
        var channel = LineChannel(fd: fd)
        let request = DaemonRequest(request: kind, home: SettingsStore.defaultDirectory())
        guard let line = try? String(decoding: JSONEncoder().encode(request), as: UTF8.self) else { return nil }
        let replyLine: String?
        do {
            try channel.send(line)
            replyLine = try channel.receive()
        } catch {
            Sys.close(fd)
            warnNoAnswer(kind, timeout)
            return nil
        }
        guard let replyLine else {
            Sys.close(fd)
            Console.err("kbhost: warning: the daemon on \(DaemonPaths.socket) closed the connection without answering"
                        + (kind == .stop ? "" : "; the settings are saved, and attached sessions see the change when it answers again"))
            return nil
        }
        guard let reply = try? JSONDecoder().decode(DaemonReply.self, from: Data(replyLine.utf8)),
              reply.ok == true || reply.event != nil else {  // declined, refused, or an older daemon
            Sys.close(fd)
            return nil
        }
        return (channel, reply)
    }

    private static func warnNoAnswer(_ kind: DaemonRequest.Kind, _ timeout: Int) {
        Console.err("kbhost: warning: the daemon on \(DaemonPaths.socket) did not answer within \(timeout / 1000) s"
                    + (kind == .stop ? "" : "; the settings are saved, and attached sessions see the change when it answers again"))
    }

    /// Subscribes without waiting for the daemon (for a front end, whose keys must not wait on
    /// it): the connection is made within 100 ms or not at all, the request sent, and the
    /// daemon's answer — the current keyboard — comes as the first event on the returned
    /// non-blocking channel (read it with `receiveAvailable`). nil when no daemon takes it.
    static func subscribeWithoutWaiting() -> LineChannel? {
        guard ProcessInfo.processInfo.environment["KBHOST_NO_DAEMON"] == nil,
              case .success(let fd) = UnixSocket.connect(DaemonPaths.socket, timeoutMilliseconds: 100) else { return nil }
        let request = DaemonRequest(request: .subscribe, home: SettingsStore.defaultDirectory(), settings: true)
        guard UnixSocket.peerUID(fd) == getuid(), let line = try? String(decoding: JSONEncoder().encode(request), as: UTF8.self),
              (try? LineChannel(fd: fd).send(line)) != nil, (try? Sys.setNonBlocking(fd)) != nil else {
            Sys.close(fd)
            return nil
        }
        return LineChannel(fd: fd)
    }

    /// Tells a running daemon the settings changed without waiting on it, for a front end whose
    /// keys must not wait (a suspended daemon held `attach` and the IBus engine 2 s on each
    /// globe key): connected within 100 ms or not at all, the request written only if the
    /// socket takes it at once, and no answer read. The daemon reloads when it next runs.
    static func notifyWithoutWaiting() {
        guard ProcessInfo.processInfo.environment["KBHOST_NO_DAEMON"] == nil,
              case .success(let fd) = UnixSocket.connect(DaemonPaths.socket, timeoutMilliseconds: 100) else { return }
        defer { Sys.close(fd) }
        let request = DaemonRequest(request: .reload, home: SettingsStore.defaultDirectory())
        guard UnixSocket.peerUID(fd) == getuid(), (try? Sys.setNonBlocking(fd)) != nil,
              let line = try? String(decoding: JSONEncoder().encode(request), as: UTF8.self) else { return }
        _ = try? LineChannel(fd: fd).send(line)
    }

    /// Tells a running daemon the settings changed; false if none is running.
    @discardableResult
    static func notify() -> Bool {
        guard let (channel, _) = request(.reload) else { return false }
        Sys.close(channel.fd)
        return true
    }

    /// Asks a running daemon to end; false if none answered (in 3 s: one that does not is then ended by a signal).
    static func stop() -> Bool {
        guard let (channel, _) = request(.stop, timeout: 3000) else { return false }
        Sys.close(channel.fd)
        return true
    }
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the input manager as a daemon: a `next` or `set` reaches every attached session at once.",
        discussion: """
            It listens on KBHOST_RUNTIME_DIR/control (default $XDG_RUNTIME_DIR/kbhost/control), mode 0600, and answers only \
            its own user. Commands change the settings themselves and then tell it to re-read them; it takes only reload, \
            subscribe and stop requests. One slow or stuck client never delays another: a client whose replies pile up \
            unread (past 256 KiB) is dropped, and subscribers reconnect. It logs to stderr (--log-level). One runs at a \
            time (it holds control.lock). SIGINT, SIGTERM and `--stop` end it and remove its socket; a daemon that does \
            not answer --stop or --replace within 3 s is ended by a signal; a socket left by a killed daemon is taken over.
            """)

    @Flag(help: "End the running daemon (it removes its socket) and exit.") var stop = false
    @Flag(help: "End the running daemon, if any, and take its place.") var replace = false
    @Option(help: "What to log: trace, debug, info, notice, warning, error or critical.") var logLevel = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        if stop && replace { throw ValidationError("--stop and --replace do not go together") }
    }

    func run() throws {
        Sys.ignoreSIGPIPE()
        let directory = DaemonPaths.directory
        let path = DaemonPaths.socket
        var logger = Logger(label: "kbhost.serve") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        if stop {
            // Its lock names the pid to end: read only from a folder no one else may write (another user
            // made /tmp/kbhost-UID, wrote a victim's pid there and held the lock: SIGTERM went to that pid).
            guard (try? Sys.linkStatus(directory)) != nil else {
                throw exitWithError("no kbhost daemon answers on \(path)", status: Kbhost.Exit.refused)
            }
            guard DaemonPaths.isPrivate else {
                throw exitWithError("\(directory) \(DaemonPaths.notPrivate); kbhost serve --stop trusts nothing in it",
                                    status: Kbhost.Exit.refused)
            }
            guard let how = DaemonServer.end(path: path, lock: DaemonPaths.lock) else {
                throw exitWithError("no kbhost daemon answers on \(path)", status: Kbhost.Exit.refused)
            }
            return Console.out("stopped the daemon on \(path)\(how)")
        }
        do {
            try AtomicFile.makeDirectory(directory)
            // Made private through a descriptor of the folder itself, once it is known to be the user's own:
            // a chmod by path followed a link another user had put at /tmp/kbhost-UID to one of the user's
            // files or folders (twenty-third red team, E).
            AtomicFile.makePrivate(directory)
            guard DaemonPaths.isPrivate else {
                throw exitWithError("\(directory) \(DaemonPaths.notPrivate); kbhost serve will not listen there",
                                    status: Kbhost.Exit.refused)
            }
        } catch let error as SystemError { throw exitWithError("\(error)", status: Kbhost.Exit.refused) }
        // A signal before the socket exists ends the daemon with nothing to remove.
        FileIdentity.removeOnSignals(path, nil)
        // One daemon at a time: the lock says who runs (a daemon too old to take it still answers on the socket).
        var lock = try? InstanceLock.take(DaemonPaths.lock)
        if lock == nil || UnixSocket.answers(path) {
            guard replace else {
                let pid = InstanceLock.holder(DaemonPaths.lock).map { " (pid \($0))" } ?? ""
                throw exitWithError("a kbhost daemon\(pid) already listens on \(path) (`kbhost serve --replace` takes its place)",
                                    status: Kbhost.Exit.refused)
            }
            if let how = DaemonServer.end(path: path, lock: DaemonPaths.lock) { logger.info("ended the daemon that ran\(how)") }
            if lock == nil { lock = try? InstanceLock.take(DaemonPaths.lock, waitingAtMost: 5) }
            guard lock != nil, !UnixSocket.answers(path) else {
                throw exitWithError("the daemon on \(path) did not stop", status: Kbhost.Exit.refused)
            }
        }
        // The socket is made, and what it is recorded, with the ending signals held back: one that
        // comes meanwhile then removes it (a test that stopped a daemon as soon as its socket
        // existed once found it left behind).
        let made: Result<(Int32, FileIdentity?), SystemError> = FileIdentity.holdingSignals {
            Result { () throws(SystemError) -> (Int32, FileIdentity?) in
                let fd = try UnixSocket.listen(path)
                let identity = FileIdentity(path)
                FileIdentity.removeOnSignals(path, identity)
                return (fd, identity)
            }
        }
        guard case .success(let (listener, identity)) = made else {
            if case .failure(let error) = made { throw exitWithError("cannot listen on \(path): \(error)", status: Kbhost.Exit.refused) }
            return
        }
        logger.info("listening on \(path) for uid \(getuid()), pid \(getpid()) (settings in \(SettingsStore.defaultDirectory()))")
        var server = DaemonServer(listener: listener, path: path, identity: identity, logger: logger)
        withExtendedLifetime(lock) { server.run() }
    }
}
