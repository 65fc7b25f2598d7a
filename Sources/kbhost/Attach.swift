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

/// The terminal text field: a front end over the input manager (which holds
/// the document, the current keyboard, the globe key and failover). This
/// class reads keys, subscribes to the daemon, and draws.
final class AttachSession {
    let context: Context
    let manager: InputManager
    var status = ""
    var subscription: LineChannel?
    var lastSubscribeAttempt = Date()
    var running = true
    var budget: Int { manager.budget }

    init(context: Context, field: FieldContext, text: String, budget: Int) throws {
        self.context = context
        do {
            manager = try InputManager(installation: context.installation, store: context.store, registry: context.registry,
                                       field: field, text: text, budget: budget)
        } catch {
            throw exitWithError(error.description, status: Kbhost.Exit.badSettings)
        }
        subscription = DaemonClient.subscribe()
        manager.onSettingsChanged = { DaemonClient.notify() }
        manager.onEvent = { [weak self] event in
            guard let self, case .keyboardFailed(_, let reason, let setAside, let landedOn) = event else { return }
            let aside = setAside ? "; set aside until enabled again" : ""
            status = "⚠ \(reason)\(aside) — switched to \(context.name(landedOn))"
        }
        manager.start()
    }

    var currentID: String { manager.currentID }
    var active: KeyboardSession? { manager.active }

    func loop() {
        render()
        var input = [UInt8](repeating: 0, count: 64)
        while running {
            var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]
            if let s = subscription { fds.append(pollfd(fd: s.fd, events: Int16(POLLIN), revents: 0)) }
            guard (try? Sys.poll(&fds, timeoutMilliseconds: 1000)) != nil else { continue }
            if fds.count > 1, fds[1].revents != 0 { daemonNews() }
            if subscription == nil { resubscribe() }
            if fds[0].revents != 0 {
                let n = input.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                handle(Array(input[..<n]))
            }
            render()
        }
        manager.close()
    }

    /// Without a daemon (it went away, was never started, or dropped this
    /// session for falling behind), looks for one at most once a second and
    /// catches up with the settings when it is back.
    func resubscribe() {
        let now = Date()
        guard now.timeIntervalSince(lastSubscribeAttempt) >= 1 else { return }
        lastSubscribeAttempt = now
        guard let channel = DaemonClient.subscribe() else { return }
        subscription = channel
        manager.settingsChanged()
        if let current = try? context.store.load().current { manager.follow(current: current) }
        if status.hasPrefix("the daemon went away") { status = "" }
    }

    /// Every event the daemon has sent (one read may bring several lines).
    func daemonNews() {
        repeat {
            guard var channel = subscription, let line = try? channel.receive(),
                  let event = try? JSONDecoder().decode(DaemonReply.self, from: Data(line.utf8)) else {
                subscription = nil
                status = "the daemon went away; this session reconnects when it is back"
                return
            }
            subscription = channel
            if event.event == "current", let id = event.identifier { manager.follow(current: id) }
            if event.event == "settings" { manager.settingsChanged() }
        } while subscription?.hasBufferedLine == true
    }

    func handle(_ bytes: [UInt8]) {
        status = ""
        switch bytes {
        case [27], [3], [4]: running = false
        case [7]: globe()
        case [18]: rotate()
        case [27, 91, 68]: manager.moveCursor(by: -1)
        case [27, 91, 67]: manager.moveCursor(by: 1)
        case [127], [8]: tap("delete")
        case [13], [10]: tap("return")
        case [32]: tap("space")
        default:
            guard bytes.first.map({ $0 >= 32 }) == true else { return }
            for character in String(decoding: bytes, as: UTF8.self) { tap(String(character)) }
        }
    }

    func globe() {
        do { try manager.globe() } catch { status = "⚠ \(error)" }
    }

    func rotate() {
        manager.rotate()
        let size = manager.landscape ? TapStep.landscape : TapStep.portrait
        if status.isEmpty {
            status = "rotated to \(manager.landscape ? "landscape" : "portrait") (\(Int(size.width))×\(Int(size.height)) points)"
        }
    }

    func tap(_ name: String) {
        if manager.tap(name) == .noSuchKey, let session = active {
            status = "no key '\(name)' on \(context.name(session.keyboard.identifier))"
        }
    }

    var currentDocument: TextDocument { manager.currentDocument }

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
