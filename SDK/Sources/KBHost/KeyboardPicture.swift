/// A picture of the layout a keyboard sent, drawn as a phone draws it: the
/// display line on top, then the rows in order — a row of candidate or
/// suggestion keys (identifiers `candidate.N`, `suggestion.N`) as a flat bar,
/// every other row as keys whose widths are the keys' widths in the layout's
/// units. Character and space keys are light, the others (shift, delete,
/// return, globe, mode, function) darker, as iOS draws them.
///
/// This is the geometry (what `kbhost preview --json` prints); `svg` draws it.
/// Every figure is in points, rounded to hundredths, so that the same layout
/// always gives the same numbers.
public struct KeyboardPicture: Codable, Hashable, Sendable {
    /// The device's orientation, which sets the keyboard's size.
    public enum Orientation: String, Codable, Hashable, Sendable, CaseIterable {
        case portrait, landscape

        /// The keyboard's size in points (`TapStep.portrait`, `TapStep.landscape`).
        public var size: (width: Double, height: Double) {
            self == .portrait ? TapStep.portrait : TapStep.landscape
        }
    }

    /// Light or dark mode.
    public enum Appearance: String, Codable, Hashable, Sendable, CaseIterable { case light, dark }

    /// How a key is drawn.
    public enum Style: String, Codable, Hashable, Sendable {
        /// A light key: characters and the space bar.
        case character
        /// A darker key: shift, delete, return, globe, mode and function keys.
        case function
        /// A cell of the candidate bar: flat, no key cap.
        case candidate
        /// Not drawn: a key with no label and no action, which only takes room (a spacer).
        case gap
    }

    /// A rectangle in points, from the picture's top left corner.
    public struct Frame: Codable, Hashable, Sendable {
        /// The left edge.
        public var x: Double
        /// The top edge.
        public var y: Double
        public var width: Double
        public var height: Double

        /// A frame with its figures rounded to hundredths of a point.
        public init(x: Double, y: Double, width: Double, height: Double) {
            (self.x, self.y, self.width, self.height) = (round2(x), round2(y), round2(width), round2(height))
        }
    }

    /// One key of the layout and where it is drawn.
    public struct Key: Codable, Hashable, Sendable {
        /// The key's identifier (`r1c2`, row and column, when the keyboard gave none).
        public var identifier: String
        /// The key's label, as the keyboard sent it (the SVG escapes it).
        public var label: String
        /// The key's role (`KeyboardLayout.Key.Role`'s name).
        public var role: String
        /// The key's width in the layout's units.
        public var width: Double
        /// The key's place in the layout the keyboard sent (empty rows counted).
        public var row: Int
        public var column: Int
        /// How it is drawn, from its role and identifier.
        public var style: Style
        /// The key cap (or the candidate's cell).
        public var frame: Frame
        /// The label's font size, shrunk to fit the key.
        public var fontSize: Double
        /// What the key carries beyond this, when the keyboard gave it (absent from the JSON otherwise):
        /// its payload, the alternates a long press offers, the selector a drag on it calls.
        public var payload: String?
        public var alternates: [String]?
        public var dragAction: String?
    }

    /// The keyboard's bundle identifier.
    public var keyboard: String
    /// Portrait or landscape: the keyboard's size.
    public var orientation: Orientation
    /// Light or dark: the colours.
    public var appearance: Appearance
    /// The picture's width: the keyboard's.
    public var width: Double
    /// The picture's height: the keyboard's, plus the display line and the candidate bars above the keys.
    public var height: Double
    /// Points per unit of key width in the key rows: a key of width w is w × unit − gap wide.
    public var unit: Double
    /// The space between two keys, in points.
    public var gap: Double
    /// The keyboard's display line, as it sent it.
    public var display: String
    /// Where the display line is (nil when the display is empty).
    public var displayFrame: Frame?
    /// Every key, row by row; gaps included (style `gap`), empty rows not.
    public var keys: [Key]

