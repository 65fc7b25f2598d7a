import ArgumentParser
import Foundation
import Glibc
import KBHost
import KBSystem
import KBText

struct Attach: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A text field in the terminal, typed into through the current keyboard.",
        discussion: """
            Typed characters tap the keys with those labels; Backspace, Enter and Space tap delete, \
            return and space; ←/→ move the cursor (the keyboard gets its selection callbacks); \
            Ctrl-G is the globe key (the next enabled keyboard); Ctrl-R rotates the device (the keyboard \
            gets viewWillTransition with its new size); Esc or Ctrl-C quits. \
            With `kbhost serve` running, a `kbhost next` anywhere switches this session at once.
            """)

    @OptionGroup var field: FieldOptions
    @OptionGroup var budget: BudgetOption
    @Option(help: "Text the field starts with.") var text = ""

    func run() throws {
        guard Terminal.isTerminal(0), Terminal.isTerminal(1) else {
            throw exitWithError("attach needs a terminal (stdin and stdout); for scripts use `kbhost type`", status: Kbhost.Exit.refused)
        }
        Sys.ignoreSIGPIPE()
        let context = try Context.make()
        let session = try AttachSession(context: context, field: field.field, text: text, budget: try budget.bytes(context))
        do { try Terminal.enterRawMode() } catch { throw exitWithError("\(error)", status: Kbhost.Exit.refused) }
        defer { Terminal.restore() }
        session.loop()
    }
}

/// The terminal text field: one document, the current keyboard's session (or
/// the built-in system keyboard), a globe key, and the daemon's news.
final class AttachSession {
    let context: Context
    let field: FieldContext
    var document: TextDocument
    let sessions = SessionPool(limit: 3)
    var currentID: String
    /// The keyboard used before the current one: where the user lands if the current one fails.
    var previousID: String?
    var status = ""
    var subscription: LineChannel?
    var running = true
    /// The device's orientation; Ctrl-R turns it.
    var landscape = false
    let budget: Int

    init(context: Context, field: FieldContext, text: String, budget: Int) throws {
        self.context = context
        self.budget = budget
        self.field = field
        document = TextDocument(text: text, traits: field.traits)
        let settings = try context.settings()
        currentID = InputModes.active(settings, registry: context.registry, field: field)
        subscription = DaemonClient.subscribe()
        activate(currentID)
    }

    var active: KeyboardSession? { sessions[currentID] }

    /// Shows a keyboard: the plugin's session (started or reused), or the system keyboard.
    func activate(_ id: String) {
        if let old = active, old.keyboard.identifier != id {
            try? old.disappear()
            document = old.document
        }
        if id != currentID { previousID = currentID }
        currentID = id
        guard let entry = context.registry.entry(id), let loadable = entry.loadable else { return }
        do {
            let settings = try context.settings()
            let session: KeyboardSession
            if let existing = sessions[id], existing.failure == nil {
                session = existing
                sessions.touch(id)
                let doc = document
                try session.editDocument { $0 = doc }
            } else {
                var configuration = context.installation.processConfiguration
                configuration.keepSpare = true  // keyboards switch here: the next launch is only a load
                configuration.memoryBudgetBytes = budget
                session = try KeyboardSession(keyboard: loadable, document: document,
                                              configuration: configuration,
                                              needsInputModeSwitchKey: InputModes.needsInputModeSwitchKey(settings, deviceDrawsGlobeKey: settings.deviceDrawsGlobeKey),
                                              hasFullAccess: settings.fullAccess.contains(id), inputModes: settings.enabled,
                                              access: context.access(for: id, settings))
                session.onAdvanceToNextInputMode = { [weak self] in self?.globe() }
                sessions.insert(session)
            }
            try session.appear()
        } catch {
            fellBack(from: id, because: "\(error)")
        }
    }

