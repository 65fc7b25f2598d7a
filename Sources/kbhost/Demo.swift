import ArgumentParser
import Foundation
import KBHost
import KBSystem
import KBText

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The bundled sample keyboards, each in its own extension process, with temporary settings. No setup.",
        discussion: """
            In a terminal it opens `kbhost attach` with the samples enabled (Ctrl-G cycles, Esc quits);             without one, or with --tour, it plays a short scripted tour and prints what happened.
            """)

    @Flag(help: "Play the scripted tour even in a terminal.") var tour = false

    struct Stop {
        var keyboard: String
        var taps: [String]
        var note: String
    }

    static let tour: [Stop] = [
        Stop(keyboard: "dev.kbhost.Calculator", taps: ["1", "2", "+", "3", "×", "4", "="],
             note: "the expression lives on the keyboard's display; \"=\" inserts the result"),
        Stop(keyboard: "dev.kbhost.Science", taps: ["shift", "H", "id:mode.1", "₂", "id:mode.0", "O", "shift", "space", "id:mode.3", "α", "id:left", "id:left"],
             note: "subscript and Greek pages; ◀ moves the cursor by one character"),
        Stop(keyboard: "dev.kbhost.Kana", taps: ["n", "i", "h", "o", "n", "g", "o", "space", "return"],
             note: "romaji compose hiragana as marked text; space converts through anthy, return commits"),
        Stop(keyboard: "dev.kbhost.English", taps: ["t", "e", "h", "space", "w", "o", "r", "l", "s", "space"],
             note: "a sentence starts with a capital; hunspell corrects on space and suggests above the keys"),
        Stop(keyboard: "dev.kbhost.NumberPad", taps: ["4", "2", "delete", "7", "globe"],
             note: "written in C against the ABI header; the globe key asks the host for the next keyboard"),
    ]

    func run() throws {
        Sys.ignoreSIGPIPE()
        if !tour && Terminal.isTerminal(0) && Terminal.isTerminal(1) { return try interactive() }
        let installation = Installation.current()
        Console.out("kbhost demo: each keyboard runs in its own extension process (host pid \(getpid())).\n")
        var failures = 0
        for stop in Demo.tour {
            do {
                try play(stop, installation: installation)
            } catch {
                failures += 1
                Console.out("  ✗ \(error)\n")
            }
        }
        if failures > 0 { throw ExitCode(Kbhost.Exit.keyboardFailed) }
    }

    /// attach on the samples, with settings in a temporary folder that is removed afterwards.
    func interactive() throws {
        let home: String
        do { home = try AtomicFile.makeTemporaryFolder(prefix: "kbhost-demo") } catch {
            throw exitWithError("cannot make a temporary folder for the demo: \(error)", status: Kbhost.Exit.refused)
        }
        defer { try? FileManager.default.removeItem(atPath: home) }
        try? Sys.setEnvironment("KBHOST_HOME", home)
        try? Sys.setEnvironment("KBHOST_RUNTIME_DIR", home + "/run")
        let store = SettingsStore(directory: home)
        try store.update { settings in
            settings.enabled = Demo.tour.map(\.keyboard) + [SystemKeyboard.identifier]
            settings.current = Demo.tour[0].keyboard
        }
        let attach = try Attach.parse([])
        try attach.run()
    }

    func play(_ stop: Stop, installation: Installation) throws {
        let keyboard = try installation.keyboard(stop.keyboard)
        let started = Sys.monotonicNanoseconds()
        var configuration = installation.processConfiguration
        configuration.keepSpare = true  // keyboards switch here: the next launch is only a load
        configuration.memoryBudgetBytes = Governor.defaultBudget
        let session = try KeyboardSession(keyboard: keyboard, configuration: configuration)
        try session.appear()
        let loadMs = Double(Sys.monotonicNanoseconds() - started) / 1e6
        // The keyboard's name, labels, display and document are escaped for one line each (TerminalText.line).
        let name = TerminalText.line(keyboard.manifest.displayName), id = TerminalText.line(keyboard.identifier)
        Console.out("\(name) (\(id)) — pid \(session.pid), ready in \(String(format: "%.1f", loadMs)) ms")
        Console.out("  \(stop.note)")
        // Empty slots (a candidate or suggestion row with nothing in it yet) are not drawn, as in attach.
        let rows = session.layout.labels.map { $0.filter { !$0.isEmpty }.map(TerminalText.line) }.filter { !$0.isEmpty }
        Console.out("  keys: \(rows.map { $0.joined(separator: " ") }.joined(separator: " | "))")
        for tap in stop.taps {
            try session.tap(tap)
            let display = session.layout.display.isEmpty ? "" : "   display: \(TerminalText.line(session.layout.display))"
            Console.out("  tap \(tap.padding(toLength: 10, withPad: " ", startingAt: 0)) → \(visible(session))\(display)")
        }
        try session.disappear()
        Console.out("  life cycle: \(session.events.map(\.name).joined(separator: " → "))\n")
        session.close()
    }

    /// The document on one line, with the insertion point shown as │ and a selection in [ ].
    func visible(_ session: KeyboardSession) -> String {
        let b = session.document.buffer
        let selected = b.selection.length > 0 ? "[\(TerminalText.line(b.selectedText))]" : "│"
        return "\"\(TerminalText.line(b.textBeforeSelection))\(selected)\(TerminalText.line(b.textAfterSelection))\""
    }
}
