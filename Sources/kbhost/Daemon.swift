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

/// The requests and replies on the control socket, one JSON object per line.
struct DaemonRequest: Codable {
    var argv: [String]?
    var subscribe: Bool?
    /// The client's settings folder: a daemon serving another one declines.
    var home: String
}

struct DaemonReply: Codable {
    var status: Int32?
    var stdout: String?
    var stderr: String?
    /// The daemon serves another KBHOST_HOME: do it yourself.
    var declined: Bool?
    /// Sent to subscribers when the current keyboard changes.
    var event: String?
    var identifier: String?
    var name: String?
}

enum DaemonClient {
    /// Sends a command to a running daemon; nil when none runs (or it serves another home).
    static func forward(_ argv: [String]) -> Int32? {
        guard let fd = UnixSocket.connect(DaemonPaths.socket) else { return nil }
        defer { Sys.close(fd) }
        var channel = LineChannel(fd: fd)
        let request = DaemonRequest(argv: argv, home: SettingsStore.defaultDirectory())
        guard let line = try? String(decoding: JSONEncoder().encode(request), as: UTF8.self),
              (try? channel.send(line)) != nil,
              let replyLine = try? channel.receive(),
              let reply = try? JSONDecoder().decode(DaemonReply.self, from: Data(replyLine.utf8)),
              reply.declined != true, let status = reply.status else { return nil }
        if let out = reply.stdout, !out.isEmpty { FileHandle.standardOutput.write(Data(out.utf8)) }
        if let err = reply.stderr, !err.isEmpty { FileHandle.standardError.write(Data(err.utf8)) }
        return status
    }

    /// Subscribes to current-keyboard changes; the channel then receives event lines.
    static func subscribe() -> LineChannel? {
        guard let fd = UnixSocket.connect(DaemonPaths.socket) else { return nil }
        var channel = LineChannel(fd: fd)
        let request = DaemonRequest(subscribe: true, home: SettingsStore.defaultDirectory())
        guard let line = try? String(decoding: JSONEncoder().encode(request), as: UTF8.self),
              (try? channel.send(line)) != nil,
              let replyLine = try? channel.receive(),
              let reply = try? JSONDecoder().decode(DaemonReply.self, from: Data(replyLine.utf8)),
              reply.declined != true else {
            Sys.close(fd)
            return nil
        }
        return channel
    }
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the input manager as a daemon; commands go to it and a `next` reaches every attached session at once.",
        discussion: "It listens on KBHOST_RUNTIME_DIR/control (default $XDG_RUNTIME_DIR/kbhost/control), mode 0600, and answers only its own user.")

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
    let home = SettingsStore.defaultDirectory()

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
            return reply(DaemonReply(status: 64, stderr: "kbhost: error: malformed request\n"), to: fd)
        }
        guard request.home == home else { return reply(DaemonReply(declined: true), to: fd) }
        if request.subscribe == true {
            subscribers.insert(fd)
            return reply(currentEvent() ?? DaemonReply(event: "current"), to: fd)
        }
        guard let argv = request.argv, let first = argv.first, Kbhost.daemonCommands.contains(first) else {
            return reply(DaemonReply(status: 64, stderr: "kbhost: error: the daemon does not run that command\n"), to: fd)
        }
        let before = try? SettingsStore(directory: home).load().current
        Console.captured = ("", "")
        var status: Int32 = 0
        do {
            var command = try Kbhost.parseAsRoot(argv)
            try command.run()
        } catch {
            let message = Kbhost.fullMessage(for: error)
            if !message.isEmpty { Console.err(message) }
            status = Kbhost.exitCode(for: error).rawValue
        }
        let output = Console.captured!
        Console.captured = nil
        reply(DaemonReply(status: status, stdout: output.out, stderr: output.err), to: fd)
        let after = try? SettingsStore(directory: home).load().current
        if after != before, let event = currentEvent() {
            for subscriber in subscribers { reply(event, to: subscriber) }
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
