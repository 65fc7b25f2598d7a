import Foundation
import Glibc
import KBHost
import Testing

/// A private, headless ibus-daemon that finds kbhost through the component
/// file `kbhost ibus install` wrote (so the daemon starts the engine itself,
/// with --ibus), and a real IBus client (Tests/ibus/client.py, the Python
/// bindings) whose text field stands in for an app.
final class IBusWorld {
    /// The Debian packages these tests need that this machine lacks (scripts/install-deps installs them).
    static let missing: [String] = {
        var missing: [String] = []
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/ibus-daemon") { missing.append("ibus") }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        probe.arguments = ["-c", "import gi; gi.require_version('IBus', '1.0'); from gi.repository import IBus"]
        probe.standardError = FileHandle.nullDevice
        if (try? probe.run()) == nil { missing += ["python3-gi", "gir1.2-ibus-1.0"] } else {
            probe.waitUntilExit()
            if probe.terminationStatus != 0 { missing += ["python3-gi", "gir1.2-ibus-1.0"] }
        }
        return missing
    }()
    static var skipNote: Comment { Comment(rawValue: "needs the Debian packages \(missing.joined(separator: ", ")) (scripts/install-deps)") }
    static let clientScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ibus/client.py").path

    let w: World
    let env: [String: String]
    let daemon: Process
    var serve: Process?
    var address: String { "unix:path=" + w.root + "/ibus.sock" }

    /// `setup`: kbhost commands run first (enable, set, install …).
    init(_ setup: [[String]] = [], bundles: [(id: String, principal: String)] = [], serve: Bool = false,
         openAccess: Bool = false) throws {
        w = try World()
        env = ["KBHOST_HOME": w.home, "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!,
               "KBHOST_RUNTIME_DIR": w.root + "/run", "XDG_CONFIG_HOME": w.root + "/config",
               "XDG_CACHE_HOME": w.root + "/cache"]
        for bundle in bundles {
            let extension_: [String: Any] = ["NSExtensionPointIdentifier": "com.apple.keyboard-service",
                                              "NSExtensionPrincipalClass": bundle.principal,
                                              "NSExtensionAttributes": ["IsASCIICapable": true, "RequestsOpenAccess": openAccess]]
            let path = try w.makeBundle(id: bundle.id, library: "libFaultKeyboards.so", principal: bundle.principal,
                                        name: bundle.principal, extra: ["NSExtension": extension_])
            #expect(try w.run(["install", path], extraEnvironment: env).status == 0)
        }
        for command in setup {
            let r = try w.run(command, extraEnvironment: env)
            #expect(r.status == 0, "kbhost \(command.joined(separator: " ")): \(r.err)")
        }
        let install = try w.run(["ibus", "install", "--component-dir", w.root + "/component", "--no-environment"],
                                extraEnvironment: env)
        #expect(install.status == 0, "\(install.err)")
        if serve {
            let s = Fixtures.kbhostProcess(["serve"], environment: env)
            s.standardError = FileHandle.nullDevice
            try s.run()
            self.serve = s
            var waited = 0
            while !FileManager.default.fileExists(atPath: w.root + "/run/control") && waited < 500 { usleep(10_000); waited += 1 }
        }
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/ibus-daemon")
        // --verbose: without it ibus-daemon starts engines with stderr on /dev/null, and `log` (in
        // every failure message) would hold nothing of the engine's.
        daemon.arguments = ["--panel=disable", "--emoji-extension=disable", "--config=disable", "--cache=none", "--verbose",
                            "--address=unix:path=" + w.root + "/ibus.sock"]
        var daemonEnv = ProcessInfo.processInfo.environment.merging(env) { $1 }
        daemonEnv["IBUS_COMPONENT_PATH"] = w.root + "/component"
        daemonEnv["KBHOST_KEYBOARDS"] = nil
        daemon.environment = daemonEnv
        daemon.standardOutput = FileHandle.nullDevice
        // The daemon's stderr is the engine's too: kept in the world, for the failure messages.
        FileManager.default.createFile(atPath: w.root + "/engine.log", contents: nil)
        daemon.standardError = FileHandle(forWritingAtPath: w.root + "/engine.log")
        try daemon.run()
        var waited = 0
        while !FileManager.default.fileExists(atPath: w.root + "/ibus.sock") && waited < 500 { usleep(10_000); waited += 1 }
        usleep(200_000)
    }

