/// Drawing a `KeyboardPicture` as SVG.
///
/// One `<g class="key …">` per drawn key holds exactly one `<rect>` (the key cap
/// or the candidate's cell), its label as `<text>` and, on a key cap, a `<path>`
/// for its shadow; the background, shadows and dividers are paths, so the
/// picture's `<rect>`s are its keys. The root and every key carry `data-`
/// attributes with their figures (a key's identifier, label, role, width in
/// layout units, row and column) for scripts and tests.
///
/// Every text a keyboard controls (labels, identifiers, the display line) is
/// escaped for XML: `<&>` stays text, and a control character is drawn as its
/// Control Pictures symbol (␛ for ESC), since XML cannot hold most of them.
extension KeyboardPicture {
    /// The colours of one appearance, close to iOS's keyboard.
    struct Palette {
        var background: String
        var characterKey: String
        var functionKey: String
        var shadow: String
        var text: String
        var divider: String
        var displayText: String

        static let light = Palette(background: "#D1D4DA", characterKey: "#FFFFFF", functionKey: "#ABB0BC",
                                   shadow: "#898A8D", text: "#000000", divider: "#A9ACB3", displayText: "#3C3C43")
        static let dark = Palette(background: "#202022", characterKey: "#6B6B6E", functionKey: "#444447",
                                  shadow: "#0B0B0C", text: "#FFFFFF", divider: "#555558", displayText: "#EBEBF0")
    }

    /// The fonts, in order: Latin and symbols, then Droid Sans Fallback (Debian's
    /// fonts-droid-fallback) for Japanese and Chinese; fontconfig falls back
    /// further for any other script.
    public static let fontFamily = "DejaVu Sans, Droid Sans Fallback, Noto Sans CJK JP, sans-serif"

