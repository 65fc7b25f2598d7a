import Foundation
import Glibc
import KBHost
import KBSystem
import Testing

/// `kbhost attach` in a real pseudo-terminal.
final class PseudoTerminalSession {
    let master: Int32
    let process = Process()
    private(set) var screen = ""

    init(arguments: [String], environment: [String: String], rows: UInt16 = 30) throws {
        let pty = try Terminal.openPseudoTerminal()
        master = pty.master
        let name = pty.slavePath
        var size = winsize(ws_row: rows, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let slave = open(name, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXError(.EIO) }
        // Not closed on dealloc: Process may close the descriptors it was given, and a second
        // close could hit a number another test's worker socket has reused meanwhile.
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.executableURL = URL(fileURLWithPath: Fixtures.installation.productsDirectory + "/kbhost")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(master)
    }

    func type(_ text: String) { _ = text.withCString { write(master, $0, strlen($0)) } }
    func press(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) } }

    /// Reads the terminal until `text` has appeared since the last wait, or a timeout.
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var fresh = ""
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if n > 0 {
                let chunk = String(decoding: buffer[..<n], as: UTF8.self)
                fresh += chunk
                screen += chunk
                if fresh.contains(text) { return true }
            } else {
                usleep(10_000)
            }
        }
        return false
    }
}

@Suite("kbhost attach in a pseudo-terminal", .serialized)
struct AttachTests {
    static let caret = "\u{1B}[1m│"

    @Test func typesThroughAKeyboardMovesTheCursorAndSwitchesWithTheGlobeKey() throws {
        let w = try World()
        let env = ["KBHOST_HOME": w.home, "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!,
                   "KBHOST_RUNTIME_DIR": w.root + "/run"]
        _ = try w.run(["enable", "dev.kbhost.NumberPad", "dev.kbhost.Calculator"], extraEnvironment: env)
        _ = try w.run(["set", "dev.kbhost.NumberPad"], extraEnvironment: env)
        let t = try PseudoTerminalSession(arguments: ["attach"], environment: env)
        #expect(t.waitFor("Number Pad (dev.kbhost.NumberPad"))
        t.type("123")
        #expect(t.waitFor("123" + Self.caret))
        t.press([127])  // Backspace taps the delete key
        #expect(t.waitFor("12" + Self.caret))
        t.press([27, 91, 68])  // ← moves the cursor
        #expect(t.waitFor("1" + Self.caret))
        t.type("9")
        #expect(t.waitFor("19" + Self.caret))
        t.press([7])  // Ctrl-G: the globe key
        #expect(t.waitFor("Calculator (dev.kbhost.Calculator"))
        t.type("7+8=")
        #expect(t.waitFor("1915" + Self.caret), "the calculator's result lands in the same document")
        t.press([27])
        t.process.waitUntilExit()
        #expect(t.process.terminationStatus == 0)
        #expect(t.waitFor("\u{1B}[?25h\u{1B}[0m", seconds: 3), "the terminal is restored on the way out")
        #expect(try w.run(["current"], extraEnvironment: env).out == "dev.kbhost.Calculator\n", "the globe key changed the settings")
    }

    @Test func aNextThroughTheDaemonReachesTheAttachedSessionAtOnce() throws {
        let w = try World()
        let env = ["KBHOST_HOME": w.home, "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!,
                   "KBHOST_RUNTIME_DIR": w.root + "/run"]
        _ = try w.run(["enable", "dev.kbhost.NumberPad"], extraEnvironment: env)
        let daemon = Fixtures.kbhostProcess(["serve"], environment: env)
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer { daemon.terminate(); daemon.waitUntilExit() }
        var waited = 0
        while !FileManager.default.fileExists(atPath: w.root + "/run/control") && waited < 500 { usleep(10_000); waited += 1 }

        let t = try PseudoTerminalSession(arguments: ["attach"], environment: env)
        #expect(t.waitFor("System (dev.kbhost.System"))
        let r = try w.run(["next"], extraEnvironment: env)
        #expect(r.out == "dev.kbhost.NumberPad\n")
        #expect(t.waitFor("Number Pad (dev.kbhost.NumberPad"), "pushed by the daemon, no key pressed")
        t.type("42")
        #expect(t.waitFor("42" + Self.caret))
        t.press([3])  // Ctrl-C quits too
        t.process.waitUntilExit()
        #expect(t.process.terminationStatus == 0)
    }

