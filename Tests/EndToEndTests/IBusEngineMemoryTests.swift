import Foundation
import KBSystem
import Testing

/// The engine keeps a window of each field's text, not the text: a keyboard that typed 2 MiB
/// a key made the engine mirror all of it (third red team, F4: 3 → 147 MiB for 40 keys in an
/// app without surrounding text, 288 MiB with it).
@Suite("kbhost ibus: the engine's memory does not grow with the text typed", .serialized,
       .enabled(if: IBusWorld.missing.isEmpty, IBusWorld.skipNote))
struct IBusEngineMemoryTests {
    /// The engine process: the daemon's child running kbhost.
    static func engine(of world: IBusWorld) -> Int32? {
        let daemon = world.daemon.processIdentifier
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(Int32.init) ?? []
        return pids.first { pid in
            guard let fields = Fixtures.statFields(pid), fields.count > 1, Int32(fields[1]) == daemon else { return false }
            return ((try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "").contains("kbhost")
        }
    }

    static func anonymous(_ pid: Int32) -> Int { FootprintReader(pid: pid)?.read()?.anonymous ?? 0 }

    /// Types 2 MiB with one key, then 48 MiB more; returns the engine's RssAnon before the 48.
    static func typeFiftyMiB(_ app: IBusClient, _ world: IBusWorld) throws -> (pid: Int32, before: Int) {
        _ = try app.send("brief 40")
        // The control: one key typed, so the engine, its keyboard and its buffers are all warm.
        var s = try app.send("type 1!")
        #expect(s.length == 1 + (2 << 20), "\(s.text)… \(world.log)")
        let pid = try #require(engine(of: world), "the engine process")
        let before = anonymous(pid)
        // Six keys a command: each command has 30 s, and 24 keys of 2 MiB took 15 s on a quiet machine
        // (over 30 s in a CI run sharing the machine with a red team).
        for _ in 0..<4 { s = try app.send("type " + String(repeating: "!", count: 6)) }
        #expect(s.length == 1 + 25 * (2 << 20), "the app got every character")
        return (pid, before)
    }

    @Test func inAnAppWithoutSurroundingTextTheEngineKeepsAWindow() throws {
        let id = "dev.example.BigInsertOnKey"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "BigInsertOnKey")])
        let app = try world.client(surrounding: false)
        let (pid, before) = try Self.typeFiftyMiB(app, world)
        let after = Self.anonymous(pid)
        // Mirroring the text is 48 MiB or more; each key's 2 MiB only passes through (transients
        // of a few keys, under load, stay well below).
        #expect(after - before < 24 << 20, "the engine grew \((after - before) >> 20) MiB (\(before >> 20) → \(after >> 20)) for 48 MiB typed")
        #expect(try app.send("type 2").text.hasSuffix("cdef2"), "typing goes on where the text ends")
    }

    /// An app with surrounding text sends its whole text on every key. The engine cuts each
    /// report to a window in C, before Swift sees it, and the keyboard's document is that window:
    /// the echoes of 2 MiB commits are still told from the app's own changes. (What stays is
    /// IBus's: GDBus keeps a read buffer as large as the largest message; with a 26 MiB field the
    /// engine measured 18 → 134 MiB, and 35 MiB once the field held "x".)
    @Test func inAnAppWithSurroundingTextMegabyteReportsAreWindowsThatStillEcho() throws {
        let id = "dev.example.BigInsertOnKey"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "BigInsertOnKey")])
        let app = try world.client(surrounding: true)
        _ = try Self.typeFiftyMiB(app, world)
        var s = try app.send("type 2")
        #expect(s.text.hasSuffix("cdef2") && s.length == 2 + 25 * (2 << 20), "\(s.text) \(s.length ?? 0)")
        _ = try app.send("settext x")
        s = try app.send("type 2")
        #expect(s.text == "x2" && s.length == 2, "the app's own change reached the keyboard: \(s.text)")
    }
}
