import ArgumentParser
import Foundation
import Glibc
import KBHost
import KBSystem
import Synchronization

/// What `stress` and `profile` share as runs a person may watch for minutes:
/// the chart's path checked before the run, Ctrl-C ending the run early (the
/// report and the chart still come), and a progress line that suits stderr.
enum LongRun {
    /// Set by the first SIGINT; the run ends at its next step.
    static let interrupted = Atomic<Bool>(false)

    /// The first Ctrl-C asks the run to end (report and chart still come);
    /// a second one ends kbhost at once, as Ctrl-C does elsewhere.
    /// What `stress` and `profile` do first: the chart's path checked before anything runs, then
    /// Ctrl-C ends the run with a report (at once if it has not begun); the caller restores SIGINT
    /// (`defer { signal(SIGINT, SIG_DFL) }`) when its run ends.
    static func begin(chart svg: String) throws -> Context {
        Sys.ignoreSIGPIPE()
        try checkWritable(svg, option: "--svg")
        catchInterrupt()
        do { return try Context.make() } catch {
            signal(SIGINT, SIG_DFL)
            throw error
        }
    }

    static func catchInterrupt() {
        interrupted.store(false, ordering: .relaxed)
        signal(SIGINT) { _ in
            if LongRun.interrupted.exchange(true, ordering: .relaxed) {
                signal(SIGINT, SIG_DFL)
                raise(SIGINT)
            }
        }
    }

    static var wasInterrupted: Bool { interrupted.load(ordering: .relaxed) }

    /// Fails at once (exit 64) when the chart could not be written at `path`:
    /// a folder, a missing or read-only folder, or a read-only file.
    static func checkWritable(_ path: String, option: String) throws {
        if let problem = problem(writing: path) {
            throw exitWithError("cannot write \(option) \(TerminalText.line(path)): \(problem)", status: Kbhost.Exit.usage)
        }
    }

    /// Why a file could not be written at `path`, or nil when it could.
    static func problem(writing path: String) -> String? {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        let problem: String? =
            if path.isEmpty { "it is empty" }
            else if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                isDirectory.boolValue ? "it is a folder" : !Sys.isWritable(path) ? "the file is not writable" : nil
            } else if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue {
                "the folder \(directory) does not exist"
            } else if !Sys.isWritable(directory) {
                "the folder \(directory) is not writable"
            } else { nil }
        return problem
    }

    /// Writes the chart; a failure (the folder went away during the run) is an
    /// error after the report, not instead of it.
    static func write(_ svg: String, to path: String) -> Bool {
        do {
            try svg.write(toFile: path, atomically: true, encoding: .utf8)
            return true
        } catch {
            // Said as the check before the run says it (Foundation's "The operation could not be completed").
            let why = problem(writing: path) ?? error.localizedDescription
            Console.err("kbhost: error: cannot write the chart \(TerminalText.line(path)): \(why)")
            return false
        }
    }
}

/// The live progress line. On a terminal: one line, redrawn in place and cut
/// to the terminal's width. Elsewhere (a file, a pipe, CI's log): a plain line
/// every `plainInterval` seconds, with no escape sequences.
struct ProgressLine {
    let terminal: Bool
    let plainInterval: Double
    private var lastPlain = -Double.infinity
    private var drawn = false

    init(fd: Int32 = 2, plainInterval: Double = 5) {
        terminal = Terminal.isTerminal(fd)
        self.plainInterval = plainInterval
    }

    mutating func show(_ line: String, at seconds: Double) {
        if terminal {
            let fitted = TerminalText.cut(line, toWidth: max(Terminal.width(2) - 1, 10))
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + fitted).utf8))
            drawn = true
        } else if seconds - lastPlain >= plainInterval {
            lastPlain = seconds
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    /// Clears the line before the report.
    mutating func finish() {
        if terminal && drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }
}
