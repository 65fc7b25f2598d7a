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
    private static func request(_ kind: DaemonRequest.Kind, settings: Bool? = nil,
                                timeout: Int = timeoutMilliseconds) -> (LineChannel, DaemonReply)? {
        guard ProcessInfo.processInfo.environment["KBHOST_NO_DAEMON"] == nil,
              let fd = UnixSocket.connect(DaemonPaths.socket) else { return nil }
        UnixSocket.setTimeout(fd, milliseconds: timeout)
        var channel = LineChannel(fd: fd)
        let request = DaemonRequest(request: kind, home: SettingsStore.defaultDirectory(), settings: settings)
        guard let line = try? String(decoding: JSONEncoder().encode(request), as: UTF8.self) else { return nil }
        let replyLine: String?
        do {
            try channel.send(line)
            replyLine = try channel.receive()
        } catch {
            Sys.close(fd)
            Console.err("kbhost: warning: the daemon on \(DaemonPaths.socket) did not answer within \(timeout / 1000) s; "
                        + "the settings are saved, and attached sessions see the change when it answers again")
            return nil
        }
        guard let replyLine, let reply = try? JSONDecoder().decode(DaemonReply.self, from: Data(replyLine.utf8)),
              reply.ok == true || reply.event != nil else {  // declined, refused, or an older daemon
            Sys.close(fd)
            return nil
        }
        if kind == .subscribe { UnixSocket.setTimeout(fd, milliseconds: 0) }  // events come when they come
        return (channel, reply)
    }

    /// Tells a running daemon the settings changed; false if none is running.
    @discardableResult
    static func notify() -> Bool {
        guard let (channel, _) = request(.reload) else { return false }
        Sys.close(channel.fd)
        return true
    }

    /// Subscribes to current-keyboard changes; the channel then receives event lines.
    static func subscribe() -> LineChannel? {
        request(.subscribe, settings: true)?.0
    }

    /// Asks a running daemon to end; false if none answered.
    static func stop() -> Bool {
        guard let (channel, _) = request(.stop, timeout: 10_000) else { return false }  // asked for: worth waiting
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
            unread (past 256 KiB) is dropped, and subscribers reconnect. It logs to stderr (--log-level). SIGINT, SIGTERM \
            and `--stop` end it and remove its socket; a socket left by a killed daemon is taken over.
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
        if stop {
            guard DaemonClient.stop() else { throw exitWithError("no kbhost daemon answers on \(path)", status: Kbhost.Exit.refused) }
            DaemonServer.waitUntilGone(path)
            return Console.out("stopped the daemon on \(path)")
        }
        if let fd = UnixSocket.connect(path) {
            Sys.close(fd)
            guard replace else {
                throw exitWithError("a kbhost daemon already listens on \(path) (`kbhost serve --replace` takes its place)",
                                    status: Kbhost.Exit.refused)
            }
            _ = DaemonClient.stop()
            guard DaemonServer.waitUntilGone(path) else {
                throw exitWithError("the daemon on \(path) did not stop within 5 s", status: Kbhost.Exit.refused)
            }
        }
        do {
            try AtomicFile.makeDirectory(directory)
            try? Sys.changeMode(directory, 0o700)
        } catch { throw exitWithError("\(error)", status: Kbhost.Exit.refused) }
        // The handlers first: a SIGTERM just after the socket appears must still remove it
        // (a test that stopped a daemon as soon as its socket existed found it left behind).
        DaemonServer.removeSocketOnSignals(path)
        let listener: Int32
        do { listener = try UnixSocket.listen(path) } catch {
            throw exitWithError("cannot listen on \(path): \(error)", status: Kbhost.Exit.refused)
        }
        var logger = Logger(label: "kbhost.serve") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        logger.info("listening on \(path) for uid \(getuid()) (settings in \(SettingsStore.defaultDirectory()))")
        var server = DaemonServer(listener: listener, path: path, logger: logger)
        server.run()
    }
}
