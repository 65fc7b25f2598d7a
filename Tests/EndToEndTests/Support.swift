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
