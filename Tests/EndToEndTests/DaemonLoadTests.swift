import Foundation
import Glibc
import KBHost
import KBSystem
import Testing

/// One slow, stuck or hostile client never delays another: each test makes
/// the daemon's life hard, then asks that an ordinary `kbhost next` answers
/// within a bound (before, each of these froze it for good).
@Suite("kbhost serve under load: no client delays another", .serialized)
struct DaemonLoadTests {
    /// `kbhost ARGS` against the daemon, killed if it takes longer than `seconds`.
    static func within(_ seconds: Double, _ d: DaemonTests.Daemon, _ arguments: [String]) throws -> (status: Int32, elapsed: Double) {
        let p = Fixtures.kbhostProcess(arguments, environment: d.env.mapValues { $0 })
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        let start = Date()
        try p.run()
        while p.isRunning && Date().timeIntervalSince(start) < seconds { usleep(5_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        return (p.terminationStatus, Date().timeIntervalSince(start))
    }

    static func line(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object)) + [10]
    }

    /// Writes without SIGPIPE; false once the other end is gone.
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// True if the daemon closed this connection within `seconds`, seen without reading from it.
    static func hungUp(_ fd: Int32, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: 0, revents: 0)
            if poll(&pfd, 1, 200) > 0, pfd.revents & Int16(POLLHUP) != 0 { return true }
        }
        return false
    }

    /// True if the daemon closed this connection within `seconds`.
    static func closed(_ fd: Int32, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return true }
        }
        return false
    }

    /// 30,000 reload requests from a client that reads every reply: each sends every subscriber
    /// that asked for settings events one, more than one that stopped reading may leave unread.
    static func reloadThirtyThousandTimes(_ d: DaemonTests.Daemon) throws {
        let busy = try #require(UnixSocket.connect(d.socket))
        defer { Sys.close(busy) }
        let reload = try Self.line(["request": "reload", "home": d.w.home])
        var replies = LineChannel(fd: busy)
        for _ in 0..<30 {
            #expect(Self.write(busy, Array([[UInt8]](repeating: reload, count: 1000).joined())))
            for _ in 0..<1000 where try DaemonTests.receive(&replies, seconds: 10) == nil {
                Issue.record("the daemon stopped answering reloads (frozen)")
                return
            }
        }
    }

    @Test func aClientThatNeverReadsItsRepliesIsDropped() throws {
        let d = try DaemonTests.Daemon()
        let greedy = try #require(UnixSocket.connect(d.socket))
        let reload = try Self.line(["request": "reload", "home": d.w.home])
        // 40,000 requests and not one reply read: ~1 MB of answers pile up at the daemon.
        let finished = DispatchSemaphore(value: 0)
        let writer = Thread {
            for _ in 0..<40 where Self.write(greedy, Array([[UInt8]](repeating: reload, count: 1000).joined())) {}
            finished.signal()
        }
        // The writer must be done before the descriptor is closed: a number closed under a writing
        // thread is soon another test's worker socket, which would then receive this JSON.
        defer {
            shutdown(greedy, Int32(SHUT_RDWR))
            finished.wait()
            Sys.close(greedy)
        }
        writer.start()
        usleep(500_000)
        let next = try Self.within(10, d, ["next"])
        #expect(next.status == 0)
        #expect(next.elapsed < 5, "kbhost next answered in \(next.elapsed) s")
        #expect(Self.hungUp(greedy, seconds: 10), "the client that did not read was dropped")
    }

    @Test func aSubscriberThatStopsReadingIsDroppedAndOthersGoOn() throws {
        let d = try DaemonTests.Daemon()
        // A suspended `attach`: subscribed (with settings events), never reads again.
        let stuck = try #require(UnixSocket.connect(d.socket))
        defer { Sys.close(stuck) }
        #expect(Self.write(stuck, try Self.line(["request": "subscribe", "home": d.w.home, "settings": true])))
        var healthy = try d.connect()
        try healthy.send(String(decoding: try Self.line(["request": "subscribe", "home": d.w.home]).dropLast(), as: UTF8.self))
        #expect(try DaemonTests.receive(&healthy, seconds: 5) != nil)
        // Every reload sends the stuck one a settings event; 30,000 of them overflow what it may leave unread.
        try Self.reloadThirtyThousandTimes(d)
        let next = try Self.within(10, d, ["next"])
        #expect(next.status == 0)
        #expect(next.elapsed < 5, "kbhost next answered in \(next.elapsed) s")
        let event = try DaemonTests.receive(&healthy, seconds: 5)
        #expect(event?.contains("\"current\"") == true, "a subscriber that reads still hears of the change")
        #expect(Self.hungUp(stuck, seconds: 10), "the stuck subscriber was dropped")
    }

    @Test func fiveHundredClientsAtOnce() throws {
        let d = try DaemonTests.Daemon()
        let idle = try HeldConnections(to: d.socket, upTo: 500)
        defer { idle.close() }
        #expect(idle.count == 500)
        let next = try Self.within(10, d, ["next"])
        #expect(next.status == 0)
        #expect(next.elapsed < 5, "kbhost next answered in \(next.elapsed) s with 500 idle clients")
    }

    @Test func sigtermStopAndReplaceLeaveNoSocketBehind() throws {
        let d = try DaemonTests.Daemon()
        kill(d.process.processIdentifier, SIGTERM)
        d.process.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: d.socket), "SIGTERM removes the socket")

        let first = Fixtures.kbhostProcess(["serve"], environment: d.env.mapValues { $0 })
        first.standardError = FileHandle.nullDevice
        try first.run()
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: d.socket) { usleep(10_000) }
        let replace = Fixtures.kbhostProcess(["serve", "--replace"], environment: d.env.mapValues { $0 })
        replace.standardError = FileHandle.nullDevice
        try replace.run()
        first.waitUntilExit()
        #expect(first.terminationStatus == 0, "--replace ended the running daemon")
        usleep(300_000)
        #expect(replace.isRunning, "and took its place")
        let stop = try d.kbhost("serve", "--stop")
        #expect(stop.status == 0, "\(stop.err)")
        replace.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: d.socket), "--stop removes the socket")
        #expect(try d.kbhost("serve", "--stop").status == 7, "nothing left to stop")
    }

    @Test func anAttachedSessionReconnectsWhenTheDaemonComesBack() throws {
        let d = try DaemonTests.Daemon()
        _ = try d.kbhost("enable", "dev.kbhost.Calculator")
        _ = try d.kbhost("set", "dev.kbhost.NumberPad")
        let t = try PseudoTerminalSession(arguments: ["attach"], environment: d.env)
        #expect(t.waitFor("Number Pad (dev.kbhost.NumberPad"))
        kill(d.process.processIdentifier, SIGKILL)  // no clean exit: the socket file stays
        d.process.waitUntilExit()
        #expect(t.waitFor("the daemon went away"))
        let again = Fixtures.kbhostProcess(["serve"], environment: d.env.mapValues { $0 })
        again.standardError = FileHandle.nullDevice
        try again.run()
        defer { again.terminate(); again.waitUntilExit() }
        usleep(1_500_000)  // the session looks once a second
        #expect(try d.kbhost("set", "dev.kbhost.Calculator").status == 0)
        #expect(t.waitFor("Calculator (dev.kbhost.Calculator", seconds: 5), "the session follows the new daemon's news")
        let next = try Self.within(15, d, ["next"])
        #expect(next.status == 0 && next.elapsed < 5, "kbhost next after the restart: status \(next.status) after \(next.elapsed) s")
        t.press([27])
    }
}
