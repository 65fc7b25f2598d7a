import ArgumentParser
import Foundation
import Glibc
import KBHost
import KBSystem

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
        DaemonReply(error: "\(why); the daemon takes only \(DaemonRequest.Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " and ")) requests — settings change only through your own kbhost commands")
    }
}

enum DaemonClient {
    /// Sends one request to a running daemon and returns its first reply and
    /// the open channel; nil when none runs, it serves another home, or it refused.
    private static func request(_ kind: DaemonRequest.Kind, settings: Bool? = nil) -> (LineChannel, DaemonReply)? {
        guard ProcessInfo.processInfo.environment["KBHOST_NO_DAEMON"] == nil,
              let fd = UnixSocket.connect(DaemonPaths.socket) else { return nil }
        var channel = LineChannel(fd: fd)
        let request = DaemonRequest(request: kind, home: SettingsStore.defaultDirectory(), settings: settings)
        guard let line = try? String(decoding: JSONEncoder().encode(request), as: UTF8.self),
              (try? channel.send(line)) != nil,
              let replyLine = try? channel.receive(),
              let reply = try? JSONDecoder().decode(DaemonReply.self, from: Data(replyLine.utf8)),
              reply.ok == true || reply.event != nil else {  // declined, refused, or an older daemon
            Sys.close(fd)
            return nil
        }
        return (channel, reply)
    }

    /// Tells a running daemon that the settings changed (it re-reads them and
    /// tells attached sessions); returns once it has. False when none runs.
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
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the input manager as a daemon: a `next` or `set` reaches every attached session at once.",
        discussion: """
            It listens on KBHOST_RUNTIME_DIR/control (default $XDG_RUNTIME_DIR/kbhost/control), mode 0600, and answers only \
            its own user. Commands change the settings themselves and then tell it to re-read them; it takes only reload and \
            subscribe requests.
            """)

    func run() throws {
        Sys.ignoreSIGPIPE()
        let directory = DaemonPaths.directory
        let path = DaemonPaths.socket
        if let fd = UnixSocket.connect(path) {
            Sys.close(fd)
            throw exitWithError("a kbhost daemon already listens on \(path)", status: Kbhost.Exit.refused)
        }
        do {
            try AtomicFile.makeDirectory(directory)
            chmod(directory, 0o700)
        } catch { throw exitWithError("\(error)", status: Kbhost.Exit.refused) }
        let listener: Int32
        do { listener = try UnixSocket.listen(path) } catch {
            throw exitWithError("cannot listen on \(path): \(error)", status: Kbhost.Exit.refused)
        }
        Console.err("kbhost serve: listening on \(path) for uid \(getuid()) (settings in \(SettingsStore.defaultDirectory()))")
        var server = DaemonServer(listener: listener)
        server.run()
    }
}

/// One thread, poll over the listener and the clients; requests are handled in order.
struct DaemonServer {
    let listener: Int32
    var clients: [Int32: [UInt8]] = [:]
    var subscribers: Swift.Set<Int32> = []
    /// Subscribers that also hear of every settings change.
    var settingsSubscribers: Swift.Set<Int32> = []
    let home = SettingsStore.defaultDirectory()
    /// The current keyboard as of the last reload: subscribers hear of changes to it.
    var current: String?

    init(listener: Int32) {
        self.listener = listener
        current = try? SettingsStore(directory: home).load().current
    }

    mutating func run() {
        while true {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            fds += clients.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard (try? Sys.poll(&fds, timeoutMilliseconds: -1)) != nil else { continue }
            if fds[0].revents != 0, let client = UnixSocket.accept(listener) {
                if UnixSocket.peerUID(client) == getuid() { clients[client] = [] } else { Sys.close(client) }
            }
            for entry in fds.dropFirst() where entry.revents != 0 { serve(entry.fd) }
        }
    }

    mutating func drop(_ fd: Int32) {
        clients[fd] = nil
        subscribers.remove(fd)
        settingsSubscribers.remove(fd)
        Sys.close(fd)
    }

    mutating func serve(_ fd: Int32) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return drop(fd) }
        clients[fd, default: []].append(contentsOf: chunk[..<n])
        while let newline = clients[fd]?.firstIndex(of: 10) {
            let line = Array(clients[fd]![..<newline])
            clients[fd]!.removeSubrange(...newline)
            handle(line, from: fd)
        }
        if (clients[fd]?.count ?? 0) > LineChannel.maximumLine { drop(fd) }
    }

    mutating func handle(_ line: [UInt8], from fd: Int32) {
        guard let request = try? JSONDecoder().decode(DaemonRequest.self, from: Data(line)) else {
            Console.err("kbhost serve: refused a request that is neither reload nor subscribe (\(line.count) bytes)")
            return reply(.refusal("not a request the daemon takes"), to: fd)
        }
        guard request.home == home else { return reply(DaemonReply(declined: true), to: fd) }
        switch request.request {
        case .subscribe:
            subscribers.insert(fd)
            if request.settings == true { settingsSubscribers.insert(fd) }
            reply(currentEvent() ?? DaemonReply(event: "current"), to: fd)
        case .reload:
            let now = try? SettingsStore(directory: home).load().current
            if let now, now != current, let event = currentEvent() {
                for subscriber in subscribers { reply(event, to: subscriber) }
            }
            for subscriber in settingsSubscribers { reply(DaemonReply(event: "settings"), to: subscriber) }
            if let now { current = now }
            reply(DaemonReply(ok: true), to: fd)
        }
    }

    func currentEvent() -> DaemonReply? {
        guard let settings = try? SettingsStore(directory: home).load() else { return nil }
        let name = (try? Context.make())?.name(settings.current) ?? settings.current
        return DaemonReply(event: "current", identifier: settings.current, name: name)
    }

    func reply(_ reply: DaemonReply, to fd: Int32) {
        guard let data = try? JSONEncoder().encode(reply) else { return }
        _ = try? Sys.sendAll(fd, Array(data) + [10])
    }
}
