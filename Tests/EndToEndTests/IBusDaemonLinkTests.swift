import Foundation
import Glibc
import KBHost
import KBSystem
import Testing

/// The IBus engine's link to `kbhost serve`: it never waits on the daemon. A daemon killed
/// with -9 and replaced by one that takes no connections (suspended, its backlog full) froze
/// the engine — and every key of every app through it — because it looked for a daemon with
/// a connect that had no timeout. Now keys go on, and once that daemon resumes the engine
/// follows the user's changes again.
@Suite("kbhost ibus: the engine never waits on the daemon", .serialized,
       .enabled(if: IBusWorld.missing.isEmpty, IBusWorld.skipNote))
struct IBusDaemonLinkTests {
    @Test func theEngineTypesBesideAStuckDaemonAndFollowsItOnceItResumes() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.NumberPad", "dev.kbhost.Calculator"], ["set", "dev.kbhost.NumberPad"]],
                                  serve: true)
        let app = try world.client()
        #expect(try app.send("type 12").text == "12")
        let first = try #require(world.serve)
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let socket = world.w.root + "/run/control"
        let stuck = Fixtures.kbhostProcess(["serve"], environment: world.env.mapValues { $0 })
        stuck.standardError = FileHandle.nullDevice
        try stuck.run()
        var fillers: HeldConnections?
        defer {
            kill(stuck.processIdentifier, SIGCONT)
            fillers?.close()
            stuck.terminate()
            stuck.waitUntilExit()
        }
        for _ in 0..<500 where !UnixSocket.answers(socket) { usleep(10_000) }
        kill(stuck.processIdentifier, SIGSTOP)
        fillers = try HeldConnections(to: socket, upTo: 1000, waiting: false)
        _ = try app.send("wait 2500")  // the engine looks for a daemon once a second
        let start = Date()
        let typed = try app.send("type 3")
        let elapsed = Date().timeIntervalSince(start)
        #expect(typed.text == "123" && elapsed < 5, "a key beside a stuck daemon: \(typed.text) after \(elapsed) s\n\(world.log)")
        let next = Fixtures.kbhostProcess(["next"], environment: world.env.mapValues { $0 })
        next.standardOutput = FileHandle.nullDevice
        next.standardError = FileHandle.nullDevice
        try next.run()
        let ended = DaemonTakeoverTests.ends(next, within: 15)
        if !ended { kill(next.processIdentifier, SIGKILL) }
        next.waitUntilExit()
        #expect(ended && next.terminationStatus == 0, "kbhost next beside a stuck daemon")

        kill(stuck.processIdentifier, SIGCONT)
        fillers?.close()
        _ = try app.send("wait 2000")  // it drains its backlog; the engine subscribes within a second
        #expect(try world.kbhost("set", "dev.kbhost.Calculator").status == 0)
        _ = try app.send("wait 500")
        #expect(try app.send("type 2+3=").text == "1235", "Calculator after the resumed daemon's news: 2+3= commits 5\n\(world.log)")
    }
}
