import Foundation
import KBHost
import KBSystem
import KBText

// MARK: Drawing `attach`'s screen

extension AttachSession {
    /// Draws the screen, every line cut to the terminal's width. What the keyboard
    /// and its manifest control (the document, the name, the display line, the key
    /// labels, a failure in the status) is escaped for one line each
    /// (TerminalText.line): only kbhost's own sequences reach the terminal.
    func render() {
        let width = max(Terminal.width(), 20)
        let doc = currentDocument.buffer
        let entry = context.registry.entry(currentID)
        let language = TerminalText.line(entry?.manifest.primaryLanguage ?? "")
        var lines: [String] = []
        var header = "kbhost attach — \(context.name(currentID)) (\(TerminalText.line(currentID)), \(language))"
        // The governor's last sample counts the keyboard's file locks; /proc alone does not.
        if let session = active,
           let footprint = Governor.shared.footprint(of: session.pid) ?? FootprintReader(pid: session.pid)?.read()?.total {
            let mib = Double(footprint) / 1_048_576
            header += String(format: " · pid %d · %.1f MiB of %d MiB", session.pid, mib, budget >> 20)
        }
        lines.append(header)
        let rule = String(repeating: "─", count: width)
        lines.append(rule)
        // The text near the caret, so that the caret stays on the screen however long the text.
        let near = DocumentWindow.cut(from: doc, limit: max(8, width / 2 - 4)).window
        lines.append(" " + (near.truncatedBefore ? "…" : "") + Self.show(near.buffer, masked: manager.field.traits.isSecureTextEntry))
        lines.append(rule)
        if let session = active {
            if !session.layout.display.isEmpty { lines.append(" display: \(TerminalText.line(session.layout.display))") }
            let marked = doc.markedText.map(String.init)
            var rows: [(index: Int, line: String)] = []
            for (index, row) in session.layout.rows.enumerated() {
                let keys = row.filter { !$0.label.isEmpty }  // empty slots are not drawn
                guard !keys.isEmpty else { continue }
                rows.append((index, " " + keys.map { key in
                    var shown = "[\(TerminalText.line(key.label))]"
                    let chosen = key.identifier.hasPrefix("candidate.") && key.label == marked
                    let highlighted = highlight.map { $0.row == key.row && $0.column == key.column } ?? false
                    if chosen || highlighted { shown = "\u{1B}[7m" + shown + "\u{1B}[27m" }
                    return shown
                }.joined(separator: " ")))
            }
            // A layout taller than the terminal shows the rows that fit (around the highlighted
            // key's): drawn whole, it scrolled kbhost's header and the document off the screen
            // (twelfth red team, N4).
            let statusLines = status.isEmpty ? 0 : Self.wrap(TerminalText.line(status), width: width - 1).count
            let room = max(Terminal.height() - lines.count - 6 - statusLines, 1)
            if rows.count > room {
                let shown = max(room - 1, 1)
                let around = highlight.flatMap { h in rows.firstIndex { $0.index == h.row } } ?? 0
                let first = min(max(around - shown / 2, 0), rows.count - shown)
                lines += rows[first ..< first + shown].map(\.line)
                lines.append(" … \(rows.count - shown) more rows (Tab reaches their keys)")
            } else {
                lines += rows.map(\.line)
            }
        } else {
            lines.append(" System keyboard: type freely")
        }
        lines.append(" [🌐 Ctrl-G]")
        lines.append(rule)
        lines.append(highlight == nil
            ? " type to tap keys · Tab reaches any key · ←/→ move · 1–9 candidates · Ctrl-G next keyboard · Ctrl-R rotate · Esc quits"
            : " Tab/Shift-Tab move · Enter taps the highlighted key · Esc drops the highlight")
        var screenLines = lines.map { TerminalText.cut($0, toWidth: width) }
        // The status is read, not scanned: it wraps at words instead of being cut.
        if !status.isEmpty { screenLines += Self.wrap(TerminalText.line(status), width: width - 1).map { " " + $0 } }
        let screen = "\u{1B}[H\u{1B}[2J" + screenLines.joined(separator: "\n") + "\n"
        FileHandle.standardOutput.write(Data(screen.utf8))
    }

    /// Plain text in lines of at most `width` columns, broken at spaces where it can be.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if candidate.reduce(0, { $0 + TerminalText.columns($1) }) <= width || line.isEmpty {
                line = candidate
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map { TerminalText.cut($0, toWidth: width) }
    }

    /// The document with the caret (│), the selection in reverse video and
    /// marked text underlined; a newline shows as ⏎, other control characters
    /// escaped. A secure field shows • for each character.
    static func show(_ b: TextBuffer, masked: Bool = false) -> String {
        var out = ""
        var offset = 0
        let caret = b.selection.isEmpty ? b.selection.location : -1
        for character in b.text {
            if offset == caret { out += "\u{1B}[1m│\u{1B}[22m" }
            let inSelection = !b.selection.isEmpty && offset >= b.selection.location && offset < b.selection.end
            let inMarked = b.markedRange.map { offset >= $0.location && offset < $0.end } ?? false
            var shown = masked ? "•" : character == "\n" ? "⏎" : TerminalText.line(String(character))
            if inMarked { shown = "\u{1B}[4m" + shown + "\u{1B}[24m" }
            if inSelection { shown = "\u{1B}[7m" + shown + "\u{1B}[27m" }
            out += shown
            offset += character.utf16.count
        }
        if offset == caret { out += "\u{1B}[1m│\u{1B}[22m" }
        return out
    }
}
