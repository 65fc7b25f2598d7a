import Foundation
import KBHost
import KBSystem

/// The real build products: the worker, the sample plugins and the fault plugins.
enum Fixtures {
    static let installation = Installation.current()

    static var configuration: ExtensionProcess.Configuration { installation.processConfiguration }

    static func sample(_ id: String) throws -> LoadableKeyboard { try installation.keyboard(id) }

    /// A keyboard from one of the fault plugins, with a manifest made here.
    static func fault(_ className: String, library: String = "libFaultKeyboards.so") -> LoadableKeyboard {
        let path = (installation.productsDirectory as NSString).appendingPathComponent(library)
        let manifest = KeyboardManifest(path: "/dev/null/Info.plist", bundleIdentifier: "dev.kbhost.test.\(className)",
                                        displayName: className, executable: library, principalClass: className)
        return LoadableKeyboard(manifest: manifest, libraryPath: path)
    }

    static func session(_ keyboard: LoadableKeyboard, text: String = "", launchMs: Int = 1000, eventMs: Int = 2500,
                        needsInputModeSwitchKey: Bool = true) throws -> KeyboardSession {
        var config = configuration
        config.launchDeadlineMilliseconds = launchMs
        config.eventDeadlineMilliseconds = eventMs
        let session = try KeyboardSession(keyboard: keyboard, document: TextDocument(text: text), configuration: config,
                                          needsInputModeSwitchKey: needsInputModeSwitchKey)
        try session.appear()
        return session
    }

    /// Whether a process exists (and is not a zombie we failed to reap).
    static func processExists(_ pid: Int32) -> Bool {
        guard let fields = statFields(pid) else { return false }
        return fields.first != "Z"
    }

    /// The fields of /proc/PID/stat after the command's name: state, ppid, pgrp, …
    static func statFields(_ pid: Int32) -> [Substring]? {
        guard let stat = ProcMemory.readSmallFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// A kbhost CLI process, not yet started, with extra environment.
    static func kbhostProcess(_ arguments: [String], environment: [String: String?] = [:]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: (installation.productsDirectory as NSString).appendingPathComponent("kbhost"))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        // Never the user's own settings or daemon: a fresh home unless the test names one.
        env["KBHOST_HOME"] = NSTemporaryDirectory() + "kbhost-cli-" + UUID().uuidString
        env["KBHOST_RUNTIME_DIR"] = env["KBHOST_HOME"]! + "/run"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        return process
    }

    /// Runs the kbhost CLI and returns (status, stdout, stderr).
    static func runCLI(_ arguments: [String], environment: [String: String?] = [:]) throws -> (Int32, String, String) {
        let process = kbhostProcess(arguments, environment: environment)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}

/// Whether a terminal would act on some of this text: a C0 control other than
/// newline and tab, DEL, or a C1 control.
func hasTerminalControls(_ text: String) -> Bool {
    text.unicodeScalars.contains { TerminalText.isControl($0) && $0 != "\n" && $0 != "\t" }
}

/// Connections to a Unix socket held open by a child process (python3), not by the test process:
/// Foundation's `Process.run` on Linux (before swift-corelibs-foundation PR #5472) copies 256
/// bytes past each entry it reads of /proc/self/fd, and crashed the test process (SIGSEGV in
/// memcpy) when a test held ~1,000 connections and the listing filled glibc's 32 KiB buffer.
final class HeldConnections {
    private let process = Process()
    private let input = Pipe(), output = Pipe()
    /// How many connections are held.
    private(set) var count = 0

    /// Connects to `socket` up to `upTo` times, stopping at the first that is refused or (with
    /// `waiting` false) would wait over 0.1 s for a full backlog, and holds them until `close()`.
    init(to socket: String, upTo limit: Int, waiting: Bool = true) throws {
        let script = """
            import resource, socket, sys
            path, n, wait = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "wait"
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            if soft < n + 64:
                resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 64), hard))
            held = []
            for _ in range(n):
                s = socket.socket(socket.AF_UNIX)
                s.settimeout(None if wait else 0.1)
                try:
                    s.connect(path)
                except OSError:
                    s.close()
                    break
                held.append(s)
            print(len(held), flush=True)
            sys.stdin.read()
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, socket, String(limit), waiting ? "wait" : "no"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        count = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Closes them all (the child ends).
    func close() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        count = 0
    }

    deinit { close() }
}

extension Fixtures {
    /// Removes the tree at `path` folder by folder through descriptors, never by a whole path:
    /// a keyboard's folders may nest deeper than PATH_MAX (the hostile keyboard's long lines of
    /// /proc/PID/maps are a file 60 folders deep, each named with 255 newlines), which
    /// FileManager's removal leaves behind.
    static func removeTree(_ path: String) {
        func empty(_ dir: Int32) {
            guard let stream = fdopendir(dir) else { _ = close(dir); return }
            defer { closedir(stream) }
            var names: [[CChar]] = []
            while let entry = readdir(stream) {
                let name = Sys.withEntryName(entry) { raw -> [CChar]? in
                    raw.elementsEqual([46]) || raw.elementsEqual([46, 46]) ? nil : raw.map { CChar(bitPattern: $0) } + [0]
                }
                if let name { names.append(name) }
            }
            for name in names where unlinkat(dirfd(stream), name, 0) != 0 {
                let child = openat(dirfd(stream), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child >= 0 { empty(child) }
                unlinkat(dirfd(stream), name, AT_REMOVEDIR)
            }
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd >= 0 { empty(fd) }
        rmdir(path)
    }
}
