import Foundation
import Glibc
import KBHost
import Testing

/// A desktop in a box: an X server of its own (Xvfb), a private ibus-daemon
/// that starts kbhost's engine from the component file `kbhost ibus install`
/// wrote, IBus's own candidate window (ibus-ui-gtk3), and a real GTK 3
/// application (Tests/ibus/gtk_app.py) with GTK_IM_MODULE=ibus. Keys come from
/// the X server (xdotool), as a user's do; the app reports what its widgets hold.
/// Everything it starts is stopped when it goes, whatever the test did.
final class GTKDesktop {
    /// The Debian packages these tests need that this machine lacks (scripts/install-deps installs them).
    static let missing: [String] = {
        var missing: [String] = []
        let exists = { (path: String) in FileManager.default.isExecutableFile(atPath: path) }
        if !exists("/usr/bin/Xvfb") { missing.append("xvfb") }
        if !exists("/usr/bin/xdotool") { missing.append("xdotool") }
        if !exists("/usr/bin/ibus-daemon") || !exists("/usr/bin/ibus") { missing.append("ibus") }
        if immodule == nil { missing.append("ibus-gtk3") }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        probe.arguments = ["-c", """
            import sys
            try:
                import gi
            except ImportError:
                sys.exit(3)
            try:
                gi.require_version('Gtk', '3.0')
            except ValueError:
                sys.exit(4)
            """]
        probe.standardError = FileHandle.nullDevice
        if (try? probe.run()) == nil {
            missing += ["python3-gi", "gir1.2-gtk-3.0"]
        } else {
            probe.waitUntilExit()
            switch probe.terminationStatus {
            case 0: break
            case 4: missing.append("gir1.2-gtk-3.0")
            default: missing += ["python3-gi", "gir1.2-gtk-3.0"]
            }
        }
        return missing
    }()
    static var skipNote: Comment {
        Comment(rawValue: "needs the Debian packages \(missing.joined(separator: ", ")) (scripts/install-deps installs them)")
    }
    /// GTK 3's IBus input-method module (package ibus-gtk3), wherever the multiarch tree puts it.
    static let immodule: String? = {
        let lib = "/usr/lib"
        let triplets = ((try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []).map { lib + "/" + $0 } + [lib]
        return triplets.map { $0 + "/gtk-3.0/3.0.0/immodules/im-ibus.so" }.first { FileManager.default.fileExists(atPath: $0) }
    }()
    /// IBus's own panel: the candidate window. Part of package ibus on Debian; without it the test still types.
    static let panel = "/usr/libexec/ibus-ui-gtk3"
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let appScript = root.appendingPathComponent("Tests/ibus/gtk_app.py").path

    /// One line from the app: what its widgets hold after an event.
    struct AppState: Decodable, CustomStringConvertible {
        var event: String
        var entry: String
        var text: String
        var preedit: String
        var focus: String
        var window: Int?
        var frame: [Int]?
        var selection: [Int]?
        var path: String?
        var description: String { "[\(event)] entry \(entry.debugDescription), preedit \(preedit.debugDescription), text \(text.debugDescription), focus \(focus)" }
    }

    let w: World
    var env: [String: String] = [:]
    /// The environment of the X clients: the display, the bus, no accessibility bus, no dconf.
    var desktopEnv: [String: String] = [:]
    var started: [Process] = []
    var display = ""
    var window = ""
    var frame: [Int] = []
    var hasPanel = false
    let appInput = Pipe(), appOutput = Pipe()
    var buffer = Data()
    /// Every line the app sent, in order.
    var history: [AppState] = []
    var address: String { "unix:path=" + w.root + "/ibus.sock" }

    /// `setup`: kbhost commands run first (enable, set …); `engine`: the input source the user picks.
    init(_ setup: [[String]], engine: String = "kbhost") throws {
        w = try World()
        // From here on, deinit stops whatever was started, even if a step below throws.
        env = ["KBHOST_HOME": w.home, "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!,
               "KBHOST_RUNTIME_DIR": w.root + "/run", "XDG_CONFIG_HOME": w.root + "/config",
               "XDG_CACHE_HOME": w.root + "/cache"]
        for command in setup {
            let r = try w.run(command, extraEnvironment: env)
            #expect(r.status == 0, "kbhost \(command.joined(separator: " ")): \(r.err)")
        }
        let install = try w.run(["ibus", "install", "--component-dir", w.root + "/component", "--no-environment"],
                                extraEnvironment: env)
        try #require(install.status == 0, "\(install.err)")

        try startX()
        desktopEnv = ProcessInfo.processInfo.environment.merging(env) { $1 }
        desktopEnv["KBHOST_KEYBOARDS"] = nil
        desktopEnv.merge(["DISPLAY": display, "IBUS_ADDRESS": address, "NO_AT_BRIDGE": "1", "GSETTINGS_BACKEND": "memory",
                          "GTK_IM_MODULE": "ibus"]) { $1 }
        try startDaemon()
        try startApp()
        try focusAndChoose(engine)
    }

    deinit {
        try? appInput.fileHandleForWriting.close()  // the app quits when its input ends
        for process in started.reversed() { Self.stop(process) }
    }

    /// Ends a process: SIGTERM, then SIGKILL after a second (ibus-daemon ignores SIGTERM).
    static func stop(_ process: Process) {
        let pid = process.processIdentifier
        if process.isRunning {
            kill(pid, process.executableURL?.lastPathComponent == "ibus-daemon" ? SIGKILL : SIGTERM)
            var waited = 0
            while process.isRunning && waited < 100 { usleep(10_000); waited += 1 }
            if process.isRunning { kill(pid, SIGKILL) }
        }
        process.waitUntilExit()
    }

    func start(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
               output: Any? = FileHandle.nullDevice, log: String? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment ?? desktopEnv
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        if let log {
            _ = FileManager.default.createFile(atPath: w.root + "/" + log, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: w.root + "/" + log)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        started.append(process)
        return process
    }

    /// Xvfb on a display it picks itself (-displayfd): no clash with another X server or test.
    func startX() throws {
        let pipe = Pipe()
        _ = try start("/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "800x600x24", "-nolisten", "tcp", "-noreset", "-wr"],
                      environment: ProcessInfo.processInfo.environment, output: pipe)
        let line = try #require(Self.readLine(pipe.fileHandleForReading, seconds: 10), "Xvfb names its display")
        display = ":" + line.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The first line from a pipe, within `seconds`.
    static func readLine(_ handle: FileHandle, seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        var data = Data()
        while !data.contains(0x0A) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var pfd = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, Int32(left * 1000)) > 0 {
                let chunk = handle.availableData
                if chunk.isEmpty { return nil }
                data.append(chunk)
            }
        }
        return String(decoding: data.prefix { $0 != 0x0A }, as: UTF8.self)
    }

    /// The daemon finds kbhost (the component folder) and IBus's keyboard-layout engines (the system's
    /// components) that the candidate window's panel insists on; no panel of its own: the test starts one.
    func startDaemon() throws {
        var daemonEnv = desktopEnv
        daemonEnv["IBUS_COMPONENT_PATH"] = w.root + "/component:/usr/share/ibus/component"
        _ = try start("/usr/bin/ibus-daemon", ["--panel=disable", "--emoji-extension=disable", "--config=disable", "--cache=none",
                                               "--address=" + address], environment: daemonEnv, log: "daemon.log")
        var waited = 0
        while !FileManager.default.fileExists(atPath: w.root + "/ibus.sock") && waited < 500 { usleep(10_000); waited += 1 }
        try #require(FileManager.default.fileExists(atPath: w.root + "/ibus.sock"), "ibus-daemon listens")
        if FileManager.default.isExecutableFile(atPath: Self.panel) {
            _ = try start(Self.panel, [])
            hasPanel = true
        }
    }

    func startApp() throws {
        let app = Process()
        app.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        app.arguments = [Self.appScript]
        app.environment = desktopEnv
        app.standardInput = appInput
        app.standardOutput = appOutput
        _ = FileManager.default.createFile(atPath: w.root + "/app.log", contents: nil)
        app.standardError = FileHandle(forWritingAtPath: w.root + "/app.log")
        try app.run()
        started.append(app)
        let mapped = try #require(wait("the window is mapped") { $0.event == "mapped" })
        window = String(try #require(mapped.window))
        frame = mapped.frame ?? []
    }

    /// Focus as a user gives it, then the input source: once the app's input context has the focus
    /// and the engine (`ibus engine` answers for the focused context), keys go through IBus.
    func focusAndChoose(_ engine: String) throws {
        try #require(tool("/usr/bin/xdotool", "windowfocus", "--sync", window).status == 0, "xdotool focuses the window")
        try #require(wait("the entry has the keyboard focus") { $0.event == "focus" && $0.focus == "entry" } != nil)
        if hasPanel {
            // The panel picks its first engine (a keyboard layout) when it starts: let it, before choosing.
            _ = eventually(seconds: 5) { (try? self.ibus("engine").status) == 0 }
        }
        // Its status is setxkbmap's (it applies the engine's keyboard layout to the X server), not the choice's.
        try ibus("engine", engine)
        let chosen = eventually(seconds: 10) { (try? self.ibus("engine").out) == engine + "\n" }
        let now = (try? ibus("engine").out) ?? ""
        try #require(chosen, "the focused input context has the engine \(engine), not \(now); ibus-daemon: \(log("daemon.log"))")
    }

    // MARK: Tools

    /// Runs a tool to its end (at most `seconds`) and returns its status and output.
    @discardableResult
    func tool(_ path: String, _ arguments: String..., seconds: Double = 10) throws -> (status: Int32, out: String) {
        try tool(path, arguments, seconds: seconds)
    }

    func tool(_ path: String, _ arguments: [String], seconds: Double = 10) throws -> (status: Int32, out: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = desktopEnv
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        var data = Data()
        while true {
            var pfd = pollfd(fd: out.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 50) > 0 {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                data.append(chunk)
            }
            if Date() > deadline {
                kill(process.processIdentifier, SIGKILL)
                Issue.record("\(path) \(arguments.joined(separator: " ")) took more than \(seconds) s")
                break
            }
        }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The ibus command line on this desktop's bus: its status and output.
    @discardableResult
    func ibus(_ arguments: String...) throws -> (status: Int32, out: String) {
        try tool("/usr/bin/ibus", arguments)
    }

    /// The end of a log this desktop's processes wrote (daemon.log, app.log), for failure messages.
    func log(_ name: String) -> String {
        String(((try? String(contentsOfFile: w.root + "/" + name, encoding: .utf8)) ?? "").suffix(800))
    }

    /// Keys from the X server: `xdotool type` for text, `xdotool key` for named keys.
    func type(_ text: String) throws { try tool("/usr/bin/xdotool", "type", "--delay", "15", text) }
    func key(_ names: String...) throws { for name in names { try tool("/usr/bin/xdotool", "key", name) } }

    /// The candidate window (ibus-ui-gtk3's) is on the screen.
    func candidateWindow() throws -> [Int]? {
        let found = try tool("/usr/bin/xdotool", "search", "--onlyvisible", "--class", "ibus-ui-gtk3")
        guard found.status == 0, let id = found.out.split(separator: "\n").first else { return nil }
        let geometry = try tool("/usr/bin/xdotool", "getwindowgeometry", "--shell", String(id)).out
        var values: [String: Int] = [:]
        for line in geometry.split(separator: "\n") {
            let parts = line.split(separator: "=")
            if parts.count == 2 { values[String(parts[0])] = Int(parts[1]) }
        }
        guard let x = values["X"], let y = values["Y"], let width = values["WIDTH"], let height = values["HEIGHT"] else { return nil }
        return [x, y, width, height]
    }

    // MARK: The app

    func send(_ command: String) {
        appInput.fileHandleForWriting.write(Data((command + "\n").utf8))
    }

    /// Reads the app's lines until one satisfies `condition` (within `seconds`): that state, or nil
    /// (and a recorded issue naming what the app held last).
    func wait(_ what: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
              _ condition: (AppState) -> Bool) -> AppState? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[..<newline]
                buffer = Data(buffer[(newline + 1)...])
                guard let state = try? JSONDecoder().decode(AppState.self, from: line) else {
                    Issue.record("the app said: \(String(decoding: line, as: UTF8.self))", sourceLocation: sourceLocation)
                    continue
                }
                history.append(state)
                if condition(state) { return state }
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { break }
            var pfd = pollfd(fd: appOutput.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, Int32(min(left, 0.2) * 1000)) > 0 {
                let chunk = appOutput.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
            }
        }
        let log = log("app.log")
        Issue.record(Comment(rawValue: "waited \(seconds) s for \(what); the app's last state: \(history.last.map(\.description) ?? "none")"
                                 + (log.isEmpty ? "" : "; its log: \(log)")), sourceLocation: sourceLocation)
        return nil
    }

    /// The app changed its own text (`clear`): lets IBus deliver that to the engine before the
    /// next key. Under load IBus delivered the app's reset and its new text a few keys late, and
    /// the engine read the keys typed meanwhile against the old text (README: the IBus engine's
    /// surrounding text); a person does not type within half a second of the app clearing a field.
    func letTheAppsChangeArrive() { usleep(500_000) }

    /// What the app holds now.
    func state() -> AppState? {
        send("state")
        return wait("the app's state") { $0.event == "state" }
    }

    /// Whether `condition` becomes true within `seconds`, checked every 50 ms.
    func eventually(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if condition() { return true }
            usleep(50_000)
        } while Date() < deadline
        return false
    }
}