    /// The picture as a standalone SVG document, in points.
    public var svg: String {
        let p = appearance == .light ? Palette.light : Palette.dark
        let m = Metrics(orientation)
        let (w, h) = (Self.number(width), Self.number(height))
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(w)" height="\(h)" viewBox="0 0 \(w) \(h)" \
            font-family="\(Self.fontFamily)" data-keyboard="\(Self.xml(keyboard))" \
            data-orientation="\(orientation.rawValue)" data-appearance="\(appearance.rawValue)" \
            data-unit="\(Self.number(unit))" data-gap="\(Self.number(gap))">
            <title>\(Self.xml(keyboard)), \(orientation.rawValue), \(appearance.rawValue)</title>
            <path class="background" d="M0 0H\(w)V\(h)H0Z" fill="\(p.background)"/>

            """
        if let f = displayFrame {
            let inner = Frame(x: f.x + 7, y: f.y, width: f.width - 14, height: f.height)
            let size = Self.fit(Self.shown(display, limit: 80), base: m.labelFont, in: inner)
            out += """
                <g class="display" data-display="\(Self.datum(display))"><text xml:space="preserve" x="\(Self.number(inner.x + 3))" \
                y="\(Self.number(Self.baseline(f, size)))" font-size="\(Self.number(size))" \
                fill="\(p.displayText)">\(Self.xml(Self.shown(display, limit: 80)))</text></g>

                """
        }
        var previous: Key?
        let drawn = drawnKeys
        for key in drawn {
            out += draw(key, after: previous, p, m)
            previous = key
        }
        let left = visibleKeys.count - drawn.count
        if left > 0 { out += "<desc class=\"not-drawn\">\(left) more keys not drawn</desc>\n" }
        return out + "</svg>\n"
    }

    /// Keys drawn at most, in all and in a row (a keyboard shows tens; the IBus panel the first 100
    /// candidates): one that sent 100,000 in a row, within the wire's limits and its budget, had
    /// `preview --png` take 31 s and 0.9 GB in rsvg-convert for a picture of specks (nineteenth red team, F2).
    public static let drawnKeyLimit = 1_000, drawnRowLimit = 100

    /// The keys drawn: the visible ones, the first `drawnRowLimit` of each row, the first `drawnKeyLimit` in all.
    public var drawnKeys: [Key] {
        var (drawn, row, inRow) = ([Key](), -1, 0)
        for key in keys where key.style != .gap && drawn.count < Self.drawnKeyLimit {
            if key.row != row { (row, inRow) = (key.row, 0) }
            inRow += 1
            if inRow <= Self.drawnRowLimit { drawn.append(key) }
        }
        return drawn
    }

    private func draw(_ key: Key, after previous: Key?, _ p: Palette, _ m: Metrics) -> String {
        let f = key.frame
        var out = """
            <g class="key \(key.style.rawValue)" data-id="\(Self.datum(key.identifier))" data-label="\(Self.datum(key.label))" \
            data-role="\(key.role)" data-width="\(Self.number(key.width))" data-row="\(key.row)" data-column="\(key.column)">
            """
        switch key.style {
        case .candidate:
            if let previous, previous.style == .candidate, previous.row == key.row {
                out += "<path class=\"divider\" d=\"M\(Self.number(f.x)) \(Self.number(f.y + f.height * 0.25))"
                    + "V\(Self.number(f.y + f.height * 0.75))\" stroke=\"\(p.divider)\" stroke-width=\"1\"/>"
            }
            out += "<rect x=\"\(Self.number(f.x))\" y=\"\(Self.number(f.y))\" width=\"\(Self.number(f.width))\" "
                + "height=\"\(Self.number(f.height))\" fill=\"none\"/>"
        case .character, .function, .gap:
            let shadow = Frame(x: f.x, y: f.y + 1, width: f.width, height: f.height)
            out += "<path class=\"shadow\" d=\"\(Self.roundedRect(shadow, radius: m.radius))\" fill=\"\(p.shadow)\"/>"
            let fill = key.style == .character ? p.characterKey : p.functionKey
            out += "<rect x=\"\(Self.number(f.x))\" y=\"\(Self.number(f.y))\" width=\"\(Self.number(f.width))\" "
                + "height=\"\(Self.number(f.height))\" rx=\"\(Self.number(min(m.radius, f.width / 2)))\" fill=\"\(fill)\"/>"
        }
        if key.role == "globe" && key.label == "🌐" {
            out += Self.globe(in: f, stroke: p.text)  // drawn, as iOS does: emoji fonts are rarely installed
        } else if !key.label.isEmpty {
            out += "<text x=\"\(Self.number(f.x + f.width / 2))\" y=\"\(Self.number(Self.baseline(f, key.fontSize)))\" "
                + "font-size=\"\(Self.number(key.fontSize))\" text-anchor=\"middle\" fill=\"\(p.text)\">"
                + "\(Self.xml(Self.shown(key.label)))</text>"
        }
        return out + "</g>\n"
    }

    /// A text for a `data-` attribute: escaped, and at most 1,024 Unicode scalars (a display line of 7 MiB,
    /// drawn cut, still made a 10 MB SVG that rsvg-convert took 100 s to read: nineteenth red team, F2).
    static func datum(_ text: String) -> String {
        xml(text.unicodeScalars.count <= 1024 ? text : String(text.unicodeScalars.prefix(1023)) + "…")
    }

    /// The globe key's symbol: a circle, a meridian and three parallels.
    static func globe(in f: Frame, stroke: String) -> String {
        let r = min(f.width, f.height) * 0.24
        let (cx, cy) = (f.x + f.width / 2, f.y + f.height / 2)
        let n = number
        return "<g class=\"globe\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"1.2\">"
            + "<circle cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"\(n(r))\"/>"
            + "<ellipse cx=\"\(n(cx))\" cy=\"\(n(cy))\" rx=\"\(n(r * 0.45))\" ry=\"\(n(r))\"/>"
            + "<path d=\"M\(n(cx - r)) \(n(cy))H\(n(cx + r))M\(n(cx - r * 0.87)) \(n(cy - r / 2))H\(n(cx + r * 0.87))"
            + "M\(n(cx - r * 0.87)) \(n(cy + r / 2))H\(n(cx + r * 0.87))M\(n(cx)) \(n(cy - r))V\(n(cy + r))\"/></g>"
    }

    /// A rounded rectangle as path data.
    static func roundedRect(_ f: Frame, radius: Double) -> String {
        let r = min(radius, f.width / 2, f.height / 2)
        let n = number
        let (x0, y0, x1, y1) = (f.x, f.y, f.x + f.width, f.y + f.height)
        return "M\(n(x0 + r)) \(n(y0))H\(n(x1 - r))A\(n(r)) \(n(r)) 0 0 1 \(n(x1)) \(n(y0 + r))"
            + "V\(n(y1 - r))A\(n(r)) \(n(r)) 0 0 1 \(n(x1 - r)) \(n(y1))"
            + "H\(n(x0 + r))A\(n(r)) \(n(r)) 0 0 1 \(n(x0)) \(n(y1 - r))"
            + "V\(n(y0 + r))A\(n(r)) \(n(r)) 0 0 1 \(n(x0 + r)) \(n(y0))Z"
    }

    /// Where a label's baseline goes to centre it vertically in a frame.
    static func baseline(_ f: Frame, _ fontSize: Double) -> Double { f.y + f.height / 2 + fontSize * 0.35 }

    /// A figure as SVG writes it: hundredths at most, no trailing ".0".
    static func number(_ value: Double) -> String {
        let r = round2(value)
        return r == r.rounded() && abs(r) < 1e15 ? String(Int(r)) : String(r)
    }

    /// Text for XML content or an attribute value: the five markup characters as
    /// entities; C0 controls (newline and tab too, which an attribute would
    /// normalize away) as their Control Pictures symbols, DEL as ␡; C1 controls
    /// and the noncharacters U+FFFE, U+FFFF, which XML does not allow, as U+FFFD.
    public static func xml(_ text: String) -> String {
        // A String, appended to: a sequence appended to a String.UnicodeScalarView copies all of it
        // each time (quadratic; see TerminalText.escape).
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                switch scalar.value {
                case 0..<0x20: out.unicodeScalars.append(Unicode.Scalar(0x2400 + scalar.value)!)
                case 0x7F: out += "\u{2421}"
                case 0x80...0x9F, 0xFFFE, 0xFFFF: out += "\u{FFFD}"
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
