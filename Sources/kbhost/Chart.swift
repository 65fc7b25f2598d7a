import Foundation
import KBHost

/// A line chart as SVG that a person can read without the report beside it:
/// both axes from 0 with ticks and units, a line per series (broken where the
/// series has a gap), dashed horizontal thresholds labelled beside the plot,
/// marks whose shapes a legend explains, and the legend below the plot, so
/// that no label lies on the data or on another label.
struct Chart {
    struct Series {
        var name: String
        var points: [(x: Double, y: Double)]
        /// Consecutive points farther apart than this (in x) are not joined.
        var gap = Double.infinity
    }

    struct Threshold {
        var label: String
        var value: Double
        var color: String
    }

    /// `dash`: a piece of dashed line, for a legend entry that names a threshold rather than marks.
    enum Shape: String { case triangle, cross, diamond, square, ring, plus, dash }

    /// How a kind of mark looks, and what the legend calls it.
    struct MarkStyle {
        var name: String
        var shape: Shape
        var color: String
    }

    struct Mark {
        var x: Double
        var y: Double
        var style: Int  // index into markStyles
    }

    var title: String
    /// A line under the title saying what is measured (kept out of the axis title, which must fit the plot's height).
    var note = ""
    var xTitle: String
    var yTitle: String
    var series: [Series] = []
    var thresholds: [Threshold] = []
    var markStyles: [MarkStyle] = []
    var marks: [Mark] = []
    /// The x axis reaches at least this far (a run's duration, a script's taps).
    var xExtent = 0.0
    /// x values are whole numbers (taps): ticks are too.
    var integerX = false

    static let palette = ["#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"]

    // Layout. The column right of the plot is as wide as the longest threshold label.
    private let width = 900.0, left = 70.0, top = 56.0, plotHeight = 300.0
    private var labelColumn: Double { max(60, (thresholds.map { Self.textWidth($0.label) }.max() ?? 0) + 18) }
    private var right: Double { width - labelColumn }
    private var bottom: Double { top + plotHeight }
    /// A run of points narrower than this (px) is drawn as a dot over the marks, so that a keyboard
    /// seen for a few milliseconds before a kill is not hidden under the kill's mark.
    static let dotBelow = 4.0

    /// The width (px) `text` takes at `size` in a sans-serif font, estimated on the wide side:
    /// 0.62 em a character, 1 em for a wide one (CJK, emoji). Labels are placed by it.
    static func textWidth(_ text: String, size: Double = 11) -> Double {
        text.reduce(0) { $0 + (TerminalText.columns($1) >= 2 ? 1.0 : 0.62) } * size
    }

    /// `text` cut with "…" to fit `width` px.
    static func fit(_ text: String, width: Double, size: Double = 11) -> String {
        guard textWidth(text, size: size) > width else { return text }
        var out = ""
        for c in text {
            if textWidth(out + String(c) + "…", size: size) > width { break }
            out.append(c)
        }
        return out + "…"
    }

    /// A step of 1, 2 or 5 × 10ⁿ that cuts `range` into about `count` parts.
    static func niceStep(_ range: Double, count: Double = 5, integer: Bool = false) -> Double {
        guard range > 0 else { return 1 }
        let raw = range / count
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
        return integer ? max(1, step.rounded(.up)) : step
    }

    /// An axis from 0 to at least `top`: of the nice steps that cut it into 5 to 8 parts, the one
    /// whose last tick wastes least room (6.1 s ends at 7, not 8).
    static func axis(_ top: Double, integer: Bool = false) -> (step: Double, max: Double) {
        let top = max(top, integer ? 1 : 0.001)
        let choices = (5...8).map { count -> (step: Double, max: Double) in
            let step = niceStep(top, count: Double(count), integer: integer)
            return (step, max(1, (top / step).rounded(.up)) * step)
        }
        return choices.min { $0.max < $1.max || ($0.max == $1.max && $0.step > $1.step) }!
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%g", (value * 1000).rounded() / 1000)
    }