    /// Lays out `layout` for an orientation and an appearance.
    public init(keyboard: String, layout: KeyboardLayout, orientation: Orientation = .portrait,
                appearance: Appearance = .light) {
        self.keyboard = keyboard
        self.orientation = orientation
        self.appearance = appearance
        let m = Metrics(orientation)
        let size = orientation.size
        let rows = layout.rows.filter { !$0.isEmpty }
        let keyRows = rows.filter { !KeyboardPicture.isBar($0) }
        let widest = keyRows.map { $0.reduce(0) { $0 + $1.width } }.max() ?? 0
        unit = round2(widest > 0 ? (size.width - 2 * m.side) / widest : 0)
        gap = m.gap
        width = size.width
        display = layout.display
        keys = []
        var y = 0.0
        if !display.isEmpty {
            displayFrame = Frame(x: 0, y: 0, width: size.width, height: m.display)
            y = m.display
        }
        let pitch = keyRows.isEmpty ? 0 : (size.height - m.top - m.bottom) / Double(keyRows.count)
        var keyRowsSeen = 0
        for row in rows {
            if KeyboardPicture.isBar(row) {
                keys += Self.barRow(row, y: y, width: size.width, m)
                y += m.bar
                continue
            }
            if keyRowsSeen == 0 { y += m.top }
            keyRowsSeen += 1
            keys += Self.keyRow(row, y: y, pitch: pitch, width: size.width, unit: unit, m)
            y += pitch
        }
        // The keyboard's view keeps its size with no key rows (a bar alone, or nothing sent yet).
        y += keyRowsSeen > 0 ? m.bottom : size.height
        height = round2(y)
        for i in keys.indices {
            guard let extras = layout.extras(row: keys[i].row, column: keys[i].column) else { continue }
            keys[i].payload = extras.payload
            keys[i].alternates = extras.alternates.isEmpty ? nil : extras.alternates
            keys[i].dragAction = extras.dragAction
        }
    }

    private enum CodingKeys: String, CodingKey {
        case keyboard, orientation, appearance, width, height, unit, gap, display, displayFrame, keys
    }

