import Foundation
import Glibc
import KBHost
import KBSystem
import Testing

/// `kbhost serve` takes a fixed set of typed requests (reload, subscribe):
/// nothing that reaches its socket changes what a keyboard may do. Grants,
/// the budget, protection exceptions and enabling change only through the
/// user's own commands, which write the settings and then tell the daemon.
@Suite("kbhost serve: typed requests only", .serialized)
struct DaemonTests {
    /// A running daemon over a world with the bundled keyboards.
    final class Daemon {
        let w: World
        let env: [String: String]
        let process: Process
        var socket: String { w.root + "/run/control" }
        var settingsPath: String { w.home + "/settings.json" }

        init() throws {
            w = try World()
            env = ["KBHOST_HOME": w.home, "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!,
                   "KBHOST_RUNTIME_DIR": w.root + "/run"]
            #expect(try w.run(["enable", "dev.kbhost.NumberPad"], extraEnvironment: env).status == 0)
            process = Fixtures.kbhostProcess(["serve"], environment: env)
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Until it accepts: its socket file exists from bind, a moment before it listens (a loaded
            // machine once put a test's first connect in that moment).
            var waited = 0
            while waited < 500 {
                if let probe = UnixSocket.connect(socket) { Sys.close(probe); break }
                usleep(10_000)
                waited += 1
            }
        }

        deinit { process.terminate(); process.waitUntilExit() }

        func kbhost(_ arguments: String...) throws -> (status: Int32, out: String, err: String) {
            try w.run(arguments, extraEnvironment: env)
        }

        func connect() throws -> LineChannel { LineChannel(fd: try #require(UnixSocket.connect(socket))) }

        /// Sends one line on a new connection and returns the daemon's answer.
        func ask(_ object: [String: Any]) throws -> [String: Any] {
            var channel = try connect()
            defer { Sys.close(channel.fd) }
            try channel.send(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
            let line = try #require(try DaemonTests.receive(&channel, seconds: 10), "the daemon answers")
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// The next line within `seconds`, or nil.
    static func receive(_ channel: inout LineChannel, seconds: Double) throws -> String? {
        if !channel.hasBufferedLine {
            var pfd = pollfd(fd: channel.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(seconds * 1000)) == 1 else { return nil }
        }
        return try channel.receive()
    }

    @Test func oldStyleArgvRequestsAreRefusedAndChangeNothing() throws {
        let d = try Daemon()
        let home = d.w.home
        // Positive control: the socket is live and answers a legitimate request.
        var subscriber = try d.connect()
        defer { Sys.close(subscriber.fd) }
        try subscriber.send("{\"request\":\"subscribe\",\"home\":\"\(home)\"}")
        let hello = try #require(try Self.receive(&subscriber, seconds: 10))
        #expect(hello.contains("\"identifier\":\"dev.kbhost.System\""), "\(hello)")
        #expect(try d.ask(["request": "reload", "home": home])["ok"] as? Bool == true)

        let before = try Data(contentsOf: URL(fileURLWithPath: d.settingsPath))
        let hostile: [[String: Any]] = [
            ["argv": ["access", "dev.kbhost.Hostile", "on"], "home": home],
            ["argv": ["enable", "dev.kbhost.Hostile"], "home": home],
            ["argv": ["budget", "4096"], "home": home],
            ["argv": ["protection", "dev.kbhost.Hostile", "allow", "landlock-scope", "seccomp"], "home": home],
            ["argv": ["set", "dev.kbhost.NumberPad"], "home": home],
            ["argv": ["reset"], "home": home],
            ["request": "access", "argv": ["dev.kbhost.Hostile", "on"], "home": home],
            ["request": "argv", "home": home],
            ["subscribe": true, "argv": ["enable", "dev.kbhost.Hostile"], "home": home],
        ]
        for request in hostile {
            let reply = try d.ask(request)
            #expect(reply["ok"] == nil, "\(request) was carried out")
            let error = reply["error"] as? String ?? ""
            #expect(error.contains("the daemon takes only \"reload\", \"subscribe\" and \"stop\" requests"), "\(request): \(reply)")
        }
        // A reload that carries an argv re-reads the settings and runs nothing.
        #expect(try d.ask(["request": "reload", "argv": ["access", "dev.kbhost.Hostile", "on"], "home": home])["ok"] as? Bool == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: d.settingsPath)) == before, "settings.json is byte-identical")
        #expect(try Self.receive(&subscriber, seconds: 0.3) == nil, "no change was announced")
        // And the socket still answers after all that.
        #expect(try d.ask(["request": "reload", "home": home])["ok"] as? Bool == true)
    }

    @Test func theUsersOwnCommandsStillWorkWhileTheDaemonRunsAndItsSessionsSeeThem() throws {
        let d = try Daemon()
        var subscriber = try d.connect()
        defer { Sys.close(subscriber.fd) }
        try subscriber.send("{\"request\":\"subscribe\",\"home\":\"\(d.w.home)\"}")
        _ = try #require(try Self.receive(&subscriber, seconds: 10))

        #expect(try d.kbhost("access", "dev.kbhost.Hostile", "on").status == 0)
        #expect(try d.kbhost("enable", "dev.kbhost.Hostile").status == 0)
        #expect(try d.kbhost("budget", "64").out == "64 MiB\n")
        let settings = try SettingsStore(directory: d.w.home).load()
        #expect(settings.fullAccess == ["dev.kbhost.Hostile"])
        #expect(settings.enabled.contains("dev.kbhost.Hostile"))
        #expect(settings.memoryBudget == 64 << 20)
        #expect(try Self.receive(&subscriber, seconds: 0.3) == nil, "the current keyboard did not change")

        let set = try d.kbhost("set", "dev.kbhost.Hostile")
        #expect(set.status == 0, "\(set.err)")
        let event = try #require(try Self.receive(&subscriber, seconds: 10), "the daemon tells its sessions")
        #expect(event.contains("\"identifier\":\"dev.kbhost.Hostile\""), "\(event)")
        let row = try d.kbhost("list").out.split(separator: "\n").first { $0.contains("dev.kbhost.Hostile") }
        #expect(row?.contains(" granted ") == true, "\(row ?? "no row")")
        #expect(try d.kbhost("next").out == "dev.kbhost.System\n")
        #expect(try Self.receive(&subscriber, seconds: 10)?.contains("\"identifier\":\"dev.kbhost.System\"") == true)
    }
}