    /// A keyboard failed: what it committed stays (marked text committed as
    /// plain text); the failure is recorded — a keyboard that keeps failing is
    /// set aside — and the user lands on the previous keyboard, or the system one.
    func fellBack(from id: String, because reason: String) {
        if let failed = sessions.remove(id) { document = failed.document }
        let firstLine = String(reason.split(separator: "\n").first ?? "")
        let settings = try? context.store.update { $0.recordFailure(of: id, reason: firstLine, at: Date().timeIntervalSince1970) }
        var landing = SystemKeyboard.identifier
        if let previous = previousID, previous != id, let entry = context.registry.entry(previous),
           InputModes.ineligibility(of: entry, for: field) == nil,
           settings?.mayStart(previous, at: Date().timeIntervalSince1970) ?? true {
            landing = previous
        }
        currentID = id  // so that activate() records the failed one as previous
        activate(landing)
        let aside = settings?.failures[id]?.setAside == true ? "; set aside until enabled again" : ""
        status = "⚠ \(firstLine)\(aside) — switched to \(context.name(currentID))"
    }

    /// The globe key: the next enabled keyboard, written to the settings here;
    /// a running daemon is told, and tells the other attached sessions.
    func globe() {
        do {
            let settings = try context.store.update { settings in
                settings.current = InputModes.next(settings, registry: context.registry, field: field)
            }
            activate(settings.current)
            DaemonClient.notify()
        } catch {
            status = "⚠ \(error)"
        }
    }