    deinit {
        // ibus-daemon does not end on SIGTERM; the engine ends when its bus goes, the keyboards with it.
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
        serve?.terminate()
        serve?.waitUntilExit()
    }

    func kbhost(_ arguments: String...) throws -> (status: Int32, out: String, err: String) {
        try w.run(arguments, extraEnvironment: env)
    }

    /// What the engine (and the daemon) wrote, for failure messages.
    var log: String { (try? String(contentsOfFile: w.root + "/engine.log", encoding: .utf8)) ?? "" }

    /// A client with focus on the engine (focus first, as GTK does).
    func client(engine: String = "kbhost", surrounding: Bool = true, purpose: Int? = nil) throws -> IBusClient {
        let client = try IBusClient(address: address)
        if !surrounding { _ = try client.send("caps plain") }
        if let purpose { _ = try client.send("purpose \(purpose)") }
        _ = try client.send("focus_in")
        _ = try client.send("engine \(engine)")
        return client
    }
}

/// The Python client: one command a line in, the field's state as JSON out.
final class IBusClient {
    struct State: Decodable {
        var text: String
        var cursor: Int
        var preedit: String
        var candidates: [String]
        var auxiliary: String
        var forwarded: [String]
        var handled: Bool?
        var deleted: Int
        var commits: [String]
        /// The signals the engine sent the app during the command, by name (commit-text, update-preedit-text …).
        var signals: [String: Int]
        var error: String?
        /// The text's length in characters, after `brief N` (which cuts `text` to its end).
        var length: Int?
        /// What the app's second context (`second N`) was sent.
        var second_commits: [String]?
        var second_forwarded: [String]?
        var keylog: [String]?
    }

    let process = Process()
    let input = Pipe(), output = Pipe()
    var buffer = Data()

    init(address: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [IBusWorld.clientScript]
        var env = ProcessInfo.processInfo.environment
        env["IBUS_ADDRESS"] = address
        process.environment = env
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    /// Sends one command and returns the state after it (within 30 s).
    @discardableResult
    func send(_ command: String) throws -> State {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        let deadline = Date().addingTimeInterval(30)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[..<newline]
                buffer = Data(buffer[(newline + 1)...])
                let state = try JSONDecoder().decode(State.self, from: line)
                if let error = state.error { Issue.record("client: \(error)") }
                return state
            }
            var pfd = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard Date() < deadline, poll(&pfd, 1, 1000) >= 0 else { throw IBusClientError.timeout(command) }
            if pfd.revents != 0 {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { throw IBusClientError.ended(command) }
                buffer.append(chunk)
            }
        }
    }

    enum IBusClientError: Error { case timeout(String), ended(String) }
}

@Suite("kbhost ibus: apps type through a sandboxed keyboard", .serialized,
       .enabled(if: IBusWorld.missing.isEmpty, IBusWorld.skipNote))