    @Test func attachWithoutATerminalIsAClearError() throws {
        let w = try World()
        let r = try w.kbhost("attach")
        #expect(r.status == 7)
        #expect(r.err.contains("needs a terminal"))
    }
}

@Suite("attach reads keys, reaches every key, keeps secrets", .serialized)
struct AttachInputTests {
    func world(_ keyboards: String...) throws -> (World, [String: String]) {
        let w = try World()
        let env = ["KBHOST_HOME": w.home, "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!,
                   "KBHOST_RUNTIME_DIR": w.root + "/run"]
        _ = try w.run(["enable"] + keyboards, extraEnvironment: env)
        _ = try w.run(["set", keyboards[0]], extraEnvironment: env)
        return (w, env)
    }

    @Test func aPasteTypesEveryCharacterThroughTheKeyboard() throws {
        let (w, env) = try world("dev.kbhost.English")
        defer { withExtendedLifetime(w) {} }
        let t = try PseudoTerminalSession(arguments: ["attach"], environment: env)
        #expect(t.waitFor("English (dev.kbhost.English"))
        t.type("we are here")  // one write: the terminal delivers it in one read
        #expect(t.waitFor("e are here" + AttachTests.caret), "the spaces survive a batch")
        t.press([127, 127, 27, 91, 68])  // two Backspaces and ← in one read
        #expect(t.waitFor("e are h" + AttachTests.caret))
        t.press([27])
    }

    /// A layout taller than the terminal: the rows that fit are drawn, and kbhost's header (the
    /// keyboard's name, pid and footprint) and the document stay on the screen (twelfth red team,
    /// N4: drawn whole, they scrolled off). The hostile keyboard has some twenty rows; the terminal 14.
    @Test func aLayoutTallerThanTheTerminalKeepsTheHeaderOnTheScreen() throws {
        let (w, env) = try world("dev.kbhost.Hostile")
        defer { withExtendedLifetime(w) {} }
        let t = try PseudoTerminalSession(arguments: ["attach"], environment: env, rows: 14)
        #expect(t.waitFor("more rows (Tab reaches their keys)"))
        t.press([27])
        t.process.waitUntilExit()
        let frame = try #require(t.screen.components(separatedBy: "\u{1B}[H\u{1B}[2J").last { $0.contains("more rows") })
        // (The terminal turns each newline into CR LF.)
        let lines = frame.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count <= 14, "the frame fits the terminal: \(lines.count) lines")
        #expect(lines.first?.contains("kbhost attach — Hostile (dev.kbhost.Hostile") == true, "the header first: \(frame)")
    }

    @Test func tabReachesAnyKeyAndEnterTapsIt() throws {
        let (w, env) = try world("dev.kbhost.NumberPad")
        defer { withExtendedLifetime(w) {} }
        let t = try PseudoTerminalSession(arguments: ["attach"], environment: env)
        #expect(t.waitFor("Number Pad (dev.kbhost.NumberPad"))
        t.press([9, 9, 9])  // Tab ×3: 1, 2, 3
        #expect(t.waitFor("\u{1B}[7m[3]"), "the highlighted key in reverse video")
        t.press([13])
        #expect(t.waitFor("3" + AttachTests.caret), "Enter tapped the highlighted key")
        t.press([27, 91, 90])  // Shift-Tab: back to 2
        t.press([13])
        #expect(t.waitFor("32" + AttachTests.caret))
        t.press([27])  // Esc drops the highlight…
        #expect(t.waitFor("Tab reaches any key"))
        t.press([27])  // …and then quits
        t.process.waitUntilExit()
    }

    @Test func aSecureFieldIsMaskedAndTheGlobeKeyLeavesTheUsersKeyboardAlone() throws {
        let (w, env) = try world("dev.kbhost.NumberPad", "dev.kbhost.Calculator")
        let t = try PseudoTerminalSession(arguments: ["attach", "--secure"], environment: env)
        #expect(t.waitFor("System"))
        t.type("pw1")
        #expect(t.waitFor("•••" + AttachTests.caret), "the password is not shown")
        #expect(!t.screen.contains("pw1"))
        t.press([7])  // Ctrl-G in a password field
        usleep(300_000)
        t.press([27])
        t.process.waitUntilExit()
        #expect(try w.run(["current"], extraEnvironment: env).out == "dev.kbhost.NumberPad\n", "the user's current keyboard stays")
    }
}