    func loop() {
        render()
        var input = [UInt8](repeating: 0, count: 64)
        while running {
            var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]
            if let s = subscription { fds.append(pollfd(fd: s.fd, events: Int16(POLLIN), revents: 0)) }
            guard (try? Sys.poll(&fds, timeoutMilliseconds: 1000)) != nil else { continue }
            if fds.count > 1, fds[1].revents != 0 { daemonNews() }
            if fds[0].revents != 0 {
                let n = input.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                handle(Array(input[..<n]))
            }
            render()
        }
        sessions.closeAll()
    }

    func daemonNews() {
        guard var channel = subscription, let line = try? channel.receive(),
              let event = try? JSONDecoder().decode(DaemonReply.self, from: Data(line.utf8)) else {
            subscription = nil
            status = "the daemon went away; changes made elsewhere no longer reach this session"
            return
        }
        subscription = channel
        if event.event == "current", let id = event.identifier {
            let allowed = context.registry.entry(id).map { InputModes.ineligibility(of: $0, for: field) == nil } ?? false
            let target = allowed ? id : SystemKeyboard.identifier
            if target != currentID { activate(target) }  // this session's own globe key is already shown
        }
    }

    func handle(_ bytes: [UInt8]) {
        status = ""
        switch bytes {
        case [27], [3], [4]: running = false
        case [7]: globe()
        case [18]: rotate()
        case [27, 91, 68]: moveCursor(-1)
        case [27, 91, 67]: moveCursor(1)
        case [127], [8]: tap("delete")
        case [13], [10]: tap("return")
        case [32]: tap("space")
        default:
            guard bytes.first.map({ $0 >= 32 }) == true else { return }
            for character in String(decoding: bytes, as: UTF8.self) { tap(String(character)) }
        }
    }

    /// Turns the device: the keyboard hears its new size (viewWillTransition).
    func rotate() {
        landscape.toggle()
        let size = landscape ? TapStep.landscape : TapStep.portrait
        status = "rotated to \(landscape ? "landscape" : "portrait") (\(Int(size.width))×\(Int(size.height)) points)"
        guard let session = active else { return }
        do { try session.transition(toWidth: size.width, height: size.height) } catch {
            fellBack(from: currentID, because: error.description)
        }
    }

    func tap(_ name: String) {
        guard let session = active else {
            // The built-in system keyboard types straight into the document.
            switch name {
            case "delete": document.buffer.deleteBackward()
            case "return": document.buffer.insertText("\n")
            case "space": document.buffer.insertText(" ")
            default: document.buffer.insertText(name)
            }
            return
        }
        // Characters a terminal can type, for keys labelled with their typographic forms.
        let aliases = ["-": "−", "*": "×", "/": "÷"]
        let target = session.layout.key(named: name) == nil ? (aliases[name] ?? name) : name
        do {
            // A capital on a keyboard whose letter keys keep lowercase labels: shift, then the letter.
            if session.layout.key(named: target) == nil, target != target.lowercased(),
               session.layout.key(named: target.lowercased()) != nil, session.layout.key(named: "shift") != nil {
                try session.tap("shift")
                try session.tap(target.lowercased())
                return
            }
            try session.tap(target)
        } catch {
            if case .noSuchKey = error { status = "no key '\(name)' on \(context.name(session.keyboard.identifier))" }
            else { fellBack(from: currentID, because: error.description) }
        }
    }

    func moveCursor(_ by: Int) {
        guard let session = active else { return document.buffer.moveInsertionPoint(byCharacters: by) }
        do { try session.editDocument { $0.buffer.moveInsertionPoint(byCharacters: by) } } catch {
            fellBack(from: currentID, because: "\(error)")
        }
    }

    var currentDocument: TextDocument { active?.document ?? document }

    /// Draws the screen. What the keyboard and its manifest control (the document, the
    /// name, the display line, the key labels, a failure in the status) is escaped for
    /// one line each (TerminalText.line): only kbhost's own sequences reach the terminal.
    func render() {
        let doc = currentDocument.buffer
        let entry = context.registry.entry(currentID)
        let language = TerminalText.line(entry?.manifest.primaryLanguage ?? "")
        var lines: [String] = []
        var header = "kbhost attach — \(context.name(currentID)) (\(TerminalText.line(currentID)), \(language))"
        if let session = active, let footprint = FootprintReader(pid: session.pid)?.read() {
            let mib = Double(footprint.total) / 1_048_576
            header += String(format: " · pid %d · %.1f MiB of %d MiB", session.pid, mib, budget >> 20)
        }
        lines.append(header)
        let rule = String(repeating: "─", count: min(Terminal.width(), 100))
        lines.append(rule)
        lines.append(" " + AttachSession.show(doc))
        lines.append(rule)
        if let session = active {
            if !session.layout.display.isEmpty { lines.append(" display: \(TerminalText.line(session.layout.display))") }
            for row in session.layout.rows {
                lines.append(" " + row.map { "[\(TerminalText.line($0.label))]" }.joined(separator: " "))
            }
        } else {
            lines.append(" System keyboard: type freely")
        }
        lines.append(" [🌐 Ctrl-G]")
        lines.append(rule)
        lines.append(" type to tap keys · Backspace/Enter/Space · ←/→ move · Ctrl-G next keyboard · Ctrl-R rotate · Esc quits")
        if !status.isEmpty { lines.append(" " + TerminalText.line(status)) }
        let screen = "\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\n") + "\n"
        FileHandle.standardOutput.write(Data(screen.utf8))
    }

    /// The document with the caret (│), the selection in reverse video and
    /// marked text underlined; a newline shows as ⏎, other control characters escaped.
    static func show(_ b: TextBuffer) -> String {
        var out = ""
        var offset = 0
        let caret = b.selection.isEmpty ? b.selection.location : -1
        for character in b.text {
            if offset == caret { out += "\u{1B}[1m│\u{1B}[22m" }
            let inSelection = !b.selection.isEmpty && offset >= b.selection.location && offset < b.selection.end
            let inMarked = b.markedRange.map { offset >= $0.location && offset < $0.end } ?? false
            var shown = character == "\n" ? "⏎" : TerminalText.line(String(character))
            if inMarked { shown = "\u{1B}[4m" + shown + "\u{1B}[24m" }
            if inSelection { shown = "\u{1B}[7m" + shown + "\u{1B}[27m" }
            out += shown
            offset += character.utf16.count
        }
        if offset == caret { out += "\u{1B}[1m│\u{1B}[22m" }
        return out
    }
}