    func svg() -> String {
        let xData = series.flatMap { $0.points.map(\.x) } + marks.map(\.x)
        let yData = series.flatMap { $0.points.map(\.y) } + marks.map(\.y) + thresholds.map(\.value)
        let (xStep, xMax) = Self.axis(max(xData.max() ?? 0, xExtent), integer: integerX)
        let (yStep, yMax) = Self.axis(max((yData.max() ?? 0) * 1.05, 1))
        func x(_ v: Double) -> Double { left + v / xMax * (right - left) }
        func y(_ v: Double) -> Double { bottom - v / yMax * plotHeight }
        func n(_ v: Double) -> String { String(format: "%.1f", v) }
        let legend = legendItems()
        let height = bottom + 62 + Double(legend.rows) * 18 + 8
        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\(Int(width))" height="\(Int(height))" \
        viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="11">
        <rect width="100%" height="100%" fill="white"/>
        <text class="title" x="\(n(left))" y="22" font-size="14" font-weight="bold">\(KeyboardPicture.xml(Self.fit(title, width: width - left - 10, size: 14)))</text>
        <text class="note" x="\(n(left))" y="40" fill="#444">\(KeyboardPicture.xml(Self.fit(note, width: width - left - 10)))</text>

        """
        out += "<rect class=\"plot\" x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(right - left))\" height=\"\(n(plotHeight))\" fill=\"none\"/>\n"
        // Grid, ticks and their labels.
        out += "<g class=\"axes\" stroke=\"#ddd\">\n"
        for i in 0...Int((yMax / yStep).rounded()) {
            let v = Double(i) * yStep
            out += "<line x1=\"\(n(left))\" y1=\"\(n(y(v)))\" x2=\"\(n(right))\" y2=\"\(n(y(v)))\"/>\n"
            out += "<line x1=\"\(n(left - 5))\" y1=\"\(n(y(v)))\" x2=\"\(n(left))\" y2=\"\(n(y(v)))\" stroke=\"black\"/>\n"
            out += "<text class=\"ytick\" x=\"\(n(left - 8))\" y=\"\(n(y(v) + 4))\" text-anchor=\"end\" stroke=\"none\">\(Self.format(v))</text>\n"
        }
        for i in 0...Int((xMax / xStep).rounded()) {
            let v = Double(i) * xStep
            out += "<line x1=\"\(n(x(v)))\" y1=\"\(n(top))\" x2=\"\(n(x(v)))\" y2=\"\(n(bottom))\"/>\n"
            out += "<line x1=\"\(n(x(v)))\" y1=\"\(n(bottom))\" x2=\"\(n(x(v)))\" y2=\"\(n(bottom + 5))\" stroke=\"black\"/>\n"
            out += "<text class=\"xtick\" x=\"\(n(x(v)))\" y=\"\(n(bottom + 18))\" text-anchor=\"middle\" stroke=\"none\">\(Self.format(v))</text>\n"
        }
        out += """
        <line x1="\(n(left))" y1="\(n(bottom))" x2="\(n(right))" y2="\(n(bottom))" stroke="black"/>
        <line x1="\(n(left))" y1="\(n(top))" x2="\(n(left))" y2="\(n(bottom))" stroke="black"/>
        </g>
        <text class="xtitle" x="\(n((left + right) / 2))" y="\(n(bottom + 36))" text-anchor="middle">\(KeyboardPicture.xml(xTitle))</text>
        <text class="ytitle" transform="translate(16 \(n((top + bottom) / 2))) rotate(-90)" text-anchor="middle">\(KeyboardPicture.xml(Self.fit(yTitle, width: plotHeight)))</text>

        """
        // Thresholds: dashed lines; their labels beside the plot, pushed apart so none overlap.
        var labelYs: [(Int, Double)] = thresholds.indices.map { ($0, y(thresholds[$0].value) + 4) }.sorted { $0.1 < $1.1 }
        for i in labelYs.indices.dropFirst() where labelYs[i].1 < labelYs[i - 1].1 + 13 { labelYs[i].1 = labelYs[i - 1].1 + 13 }
        if let last = labelYs.last, last.1 > bottom + 4 {  // pushed below the plot: pull the column back up
            labelYs[labelYs.count - 1].1 = bottom + 4
            for i in labelYs.indices.dropLast().reversed() where labelYs[i].1 > labelYs[i + 1].1 - 13 { labelYs[i].1 = labelYs[i + 1].1 - 13 }
        }
        for (i, t) in thresholds.enumerated() {
            out += "<line class=\"threshold\" x1=\"\(n(left))\" y1=\"\(n(y(t.value)))\" x2=\"\(n(right))\" y2=\"\(n(y(t.value)))\" "
                + "stroke=\"\(t.color)\" stroke-width=\"1.5\" stroke-dasharray=\"6,4\"/>\n"
            let ly = labelYs.first { $0.0 == i }!.1
            out += "<text class=\"threshold-label\" x=\"\(n(right + 6))\" y=\"\(n(ly))\" fill=\"\(t.color)\">\(KeyboardPicture.xml(t.label))</text>\n"
        }
        // Series: a line per run of points; a run too short to see as a line is a dot, drawn
        // again over the marks (by `use`), so that no keyboard with data is hidden.
        var dotted: [Int] = []
        for (i, s) in series.enumerated() {
            let color = Self.palette[i % Self.palette.count]
            out += "<g class=\"series\" data-name=\"\(KeyboardPicture.xml(s.name))\" data-points=\"\(s.points.count)\" "
                + "stroke=\"\(color)\" fill=\"\(color)\">\n"
            var run: [(x: Double, y: Double)] = [], dots: [(x: Double, y: Double)] = []
            func flush() {
                defer { run = [] }
                guard let last = run.last else { return }
                let xs = run.map { x($0.x) }, ys = run.map { y($0.y) }
                if hypot(xs.max()! - xs.min()!, ys.max()! - ys.min()!) < Self.dotBelow { return dots.append(last) }
                let pts = zip(xs, ys).map { "\(n($0)),\(n($1))" }.joined(separator: " ")
                out += "<polyline points=\"\(pts)\" fill=\"none\" stroke-width=\"1.5\"/>\n"
            }
            for p in s.points.sorted(by: { $0.x < $1.x }) {
                if let last = run.last, p.x - last.x > s.gap { flush() }
                run.append(p)
            }
            flush()
            if !dots.isEmpty {
                dotted.append(i)
                out += "<g id=\"dots-\(i)\" class=\"dots\" fill=\"\(color)\" stroke=\"white\" stroke-width=\"1\">\n"
                for d in dots { out += "<circle cx=\"\(n(x(d.x)))\" cy=\"\(n(y(d.y)))\" r=\"3.5\"/>\n" }
                out += "</g>\n"
            }
            out += "</g>\n"
        }
        // Marks, then the short runs' dots again on top of them.
        for m in marks {
            let style = markStyles[m.style]
            out += Self.shape(style.shape, at: x(m.x), y(m.y), color: style.color, size: 6, kind: style.name)
        }
        for i in dotted { out += "<use href=\"#dots-\(i)\" xlink:href=\"#dots-\(i)\"/>\n" }
        // Legend, below the x axis title.
        out += "<g class=\"legend\">\n"
        for item in legend.items {
            let ly = bottom + 62 + Double(item.row) * 18
            switch item.what {
            case .series(let i):
                let color = Self.palette[i % Self.palette.count]
                out += "<line x1=\"\(n(item.x))\" y1=\"\(n(ly - 4))\" x2=\"\(n(item.x + 16))\" y2=\"\(n(ly - 4))\" stroke=\"\(color)\" stroke-width=\"3\"/>\n"
                    + (dotted.contains(i) ? "<circle cx=\"\(n(item.x + 8))\" cy=\"\(n(ly - 4))\" r=\"3.5\" fill=\"\(color)\" stroke=\"white\"/>\n" : "")
                out += "<text x=\"\(n(item.x + 21))\" y=\"\(n(ly))\">\(KeyboardPicture.xml(item.name))</text>\n"
            case .mark(let i):
                let style = markStyles[i]
                out += Self.shape(style.shape, at: item.x + 8, ly - 4, color: style.color, size: 5, kind: nil)
                out += "<text x=\"\(n(item.x + 21))\" y=\"\(n(ly))\">\(KeyboardPicture.xml(item.name))</text>\n"
            }
        }
        return out + "</g>\n</svg>\n"
    }

    private enum LegendEntry { case series(Int), mark(Int) }

    /// Legend entries flowed left to right in rows under the plot.
    /// A name too long for a row is cut with "…".
    private func legendItems() -> (items: [(what: LegendEntry, name: String, x: Double, row: Int)], rows: Int) {
        var items: [(what: LegendEntry, name: String, x: Double, row: Int)] = []
        var cursor = left, row = 0
        let entries: [(LegendEntry, String)] = series.indices.map { (.series($0), series[$0].name) }
            + markStyles.indices.map { (.mark($0), markStyles[$0].name) }
        for (entry, full) in entries {
            let name = Self.fit(full, width: width - 10 - left - 39)
            let w = 21 + Self.textWidth(name) + 18
            if cursor + w > width - 10 && cursor > left { row += 1; cursor = left }
            items.append((entry, name, cursor, row))
            cursor += w
        }
        return (items, entries.isEmpty ? 0 : row + 1)
    }

    /// A mark's shape centred on (cx, cy).
    static func shape(_ shape: Shape, at cx: Double, _ cy: Double, color: String, size s: Double, kind: String?) -> String {
        func n(_ v: Double) -> String { String(format: "%.1f", v) }
        let cls = kind.map { " class=\"mark\" data-kind=\"\(KeyboardPicture.xml($0))\"" } ?? ""
        switch shape {
        case .triangle:
            return "<path\(cls) d=\"M\(n(cx)),\(n(cy - s)) L\(n(cx + s)),\(n(cy + s)) L\(n(cx - s)),\(n(cy + s)) Z\" fill=\"\(color)\"/>\n"
        case .cross:
            return "<path\(cls) d=\"M\(n(cx - s)),\(n(cy - s)) L\(n(cx + s)),\(n(cy + s)) M\(n(cx - s)),\(n(cy + s)) L\(n(cx + s)),\(n(cy - s))\" "
                + "stroke=\"\(color)\" stroke-width=\"2.5\" fill=\"none\"/>\n"
        case .diamond:
            return "<path\(cls) d=\"M\(n(cx)),\(n(cy - s)) L\(n(cx + s)),\(n(cy)) L\(n(cx)),\(n(cy + s)) L\(n(cx - s)),\(n(cy)) Z\" fill=\"\(color)\"/>\n"
        case .square:
            return "<rect\(cls) x=\"\(n(cx - s + 1))\" y=\"\(n(cy - s + 1))\" width=\"\(n(2 * s - 2))\" height=\"\(n(2 * s - 2))\" fill=\"\(color)\"/>\n"
        case .ring:
            return "<circle\(cls) cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"\(n(s - 0.5))\" stroke=\"\(color)\" stroke-width=\"2\" fill=\"white\"/>\n"
        case .dash:
            return "<path\(cls) d=\"M\(n(cx - 8)),\(n(cy)) L\(n(cx + 8)),\(n(cy))\" stroke=\"\(color)\" stroke-width=\"1.5\" "
                + "stroke-dasharray=\"6,4\" fill=\"none\"/>\n"
        case .plus:
            return "<path\(cls) d=\"M\(n(cx - s)),\(n(cy)) L\(n(cx + s)),\(n(cy)) M\(n(cx)),\(n(cy - s)) L\(n(cx)),\(n(cy + s))\" "
                + "stroke=\"\(color)\" stroke-width=\"2.5\" fill=\"none\"/>\n"
        }
    }
}
