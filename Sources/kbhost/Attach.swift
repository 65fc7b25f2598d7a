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
            Typed (or pasted) characters tap the keys with those labels; Backspace, Enter and Space tap delete, \
            return and space; ←/→ move the cursor, or move between conversion segments while text is marked \
            (Shift-←/→ shrink and extend the segment); digits choose a conversion candidate. Tab and Shift-Tab move a \
            highlight over every key and Enter taps it (Esc drops the highlight), so any key can be reached. \
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
        for id in (try? context.settings().enabled) ?? [] {
            if let entry = context.registry.entry(id) { context.warnIfStale(entry) }
        }
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
    var input = TerminalInput()
    /// The key Tab moved to (row, column), tapped by Enter.
    var highlight: (row: Int, column: Int)?
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
        subscription = DaemonClient.subscribeWithoutWaiting()
        manager.onSettingsChanged = { DaemonClient.notifyWithoutWaiting() }
        manager.onEvent = { [weak self] event in
            guard let self, case .keyboardFailed(_, let reason, let setAside, let landedOn) = event else { return }
            let aside = setAside ? "; set aside until enabled again" : ""
            status = "⚠ switched to \(context.name(landedOn)): \(reason)\(aside)"
        }
        manager.start()
    }

    var currentID: String { manager.currentID }
    var active: KeyboardSession? { manager.active }

    func loop() {
        render()
        var bytes = [UInt8](repeating: 0, count: 4096)
        while running {
            var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]
            if let s = subscription { fds.append(pollfd(fd: s.fd, events: Int16(POLLIN), revents: 0)) }
            // A lone ESC may start an arrow key: wait 50 ms for the rest before calling it Escape.
            let ready = (try? Sys.poll(&fds, timeoutMilliseconds: input.isWaiting ? 50 : 1000)) ?? 0
            if ready == 0, input.isWaiting { input.flush().forEach(handle) }
            if fds.count > 1, fds[1].revents != 0 { daemonNews() }
            if subscription == nil { resubscribe() }
            if fds[0].revents != 0 {
                // nil: end of input, or the read failed; 0: interrupted.
                guard let n = bytes.withUnsafeMutableBytes({ try? Sys.readAvailable(0, into: $0) }), n > 0 else { break }
                status = ""
                for key in input.feed(Array(bytes[..<n])) where running { handle(key) }
                keepAWindow()
            }
            render()  // also after a resize (poll returns early with EINTR) and once a second
        }
        manager.close()
    }

    /// The field keeps a window of its text around the cursor, as the IBus engine does: a
    /// keyboard inserting megabytes a key grew attach by as much a key, outside any budget (red
    /// team 3's F4; fifth red team, R5-6). The screen shows the text near the caret anyway.
    static let keptAroundCursor = 16_384  // UTF-16 units each side; cut back past four times as much

    func keepAWindow() {
        if let cut = DocumentWindow.cutBack(currentDocument.buffer, keep: Self.keptAroundCursor) { manager.appChanged(cut) }
    }

    /// Without a daemon (it went away, was never started, or dropped this
    /// session for falling behind), looks for one at most once a second and
    /// catches up with the settings when it is back.
    func resubscribe() {
        let now = Date()
        guard now.timeIntervalSince(lastSubscribeAttempt) >= 1 else { return }
        lastSubscribeAttempt = now
        guard let channel = DaemonClient.subscribeWithoutWaiting() else { return }
        subscription = channel
        manager.settingsChanged()
        if let current = try? context.store.load().current { manager.follow(current: current) }
        if status.hasPrefix("the daemon went away") { status = "" }
    }

    /// Every event the daemon has sent (one read may bring several lines, or part of one),
    /// read without waiting: a daemon stopped halfway through a line must not stop the session.
    func daemonNews() {
        guard var channel = subscription, let lines = channel.receiveAvailable() else {
            if let channel = subscription { Sys.close(channel.fd) }
            subscription = nil
            status = "the daemon went away; this session reconnects when it is back"
            return
        }
        subscription = channel
        for line in lines {
            guard let event = try? JSONDecoder().decode(DaemonReply.self, from: Data(line.utf8)), event.ok != nil || event.event != nil else {
                // Declined (it serves another KBHOST_HOME) or refused (an older daemon): on without it.
                Sys.close(channel.fd)
                subscription = nil
                return
            }
            if event.event == "current", let id = event.identifier { manager.follow(current: id) }
            if event.event == "settings" { manager.settingsChanged() }
        }
    }

    func handle(_ key: TerminalInput.Key) {
        let marked = currentDocument.buffer.markedRange != nil
        switch key {
        case .escape where highlight != nil: highlight = nil
        case .escape, .control(3), .control(4): running = false
        case .control(7): globe()
        case .control(18): rotate()
        case .tab, .shiftTab: moveHighlight(key == .tab ? 1 : -1)
        case .enter where highlight != nil: tapHighlighted()
        case .left where marked && hasKey("id:left"): tap("id:left")
        case .right where marked && hasKey("id:right"): tap("id:right")
        case .shiftLeft where marked && hasKey("id:shrink"): tap("id:shrink")
        case .shiftRight where marked && hasKey("id:extend"): tap("id:extend")
        case .left, .shiftLeft: manager.moveCursor(by: -1)
        case .right, .shiftRight: manager.moveCursor(by: 1)
        case .backspace: tap("delete")
        case .enter: tap("return")
        case .space: tap("space")
        case .character(let c):
            if let digit = Int(c), digit >= 1, digit <= 9, let candidate = candidateKeys.dropFirst(digit - 1).first {
                return tap("id:" + candidate.identifier)
            }
            tap(c)
        case .up, .down, .control, .unknown: break
        }
    }

    func hasKey(_ name: String) -> Bool { active?.layout.key(named: name) != nil }

    /// Conversion candidates on show (keys `candidate.N`), in order.
    var candidateKeys: [KeyboardLayout.Key] {
        (active?.layout.rows.joined()).map { $0.filter { $0.identifier.hasPrefix("candidate.") && !$0.label.isEmpty } } ?? []
    }

    /// Every key a person can tap, row by row (empty slots are skipped).
    var reachableKeys: [KeyboardLayout.Key] {
        (active?.layout.rows.joined()).map { $0.filter { !$0.label.isEmpty && $0.action != nil } } ?? []
    }

    func moveHighlight(_ step: Int) {
        let keys = reachableKeys
        guard !keys.isEmpty else { return }
        let now = highlight.flatMap { h in keys.firstIndex { $0.row == h.row && $0.column == h.column } }
        let next = now.map { ($0 + step + keys.count) % keys.count } ?? (step > 0 ? 0 : keys.count - 1)
        highlight = (keys[next].row, keys[next].column)
    }

    func tapHighlighted() {
        guard let h = highlight, let key = active?.layout.rows[safe: h.row]?[safe: h.column] else { return highlight = nil }
        tap(key.identifier.isEmpty ? key.label : "id:" + key.identifier)
        if active?.layout.rows[safe: h.row]?[safe: h.column] == nil { highlight = nil }  // the layout changed under it
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
        if manager.tap(name, otherPages: true) == .noSuchKey, let session = active {
            status = "no key '\(name)' on \(context.name(session.keyboard.identifier))"
        }
    }

    var currentDocument: TextDocument { manager.currentDocument }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
