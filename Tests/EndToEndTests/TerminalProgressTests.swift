import Foundation
import KBSystem
import Testing

/// Runs kbhost with its stderr on a pseudo-terminal `columns` wide (stdout a pipe), sends SIGINT
/// after `interruptAfter` seconds if given, and returns its status and what the terminal got.
func runOnTerminal(_ arguments: [String], world w: World, columns: UInt16,
                   interruptAfter: Double? = nil) throws -> (status: Int32, terminal: String, out: String) {
    let (master, slavePath) = try Terminal.openPseudoTerminal()
    defer { close(master) }
    var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
    #expect(ioctl(master, UInt(TIOCSWINSZ), &size) == 0)
    let slave = try #require(FileHandle(forWritingAtPath: slavePath))
    let process = Fixtures.kbhostProcess(arguments, environment: w.environment.merging(LongRunTests.real.mapValues { $0 }) { $1 })
    let out = Pipe()
    process.standardOutput = out
    process.standardError = slave
    try process.run()
    try slave.close()
    if let interruptAfter {
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + interruptAfter) { kill(pid, SIGINT) }
    }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {  // until the last writer closes the terminal (EIO)
        let n = read(master, &buffer, buffer.count)
        if n <= 0 { break }
        bytes += buffer.prefix(n)
    }
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: bytes, as: UTF8.self), String(decoding: stdout, as: UTF8.self))
}

/// The lines a terminal shows of `text`: split at carriage returns and newlines, kbhost's own
/// clearing and styling escapes taken out.
func shownLines(_ text: String) -> [Substring] {
    text.replacingOccurrences(of: "\u{1B}[K", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
        .split(whereSeparator: { $0 == "\r" || $0 == "\n" })
}

@Suite("kbhost stress and profile on a terminal")
struct StressTerminalTests {
    /// The progress line is redrawn in place and never wider than the terminal.
    @Test(.timeLimit(.minutes(1))) func theProgressLineFitsANarrowTerminal() throws {
        let w = try World()
        let r = try runOnTerminal(["stress", "--duration", "1.3", "--svg", w.root + "/s.svg"], world: w, columns: 40)
        #expect(r.status == 0)
        let text = r.terminal
        #expect(text.contains("taps/s"), "\(text.debugDescription)")
        for line in shownLines(text) {
            #expect(line.count < 40, "cut to the terminal's width: \(line.debugDescription)")
        }
    }

    /// A long profile says where it is (it said nothing until its report), cut to the terminal's
    /// width, and the line is cleared before the error or report.
    @Test(.timeLimit(.minutes(1))) func aLongProfileShowsItsProgressCutToTheTerminal() throws {
        let w = try World()
        let script = w.root + "/long.txt"
        try String(repeating: "1 ", count: 300_000).write(toFile: script, atomically: true, encoding: .utf8)
        let r = try runOnTerminal(["profile", "dev.kbhost.NumberPad", "--script", script, "--svg", w.root + "/p.svg"],
                                  world: w, columns: 40, interruptAfter: 2)
        #expect(r.status == 0)
        #expect(r.terminal.contains("tap ") && r.terminal.contains(" of 300000"), "\(r.terminal.debugDescription)")
        for line in shownLines(r.terminal) {
            #expect(line.count < 40, "cut to the terminal's width: \(line.debugDescription)")
        }
        #expect(r.terminal.hasSuffix("\r\u{1B}[K"), "cleared before the report")
        #expect(r.out.contains("interrupted (Ctrl-C) after tap"), "\(r.out)")
    }

    /// Redirected, a profile writes no progress at all (and so no escape sequences).
    @Test func aRedirectedProfileWritesNoProgress() throws {
        let w = try World()
        let script = w.root + "/long.txt"
        try String(repeating: "1 ", count: 20_000).write(toFile: script, atomically: true, encoding: .utf8)
        let r = try w.run(["profile", "dev.kbhost.NumberPad", "--script", script, "--svg", w.root + "/p.svg"],
                          extraEnvironment: LongRunTests.real)
        #expect(r.status == 0 && r.err.isEmpty, "\(r.err.debugDescription)")
    }
}
