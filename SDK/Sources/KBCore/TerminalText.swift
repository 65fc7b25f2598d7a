/// Text a keyboard or a manifest controls, made visible and harmless for a terminal.
///
/// A keyboard's document, key labels and display line, a manifest's names and a
/// keyboard's own output all reach the user's terminal. Written as they are, their
/// control characters are instructions to that terminal: ESC [2J clears the screen,
/// OSC 52 writes the clipboard, CSI (U+009B) starts a sequence on terminals that
/// read C1, a CR or a newline forges a line of kbhost's own output. So they are
/// data: every C0 control, DEL and every C1 control is shown as a Swift escape —
/// `\n`, `\r`, `\t`, and `\u{1B}` (hex, upper case) for the others — which is visible
/// and inert. Ordinary text, whatever its script, is never changed.
///
/// Where text may span lines (a document, a keyboard's stderr) newlines and tabs
/// stay. Where it is one line (a name, an identifier, a label, a display line, a
/// table cell) they are escaped too, and so are the line and paragraph separators
/// (U+2028, U+2029) and the bidi overrides and isolates (U+202A–U+202E,
/// U+2066–U+2069), which reorder the rest of the line around them.
///
/// The escapes are printable ASCII, so escaping twice changes nothing.
public enum TerminalText {
    public enum Place: Sendable {
        /// One line: a name, an identifier, a label, a table cell.
        case line
        /// Text that may span lines: a document, a keyboard's output.
        case lines
    }

    /// C0 controls (U+0000–U+001F), DEL and the C1 controls (U+0080–U+009F).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Whether a scalar is shown escaped in a place.
    public static func isEscaped(_ scalar: Unicode.Scalar, in place: Place) -> Bool {
        switch place {
        case .lines:
            isControl(scalar) && scalar != "\n" && scalar != "\t"
        case .line:
            isControl(scalar) || (0x2028...0x2029).contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
    }

    /// `text` with the characters that are not data for a terminal in `place` escaped.
    public static func escape(_ text: some StringProtocol, for place: Place) -> String {
        guard text.unicodeScalars.contains(where: { isEscaped($0, in: place) }) else { return String(text) }
        // Appended to a String: appending a sequence to a String.UnicodeScalarView copies all of it each
        // time, and a 1 MiB display line of ESC held the IBus engine (every app's keys) for minutes
        // (seventeenth red team).
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            guard isEscaped(scalar, in: place) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += #"\n"#
            case "\r": out += #"\r"#
            case "\t": out += #"\t"#
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }

    /// One line: a name, an identifier, a label, a display line.
    public static func line(_ text: some StringProtocol) -> String { escape(text, for: .line) }

    /// Text that may span lines: a document, a keyboard's output.
    public static func lines(_ text: some StringProtocol) -> String { escape(text, for: .lines) }

    /// A value quoted for an error message: escaped for one line, in single quotes,
    /// and cut at `limit` characters (with an ellipsis) so that a huge value cannot drown the message.
    public static func quoted(_ text: some StringProtocol, limit: Int = 80) -> String {
        let cut = text.count > limit
        return "'" + line(cut ? text.prefix(limit) : text[...]) + (cut ? "…" : "") + "'"
    }

    /// Encoded JSON with DEL and the C1 controls written as `\u00XX` escapes.
    /// (JSONEncoder escapes the C0 controls but writes DEL and C1 as they are;
    /// outside strings JSON is ASCII, so every one of them is inside a string.)
    public static func json(_ encoded: String) -> String {
        guard encoded.unicodeScalars.contains(where: { (0x7F...0x9F).contains($0.value) }) else { return encoded }
        var out = ""  // (a String: see `escape`)
        out.reserveCapacity(encoded.utf8.count)
        for scalar in encoded.unicodeScalars {
            if (0x7F...0x9F).contains(scalar.value) {
                out += "\\u00" + String(scalar.value, radix: 16)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

// MARK: Width on screen

extension TerminalText {
    /// Columns a character takes in a terminal: 2 for wide (CJK, emoji), 0 for combining marks.
    public static func columns(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if character.unicodeScalars.count > 1, character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if first.properties.isEmojiPresentation { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// A line cut to `width` columns with "…" when it is longer; the escape
    /// sequences it holds (kbhost's own styling) pass through and take no columns.
    public static func cut(_ line: String, toWidth width: Int) -> String {
        var used = 0
        var out = ""
        var inEscape = false
        var cutAt: String.Index?
        for index in line.indices {
            let c = line[index]
            if inEscape {
                out.append(c)
                if let a = c.asciiValue, (64...126).contains(a), c != "[" { inEscape = false }
                continue
            }
            if c == "\u{1B}" { inEscape = true; out.append(c); continue }
            let w = columns(c)
            if used + w > width - 1, cutAt == nil { cutAt = index }
            if used + w > width {
                // Too long: keep what fits before the last column, then "…", then only escapes.
                var kept = ""
                var escaping = false
                for d in line[..<cutAt!] {
                    if escaping || d == "\u{1B}" {
                        kept.append(d)
                        if d == "\u{1B}" { escaping = true } else if let a = d.asciiValue, (64...126).contains(a), d != "[" { escaping = false }
                        continue
                    }
                    kept.append(d)
                }
                return kept + "…" + "\u{1B}[0m"
            }
            used += w
            out.append(c)
        }
        return out
    }
}