@Suite("attach falls back when a keyboard fails", .serialized)
struct AttachFallbackTests {
    /// A world with one fault keyboard installed as a bundle, and the environment attach runs in.
    func world(installing id: String, principal: String, name: String) throws -> (w: World, env: [String: String]) {
        let w = try World()
        let bundle = try w.makeBundle(id: id, library: "libFaultKeyboards.so", principal: principal, name: name)
        let env = ["KBHOST_HOME": w.home, "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!,
                   "KBHOST_RUNTIME_DIR": w.root + "/run"]
        #expect(try w.run(["install", bundle], extraEnvironment: env).status == 0)
        return (w, env)
    }

    /// attach keeps a window of the field's text around the cursor, and shows the part near the
    /// caret: a keyboard inserting 2 MiB a key grew attach by as much a key, outside any budget
    /// (fifth red team, R5-6), and past a screen's width the caret went off the screen.
    @Test func aKeyboardTypingMegabytesAKeyDoesNotGrowAttach() throws {
        let (w, env) = try world(installing: "dev.example.BigInsert", principal: "BigInsertOnKey", name: "BigInsert")
        _ = try w.run(["enable", "dev.example.BigInsert"], extraEnvironment: env)
        _ = try w.run(["set", "dev.example.BigInsert"], extraEnvironment: env)
        let t = try PseudoTerminalSession(arguments: ["attach"], environment: env)
        #expect(t.waitFor("BigInsert (dev.example.BigInsert"))
        t.type("!1")  // the control: one 2 MiB key, so everything is warm
        #expect(t.waitFor("cdef1" + AttachTests.caret, seconds: 20), "the caret is on the screen")
        let pid = t.process.processIdentifier
        let before = FootprintReader(pid: pid)?.read()?.anonymous ?? 0
        for i in 0..<12 {
            t.type("!")
            guard t.waitFor("cdef" + AttachTests.caret, seconds: 20) else { Issue.record("key \(i) did not arrive"); break }
        }
        t.type("2")
        #expect(t.waitFor("cdef2" + AttachTests.caret, seconds: 20), "typing goes on where the text ends")
        let after = FootprintReader(pid: pid)?.read()?.anonymous ?? 0
        #expect(after - before < 12 << 20, "attach grew \((after - before) >> 20) MiB for 24 MiB typed")
        t.press([27])
        t.process.waitUntilExit()
    }

    @Test func aCrashLandsTheUserOnThePreviousKeyboardWithTheTextKept() throws {
        // The crashing keyboard as an installed bundle.
        let (w, env) = try world(installing: "dev.example.Crasher", principal: "CrashOnTypedX", name: "Crasher")
        _ = try w.run(["enable", "dev.kbhost.NumberPad", "dev.example.Crasher"], extraEnvironment: env)
        _ = try w.run(["set", "dev.kbhost.NumberPad"], extraEnvironment: env)

        let t = try PseudoTerminalSession(arguments: ["attach"], environment: env)
        #expect(t.waitFor("Number Pad (dev.kbhost.NumberPad"))
        t.type("1")
        #expect(t.waitFor("1" + AttachTests.caret))
        t.press([7])  // globe: the crasher
        #expect(t.waitFor("Crasher (dev.example.Crasher"))
        t.type("1")
        #expect(t.waitFor("11" + AttachTests.caret))
        t.type("m")   // marked text, then the crash: it is committed as plain text
        #expect(t.waitFor("\u{1B}[4mか"))
        t.type("x")   // crash
        #expect(t.waitFor("switched to Number Pad"), "the user lands on the keyboard used before")
        t.type("2")
        #expect(t.waitFor("11かな2" + AttachTests.caret), "nothing committed was lost; the marked text became text")
        t.press([27])
        t.process.waitUntilExit()
        let list = try w.run(["list"], extraEnvironment: env)
        #expect(list.status == 0)
        let settings = try SettingsStore(directory: w.home).load()
        #expect(settings.failures["dev.example.Crasher"]?.count == 1, "the failure is recorded for backoff")
    }
}
