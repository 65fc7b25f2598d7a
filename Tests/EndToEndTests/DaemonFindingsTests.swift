import Foundation
import Glibc
import KBHost
import KBSystem
import Testing

/// Issue 14's daemon findings not held by DaemonLoadTests: its socket was left behind on
/// SIGINT (and SIGHUP); a daemon that does not answer made every `kbhost next` hang with no
/// timeout; a suspended `attach` froze it and it stayed frozen after the attach resumed; and
/// it logged nothing. Each test fails on the daemon the issue describes.
@Suite("kbhost serve: signals, a stuck daemon, a suspended attach, its log", .serialized)
struct DaemonFindingsTests {
    @Test(arguments: [SIGINT, SIGHUP])
    func aSignalRemovesTheSocket(signal: Int32) throws {
        let d = try DaemonTests.Daemon()
        #expect(FileManager.default.fileExists(atPath: d.socket), "the daemon listens")
        kill(d.process.processIdentifier, signal)
        d.process.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: d.socket), "signal \(signal) left the socket behind")
        // And the next daemon starts on the same path (no stale socket to take over).
        let r = try DaemonLoadTests.within(10, d, ["next"])
        #expect(r.status == 0 && r.elapsed < 5)
    }

    /// A daemon that is there but never answers (stopped, as by Ctrl-Z): `kbhost next` still
    /// answers within a bound, saves the settings, and says the daemon did not answer.
    @Test func aDaemonThatDoesNotAnswerDelaysACommandAtMostTwoSeconds() throws {
        let d = try DaemonTests.Daemon()
        _ = try d.kbhost("enable", "dev.kbhost.Calculator")
        let before = try SettingsStore(directory: d.w.home).load().current
        kill(d.process.processIdentifier, SIGSTOP)
        defer { kill(d.process.processIdentifier, SIGCONT) }
        let start = Date()
        let p = Fixtures.kbhostProcess(["next"], environment: d.env.mapValues { $0 })
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        while p.isRunning && Date().timeIntervalSince(start) < 15 { usleep(10_000) }
        let hung = p.isRunning
        if hung { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        let elapsed = Date().timeIntervalSince(start)
        #expect(!hung, "kbhost next hung on a daemon that does not answer")
        #expect(p.terminationStatus == 0 && elapsed < 6, "status \(p.terminationStatus) after \(elapsed) s")
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("did not answer within 2 s; the settings are saved"), "\(message)")
        #expect(try SettingsStore(directory: d.w.home).load().current != before, "the change is saved")
    }

    /// `kbhost attach` suspended (Ctrl-Z) froze the daemon after ~280 `next`s, and it stayed
    /// frozen after the attach resumed. Now the suspended one is dropped when it falls behind,
    /// others go on, and once resumed it subscribes again and follows the next change.
    @Test func aSuspendedAttachIsDroppedAndFollowsAgainOnceResumed() throws {
        let d = try DaemonTests.Daemon()
        _ = try d.kbhost("enable", "dev.kbhost.Calculator")
        _ = try d.kbhost("set", "dev.kbhost.NumberPad")
        let t = try PseudoTerminalSession(arguments: ["attach"], environment: d.env)
        #expect(t.waitFor("Number Pad (dev.kbhost.NumberPad"))
        kill(t.process.processIdentifier, SIGSTOP)
        var resumed = false
        defer { if !resumed { kill(t.process.processIdentifier, SIGCONT) } }
        // Every reload sends the attach (subscribed with settings) an event it does not read.
        try DaemonLoadTests.reloadThirtyThousandTimes(d)
        let next = try DaemonLoadTests.within(10, d, ["next"])
        #expect(next.status == 0 && next.elapsed < 5, "kbhost next: status \(next.status) after \(next.elapsed) s")
        kill(t.process.processIdentifier, SIGCONT)
        resumed = true
        usleep(2_000_000)  // it reads what was queued, sees the daemon hang up, and subscribes again within a second
        // `next` left Calculator or the system keyboard current: NumberPad is a change, and what the
        // attach queued before it was dropped is drawn before NumberPad is; Calculator after it is news.
        #expect(try d.kbhost("set", "dev.kbhost.NumberPad").status == 0)
        #expect(t.waitFor("Number Pad (dev.kbhost.NumberPad", seconds: 10), "the resumed attach hears of the change")
        #expect(try d.kbhost("set", "dev.kbhost.Calculator").status == 0)
        #expect(t.waitFor("Calculator (dev.kbhost.Calculator", seconds: 10), "the resumed attach follows the daemon's news again")
        t.press([27])
    }

    /// Replaces the fixture's daemon with one at `level` whose standard error is kept, runs `body`,
    /// stops it with `serve --stop`, and returns what it logged.
    static func logged(_ d: DaemonTests.Daemon, level: String?, _ body: (Process) throws -> Void) throws -> String {
        // The fixture's daemon is replaced by one whose log is kept.
        kill(d.process.processIdentifier, SIGTERM)
        d.process.waitUntilExit()
        let log = d.w.root + "/serve.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let serve = Fixtures.kbhostProcess(["serve"] + (level.map { ["--log-level", $0] } ?? []), environment: d.env.mapValues { $0 })
        serve.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try serve.run()
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL); serve.waitUntilExit() } }  // a failed check leaves none
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: d.socket) { usleep(10_000) }
        try body(serve)
        #expect(try d.kbhost("serve", "--stop").status == 0)
        for _ in 0..<1000 where serve.isRunning { usleep(10_000) }
        #expect(!serve.isRunning, "serve --stop did not stop it within 10 s")
        return try String(contentsOfFile: log, encoding: .utf8)
    }

    /// It logged nothing: now where it listens, who subscribed, every change of the current
    /// keyboard, every client it drops, and that it stopped.
    @Test func theDaemonLogsWhatItDid() throws {
        let d = try DaemonTests.Daemon()
        _ = try d.kbhost("enable", "dev.kbhost.Calculator")
        let log = try Self.logged(d, level: nil) { _ throws in
            var subscriber = try d.connect()
            defer { Sys.close(subscriber.fd) }
            try subscriber.send(String(decoding: try DaemonLoadTests.line(["request": "subscribe", "home": d.w.home]).dropLast(), as: UTF8.self))
            #expect(try DaemonTests.receive(&subscriber, seconds: 5) != nil)
            #expect(try d.kbhost("next").status == 0)
            // A request the daemon does not take (refused, logged), then a line past 1 MiB (the client dropped).
            let stranger = try #require(UnixSocket.connect(d.socket))
            defer { Sys.close(stranger) }
            UnixSocket.setTimeout(stranger, milliseconds: 5000)  // a daemon that never reads must not hang the test
            #expect(DaemonLoadTests.write(stranger, Array("{\"request\":\"grant\",\"everything\":true}\n".utf8)))
            _ = DaemonLoadTests.write(stranger, [UInt8](repeating: UInt8(ascii: "x"), count: (1 << 20) + 4096))
            #expect(DaemonLoadTests.closed(stranger, seconds: 5))
        }
        for line in ["info", "listening on \(d.socket)", "subscribed", "current keyboard: ", "refused a request", "dropped client",
                     "asked to stop", "stopped; removed \(d.socket)"] {
            #expect(log.contains(line), "no '\(line)' in the log:\n\(log)")
        }
    }

    @Test func theLogLevelIsHeardAndCheckedFirst() throws {
        let d = try DaemonTests.Daemon()
        let quiet = try Self.logged(d, level: "warning") { _ throws in #expect(try d.kbhost("next").status == 0) }
        #expect(!quiet.contains("listening on") && !quiet.contains("current keyboard"), "\(quiet)")
        let wrong = try d.kbhost("serve", "--log-level", "loud")
        #expect(wrong.status != 0 && wrong.err.contains("--log-level must be one of"), "\(wrong.err)")
    }
}
