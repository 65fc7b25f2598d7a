import KBSystem
package import KBWire

/// Why a keyboard stopped working: always names the keyboard, the phase it
/// was in and what happened, with the tail of its stderr. The host survives
/// every one of these.
public struct KeyboardFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// The extension process could not be started.
        case spawnFailed(String)
        /// Ended by a signal (a crash, an abort, a trap, a kill).
        case signaled(signal: Int32)
        /// Exited by itself with this status.
        case exited(status: Int32)
        /// Went over its memory budget; the governor killed it.
        case memoryExceeded(MemoryKill)
        /// Did not answer within the deadline; the host killed it.
        case deadlineExceeded(milliseconds: Int)
        /// Sent bytes that are not a valid message, or a message nobody asked for; the host ended it.
        case protocolViolation(String)
        /// The worker refused the plugin (missing export, wrong ABI, bad encoding…).
        case loadFailed(LoadFailure, String)
        /// The host itself could not talk to the worker.
        case io(String)
    }

    /// Why the worker refused a plugin: the wire's reasons, as the host's own type
    /// (the wire's types stay inside the package).
    public enum LoadFailure: Hashable, Sendable, CaseIterable {
        /// The worker speaks another protocol or ABI version than the host.
        case handshake
        /// The library would not load.
        case dlopen
        /// The library has no kbhost_keyboard_plugin_v1 export.
        case missingEntry
        /// The plugin was built for another ABI.
        case abiMismatch
        /// No class of the principal class's name.
        case classNotFound
        /// A selector's type encoding is not what the host passes.
        case encodingMismatch
        /// A layout names an action the class lacks, or is malformed.
        case badLayout
        /// The host sent something the worker cannot do.
        case badRequest
        /// The class's create returned NULL.
        case createFailed
        /// The sandbox could not be installed (the kernel lacks a protection).
        case sandbox
        /// One call did more than a reply may carry.
        case overLimit

        package init(_ kind: WorkerFailure.Kind) {
            switch kind {
            case .handshake: self = .handshake
            case .dlopen: self = .dlopen
            case .missingEntry: self = .missingEntry
            case .abiMismatch: self = .abiMismatch
            case .classNotFound: self = .classNotFound
            case .encodingMismatch: self = .encodingMismatch
            case .badLayout: self = .badLayout
            case .badRequest: self = .badRequest
            case .createFailed: self = .createFailed
            case .sandbox: self = .sandbox
            case .overLimit: self = .overLimit
            }
        }
    }

    public var keyboardID: String
    /// What the keyboard was doing: "launch", "load", "viewDidLoad", "key '7'", …
    public var phase: String
    public var reason: Reason
    /// The last lines the keyboard wrote to stdout/stderr.
    public var stderrTail: String

    public init(keyboardID: String, phase: String, reason: Reason, stderrTail: String = "") {
        self.keyboardID = keyboardID
        // What a keyboard controls is kept short: a phase names its key's label, and a reason
        // may be its own text (a worker's failure, which a plugin can write itself, of up to 9 MiB).
        // The first line of a failure goes into settings.json, which every command reads.
        self.phase = SessionEvent.cut(phase, to: Self.phaseLimit)
        self.reason = reason.cut(to: Self.reasonLimit)
        self.stderrTail = stderrTail
    }

    /// The most UTF-8 bytes a failure keeps of its phase and of its reason's text.
    public static let phaseLimit = 512, reasonLimit = 4096

    /// Every `kind`, and "other" for a failure that is not a keyboard's (as a stress run counts them).
    public static let kinds = ["memory", "crash", "exit", "hang", "protocol", "limit", "sandbox", "load", "spawn", "other"]

    /// A short word for reports: crash, hang, protocol, limit, load, spawn, exit.
    public var kind: String {
        switch reason {
        case .memoryExceeded: "memory"
        case .signaled: "crash"
        case .exited: "exit"
        case .deadlineExceeded: "hang"
        case .protocolViolation: "protocol"
        case .loadFailed(.sandbox, _): "sandbox"
        case .loadFailed(.overLimit, _): "limit"
        case .loadFailed: "load"
        case .spawnFailed, .io: "spawn"
        }
    }

    public var reasonDescription: String {
        switch reason {
        case .spawnFailed(let s): "could not start its extension process: \(s)"
        case .signaled(let s): "ended by signal \(Sys.signalName(s))"
        case .exited(let status): "exited with status \(status)"
        case .memoryExceeded(let kill): kill.description
        case .deadlineExceeded(let ms): "did not answer within \(ms) ms and was killed"
        case .protocolViolation(let s): "broke the wire protocol and was ended: \(s)"
        // The worker does not know the keyboard's identifier; its advice names it "ID".
        case .loadFailed(.sandbox, let s): s.replacing("kbhost protection ID ", with: "kbhost protection \(keyboardID) ")
        case .loadFailed(_, let s): s
        case .io(let s): "lost its channel: \(s)"
        }
    }

    /// The failure in one line, then the tail of the keyboard's output, a line each.
    /// What the keyboard controls (the phase names its key's label; the worker's
    /// reasons and the output are its own) is escaped: terminal sequences in it are shown, not obeyed.
    public var description: String {
        var text = TerminalText.line("keyboard \(keyboardID) failed during \(phase): \(reasonDescription)")
        let tail = stderrTail.split(separator: "\n").suffix(8)
        if !tail.isEmpty {
            text += "\n  its output ended with:\n" + tail.map { "    " + TerminalText.line($0) }.joined(separator: "\n")
        }
        return text
    }
}

extension KeyboardFailure.Reason {
    /// The reason with its text cut to `limit` UTF-8 bytes (whole characters, saying how much was cut).
    func cut(to limit: Int) -> Self {
        switch self {
        case .spawnFailed(let s): .spawnFailed(SessionEvent.cut(s, to: limit))
        case .protocolViolation(let s): .protocolViolation(SessionEvent.cut(s, to: limit))
        case .loadFailed(let kind, let s): .loadFailed(kind, SessionEvent.cut(s, to: limit))
        case .io(let s): .io(SessionEvent.cut(s, to: limit))
        case .signaled, .exited, .memoryExceeded, .deadlineExceeded: self
        }
    }
}