    /// Every key always present, as kbhost's JSON has it: `displayFrame` is null without a display line.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(keyboard, forKey: .keyboard)
        try c.encode(orientation, forKey: .orientation)
        try c.encode(appearance, forKey: .appearance)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(unit, forKey: .unit)
        try c.encode(gap, forKey: .gap)
        try c.encode(display, forKey: .display)
        try c.encode(displayFrame, forKey: .displayFrame)
        try c.encode(keys, forKey: .keys)
    }

    /// The keys that are drawn (all but gaps).
    public var visibleKeys: [Key] { keys.filter { $0.style != .gap } }

    /// Whether the display or a drawn label has Japanese, Chinese or Korean text (which needs a font of its own).
    public var hasEastAsianText: Bool {
        ([display] + visibleKeys.map(\.label)).contains { $0.unicodeScalars.contains(where: KeyboardPicture.isWide) }
    }

    /// Whether a key belongs in the candidate bar: its identifier is `candidate.N` or `suggestion.N`.
    public static func isCandidate(_ key: KeyboardLayout.Key) -> Bool {
        key.identifier.hasPrefix("candidate.") || key.identifier.hasPrefix("suggestion.")
    }

    /// A row drawn as the candidate bar: every key in it is a candidate or a suggestion.
    static func isBar(_ row: [KeyboardLayout.Key]) -> Bool { row.allSatisfy(isCandidate) }

    /// A row of keys: one unit for the whole keyboard, each row centred (as the
    /// standard keyboard centres its shorter rows).
    private static func keyRow(_ row: [KeyboardLayout.Key], y: Double, pitch: Double, width: Double, unit: Double,
                               _ m: Metrics) -> [Key] {
        let rowWidth = row.reduce(0) { $0 + $1.width } * unit
        var x = (width - rowWidth) / 2
        let height = max(pitch - m.rowGap, 1)
        return row.map { key in
            let slot = key.width * unit
            let inset = min(m.gap, slot * 0.2) / 2
            let frame = Frame(x: x + inset, y: y + (pitch - height) / 2, width: max(slot - 2 * inset, 0.5), height: height)
            x += slot
            let style = Self.style(of: key)
            let base = key.label.count == 1 && style == .character ? m.characterFont : m.labelFont
            return Key(key, style: style, frame: frame, fontSize: Self.fit(Self.shown(key.label), base: base, in: frame))
        }
    }

    /// The candidate bar: the row's keys share the whole width in proportion to their widths.
    private static func barRow(_ row: [KeyboardLayout.Key], y: Double, width: Double, _ m: Metrics) -> [Key] {
        let total = row.reduce(0) { $0 + $1.width }
        var x = 0.0
        return row.map { key in
            let w = total > 0 ? width * key.width / total : 0
            let frame = Frame(x: x, y: y, width: w, height: m.bar)
            x += w
            let size = Self.fit(Self.shown(key.label), base: m.labelFont + 1, in: frame)
            return Key(key, style: .candidate, frame: frame, fontSize: size)
        }
    }

    static func style(of key: KeyboardLayout.Key) -> Style {
        if isCandidate(key) { return .candidate }
        if key.label.isEmpty, key.action == nil, key.touchDownAction == nil, key.longPressAction == nil,
           key.doubleTapAction == nil { return .gap }
        switch key.role {
        case .character, .space: return .character
        case .shift, .delete, .return, .globe, .mode, .function: return .function
        }
    }

    /// The largest font size up to `base` at which the label fits the frame (at least 6 points).
    static func fit(_ label: String, base: Double, in frame: Frame) -> Double {
        let ems = KeyboardPicture.ems(label)
        var size = min(base, frame.height * 0.62)
        if ems > 0 { size = min(size, (frame.width - 6) / ems) }
        return (max(size, 6) * 10).rounded() / 10
    }

    /// A text as drawn: at most `limit` characters (then an ellipsis), and at most 8 Unicode scalars
    /// a character: one character of a million combining marks is cut too.
    static func shown(_ text: String, limit: Int = 24) -> String {
        let bounded = text.unicodeScalars.count <= limit * 8 ? text : String(text.unicodeScalars.prefix(limit * 8))
        return bounded.count <= limit && bounded.utf8.count == text.utf8.count ? text : String(bounded.prefix(limit - 1)) + "…"
    }

    /// About how wide a text is, in ems: wide (East Asian) characters and emoji
    /// one em, marks nothing, others about 0.6 em. Good enough to fit a label;
    /// the real width depends on the font.
    static func ems(_ text: String) -> Double {
        text.reduce(0) { sum, character in
            guard let first = character.unicodeScalars.first else { return sum }
            if first.properties.isEmojiPresentation || isWide(first) { return sum + 1 }
            if first.properties.generalCategory == .nonspacingMark { return sum }
            return sum + (first.properties.isUppercase ? 0.7 : 0.6)
        }
    }

    /// Hangul, CJK, kana and full-width forms: the scripts drawn one em wide.
    static func isWide(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x20000...0x3FFFD: true
        default: false
        }
    }

    /// The sizes the picture is drawn with, per orientation.
    struct Metrics {
        /// Left and right margins; margins above and below the key rows.
        var side = 3.0, top = 6.0, bottom = 4.0
        /// Space between keys in a row; between rows.
        var gap = 6.0, rowGap = 11.0
        /// The display line's height; a candidate bar's.
        var display = 30.0, bar = 40.0
        /// A one-character key's label; every other label (shrunk to fit).
        var characterFont = 22.0, labelFont = 15.0
        /// The key caps' corner radius.
        var radius = 5.0

        init(_ orientation: Orientation) {
            guard orientation == .landscape else { return }
            (side, top, bottom, gap, rowGap) = (4, 4, 3, 6, 7)
            (display, bar, characterFont, labelFont) = (26, 34, 20, 14)
        }
    }
}

extension KeyboardPicture.Key {
    init(_ key: KeyboardLayout.Key, style: KeyboardPicture.Style, frame: KeyboardPicture.Frame, fontSize: Double) {
        self.init(identifier: key.identifier, label: key.label, role: key.role.rawValue, width: key.width,
                  row: key.row, column: key.column, style: style, frame: frame, fontSize: fontSize)
    }
}

/// A figure rounded to hundredths of a point.
func round2(_ value: Double) -> Double { (value * 100).rounded() / 100 }
