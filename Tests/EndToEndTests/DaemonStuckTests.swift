import Foundation
import Glibc
import KBHost
import KBSystem
import Testing

/// A daemon that has stopped taking connections (suspended, or stuck) fills its listen
/// backlog after 64 of them, and a connect without a timeout then waits until it accepts:
/// `kbhost next` hung for good, and `attach` never started. Each test fills the backlog of a
/// suspended daemon and asks that the commands answer within a bound, and that nothing stays
/// frozen once the daemon resumes.
@Suite("kbhost serve: a daemon that takes no connections", .serialized)
struct DaemonStuckTests {
    /// Suspends the daemon and fills its backlog; returns the connections to close afterwards.
    static func suspendAndFill(_ d: DaemonTests.Daemon) throws -> HeldConnections {
        kill(d.process.processIdentifier, SIGSTOP)
        let waiting = try HeldConnections(to: d.socket, upTo: 1000, waiting: false)
        #expect(waiting.count < 1000, "the backlog filled (\(waiting.count) connections)")
        return waiting
    }

    @Test func aFullBacklogDelaysNextAtMostTwoSeconds() throws {
        let d = try DaemonTests.Daemon()
        _ = try d.kbhost("enable", "dev.kbhost.Calculator")
        let before = try SettingsStore(directory: d.w.home).load().current
        let waiting = try Self.suspendAndFill(d)
        defer {
            kill(d.process.processIdentifier, SIGCONT)
            waiting.close()
        }
        let p = Fixtures.kbhostProcess(["next"], environment: d.env.mapValues { $0 })
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        let start = Date()
        try p.run()
        let ended = DaemonTakeoverTests.ends(p, within: 15)
        #expect(ended, "kbhost next hung on a daemon whose backlog is full")
        if !ended { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        let elapsed = Date().timeIntervalSince(start)
        #expect(p.terminationStatus == 0 && elapsed < 6, "status \(p.terminationStatus) after \(elapsed) s")
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("did not answer within 2 s; the settings are saved"), "\(message)")
        #expect(try SettingsStore(directory: d.w.home).load().current != before, "the change is saved")
    }

    /// A suspended daemon still takes connections (the kernel completes them) but never
    /// answers: the globe key in `attach` waited 2 s for its answer before the next keyboard
    /// appeared. Now the session tells it without waiting, and the daemon, resumed, still
    /// hears of the change (its subscriber is told the new current keyboard).
    @Test func theGlobeKeyInAttachDoesNotWaitOnASuspendedDaemon() throws {
        let d = try DaemonTests.Daemon()
        _ = try d.kbhost("enable", "dev.kbhost.Calculator")
        _ = try d.kbhost("set", "dev.kbhost.NumberPad")
        let t = try PseudoTerminalSession(arguments: ["attach"], environment: d.env)
        defer { t.press([27]) }
        #expect(t.waitFor("Number Pad (dev.kbhost.NumberPad", seconds: 10))
        var subscriber = try d.connect()
        defer { Sys.close(subscriber.fd) }
        try subscriber.send(#"{"request":"subscribe","home":"\#(d.w.home)"}"#)
        let hello = try DaemonTests.receive(&subscriber, seconds: 10)
        #expect(hello?.contains("dev.kbhost.NumberPad") == true, "\(hello ?? "nothing")")
        kill(d.process.processIdentifier, SIGSTOP)
        var resumed = false
        defer { if !resumed { kill(d.process.processIdentifier, SIGCONT) } }
        let start = Date()
        t.press([7])  // Ctrl-G
        #expect(t.waitFor("Calculator (dev.kbhost.Calculator", seconds: 10), "the globe key switched")
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed < 1.5, "the globe key took \(elapsed) s beside a suspended daemon (it waited for its answer)")
        kill(d.process.processIdentifier, SIGCONT)
        resumed = true
        let event = try DaemonTests.receive(&subscriber, seconds: 10)
        #expect(event?.contains("dev.kbhost.Calculator") == true, "the resumed daemon was told, and tells its subscribers: \(event ?? "nothing")")
    }

    /// `attach` with such a daemon starts and types; once the daemon resumes, the session
    /// follows its news (nothing stays frozen).
    @Test func attachStartsBesideAStuckDaemonAndFollowsItOnceItResumes() throws {
        let d = try DaemonTests.Daemon()
        _ = try d.kbhost("enable", "dev.kbhost.Calculator")
        _ = try d.kbhost("set", "dev.kbhost.NumberPad")
        let waiting = try Self.suspendAndFill(d)
        var resumed = false
        defer {
            if !resumed { kill(d.process.processIdentifier, SIGCONT) }
            waiting.close()
        }
        let t = try PseudoTerminalSession(arguments: ["attach"], environment: d.env)
        #expect(t.waitFor("Number Pad (dev.kbhost.NumberPad", seconds: 10), "attach started beside a stuck daemon")
        t.type("7")
        #expect(t.waitFor("7", seconds: 5), "and typed")
        kill(d.process.processIdentifier, SIGCONT)
        resumed = true
        waiting.close()
        usleep(2_000_000)  // the daemon drains its backlog; the session, if it had none, subscribes within a second
        #expect(try d.kbhost("set", "dev.kbhost.Calculator").status == 0)
        #expect(t.waitFor("Calculator (dev.kbhost.Calculator", seconds: 10), "the session follows the resumed daemon's news")
        let next = try DaemonLoadTests.within(15, d, ["next"])
        #expect(next.status == 0 && next.elapsed < 5, "kbhost next: status \(next.status) after \(next.elapsed) s")
        t.press([27])
    }
}