struct IBusEngineTests {
    @Test func calculatorCommitsTheResultAndNumberPadInCTypesDigits() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.Calculator", "dev.kbhost.NumberPad"], ["set", "dev.kbhost.Calculator"]])
        let app = try world.client()
        var s = try app.send("type 12+3=")
        #expect(s.text == "15", "the keyboard's result is committed to the app")
        #expect(s.handled == true)
        // The same keyboard chosen as its own input source (kbhost:ID) makes it current, as `kbhost set`.
        let pad = try world.client(engine: "kbhost:dev.kbhost.NumberPad")
        s = try pad.send("type 407")
        #expect(s.text == "407")
        #expect(try world.kbhost("current").out == "dev.kbhost.NumberPad\n")
    }

    @Test func kanaShowsThePreeditAndCandidatesThenCommits日本語() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.Kana"], ["set", "dev.kbhost.Kana"]])
        let app = try world.client()
        var s = try app.send("type nihongo")
        #expect(s.preedit == "にほんご", "romaji compose in the preedit")
        #expect(s.text == "", "nothing committed while composing")
        s = try app.send("key space")
        #expect(s.preedit == "日本語")
        #expect(s.candidates.contains("日本語") && s.candidates.contains("ニホンゴ"), "\(s.candidates)")
        s = try app.send("key Return")
        #expect(s.text == "日本語")
        #expect(s.preedit == "" && s.candidates.isEmpty)
        // A reset (the user clicked elsewhere) commits the marked text, as iOS does.
        _ = try app.send("type kana")
        s = try app.send("reset")
        #expect(s.text == "日本語かな")
        #expect(s.preedit == "")
        // So does focus leaving the field.
        _ = try app.send("type desu")
        s = try app.send("focus_out")
        #expect(s.text == "日本語かなです")
        #expect(s.preedit == "")
    }

    @Test func theKeyboardReadsTheAppsTextAroundTheCursor() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.English"], ["set", "dev.kbhost.English"]])
        let app = try world.client()
        _ = try app.send("settext it works. ")
        let s = try app.send("type teh ")
        #expect(s.text == "it works. The ", "a capital after the app's own sentence: documentContextBeforeInput is the app's text")
    }

    @Test func aNumberKeyChoosesACandidate() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.Kana"], ["set", "dev.kbhost.Kana"]])
        let app = try world.client()
        _ = try app.send("type nihongo")
        var s = try app.send("key space")
        let third = try #require(s.candidates.dropFirst(2).first)
        s = try app.send("key 3")
        #expect(s.handled == true)
        #expect(s.text == third, "the third candidate's key was tapped: Kana commits it")
        #expect(s.candidates.isEmpty && s.preedit.isEmpty)
        // A click in the candidate window (the desktop's panel sends it) taps that candidate too.
        _ = try app.send("panel")
        _ = try app.send("type kanji")
        s = try app.send("key space")
        let second = try #require(s.candidates.dropFirst().first)
        s = try app.send("click 1")
        #expect(s.text == third + second, "\(s.text)")
        // Return with nothing composed is a Return key for the app (a one-line field activates).
        s = try app.send("key Return")
        #expect(s.forwarded == ["Return"])
    }

    @Test func urlAndEmailFieldsTakeOnlyASCIICapableKeyboards() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.Kana"], ["set", "dev.kbhost.Kana"]])
        let app = try world.client(purpose: 5)  // GTK_INPUT_PURPOSE_URL
        var s = try app.send("type ka")
        #expect(s.handled == false, "Kana is not ASCII-capable: the system keyboard serves a URL field")
        #expect(s.text == "ka" && s.preedit.isEmpty)
        _ = try app.send("purpose 0")
        s = try app.send("type ka")
        #expect(s.preedit == "か", "an ordinary field is Kana's again")
    }

    @Test func englishAutocorrectsOnSpaceAndShortcutsReachTheApp() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.English"], ["set", "dev.kbhost.English"]])
        let app = try world.client()
        var s = try app.send("type teh ")
        #expect(s.text == "The ", "autocorrected (and capitalised at the start of the field)")
        s = try app.send("key c ctrl")
        #expect(s.handled == false, "Ctrl-C goes to the app")
        #expect(s.forwarded == ["shortcut"])
        s = try app.send("key Tab")
        #expect(s.handled == false, "a key the keyboard has no key for goes to the app")
    }

    @Test func aDeleteAloneIsABackSpaceAndADeleteWithTextUsesSurroundingText() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.NumberPad", "dev.kbhost.English"], ["set", "dev.kbhost.NumberPad"]])
        let rich = try world.client()
        _ = try rich.send("type 123")
        var s = try rich.send("key BackSpace")
        #expect(s.text == "12")
        #expect(s.forwarded == ["BackSpace"], "a delete alone: the app's BackSpace (it also deletes a selection)")
        // NumberPad's ⌫ repeats: a held BackSpace reaches it as repeat events.
        _ = try rich.send("type 3456")
        s = try rich.send("hold BackSpace 3")
        #expect(s.text == "12", "one tap and three repeats deleted four digits")

        let plain = try world.client(surrounding: false)
        _ = try plain.send("type 789")
        s = try plain.send("key BackSpace")
        #expect(s.text == "78")
        #expect(s.forwarded == ["BackSpace"], "an app without surrounding text gets a BackSpace, as Keyman does")

        // An autocorrection deletes and types in one action: the deletion goes through the app's
        // surrounding text, which the app applies in order with the commit.
        #expect(try world.kbhost("set", "dev.kbhost.English").status == 0)
        _ = try rich.send("focus_in")
        _ = try rich.send("wait 1500")
        _ = try rich.send("settext ")
        s = try rich.send("type teh ")
        #expect(s.text == "The ")
        #expect(s.deleted >= 3 && !s.forwarded.contains("BackSpace"), "deleted \(s.deleted) through surrounding text")
        let bare = try world.client(surrounding: false)
        s = try bare.send("type teh ")
        #expect(s.text == "The ", "without surrounding text the same correction is typed with BackSpaces")
    }

    @Test func aPasswordFieldNeverReachesTheKeyboard() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.Calculator"], ["set", "dev.kbhost.Calculator"]])
        let app = try world.client(purpose: 8)  // GTK_INPUT_PURPOSE_PASSWORD
        var s = try app.send("type 1234")
        #expect(s.handled == false, "keys pass through: the system keyboard serves password fields")
        #expect(s.text == "1234")
        // The same field as ordinary text: Calculator serves it, and never saw the password.
        _ = try app.send("purpose 0")
        s = try app.send("type 5+")
        #expect(s.handled == true)
        #expect(!s.auxiliary.contains("1234"), "Calculator's display: \(s.auxiliary)")
        #expect(try world.kbhost("current").out == "dev.kbhost.Calculator\n", "the user's choice stays")
    }

    @Test func kbhostNextAndTheGlobeKeySwitchLive() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.NumberPad", "dev.kbhost.Calculator"], ["set", "dev.kbhost.NumberPad"]],
                                  serve: true)
        let app = try world.client()
        var s = try app.send("type 12")
        #expect(s.text == "12")
        #expect(try world.kbhost("next").status == 0)
        _ = try app.send("wait 300")
        s = try app.send("type 2+3=")
        #expect(s.text == "125", "Calculator now: 2+3= commits 5")
        // NumberPad's own globe key, typed as its label.
        _ = try world.kbhost("set", "dev.kbhost.NumberPad")
        _ = try app.send("wait 300")
        s = try app.send("type 🌐")
        #expect(s.handled == true)
        #expect(try world.kbhost("current").out == "dev.kbhost.Calculator\n", "the globe key advanced to the next keyboard")
    }

    @Test func withoutADaemonTheEngineFollowsTheSettings() throws {
        let world = try IBusWorld([["enable", "dev.kbhost.NumberPad", "dev.kbhost.Calculator"], ["set", "dev.kbhost.NumberPad"]])
        let app = try world.client()
        #expect(try app.send("type 12").text == "12")
        #expect(try world.kbhost("set", "dev.kbhost.Calculator").status == 0)
        _ = try app.send("wait 1500")
        #expect(try app.send("type 2+3=").text == "125", "Calculator, within a second of `kbhost set`")
    }

    /// Each fault: what the app holds stays, keys pass through, the failure is recorded and shown.
    @Test(arguments: ["CrashOnKey", "HangOnKey", "SpikeOnKey", "GarbageFrameOnKey"])
    func aFailingKeyboardEndsAloneAndTheAppKeepsItsText(_ fault: String) throws {
        let id = "dev.example.\(fault)"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, fault)])
        let app = try world.client()
        var s = try app.send("type 11")
        #expect(s.text == "11")
        #expect(s.handled == true, "\(s.auxiliary)\n\(world.log)")
        s = try app.send("type !")
        #expect(s.auxiliary.contains("stopped"), "the user sees why: \(s.auxiliary)")
        s = try app.send("type 2x")
        #expect(s.handled == false, "keys pass through until the user switches")
        #expect(s.text.hasPrefix("11") && s.text.hasSuffix("2x"), "\(s.text)")
        let settings = try SettingsStore(directory: world.w.home).load()
        #expect(settings.failures[id]?.count == 1, "the failure is recorded")
        // The engine lives on: a new field still gets an engine, on the system keyboard.
        let next = try world.client()
        #expect(try next.send("type 9").text == "9")
    }

    @Test func marksTextIsCommittedWhenTheKeyboardCrashesUnderIt() throws {
        let id = "dev.example.CrashOnTypedX"
        let world = try IBusWorld([["enable", id], ["set", id]], bundles: [(id, "CrashOnTypedX")])
        let app = try world.client()
        _ = try app.send("type 1m")
        var s = try app.send("wait 50")
        #expect(s.preedit == "かな")
        s = try app.send("type x")
        #expect(s.preedit == "")
        #expect(s.text == "1かなx", "the preedit is committed as plain text, and the key reaches the app")
    }
}
