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

    enum Shape: String { case triangle, cross, diamond, square, ring, plus }

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

    // Layout.
    private let width = 900.0, left = 70.0, top = 44.0, plotHeight = 300.0, labelColumn = 130.0
    private var right: Double { width - labelColumn }
    private var bottom: Double { top + plotHeight }

    /// A step of 1, 2 or 5 × 10ⁿ that cuts `range` into about `count` parts.
    static func niceStep(_ range: Double, count: Double = 5, integer: Bool = false) -> Double {
        guard range > 0 else { return 1 }
        let raw = range / count
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
        return integer ? max(1, step.rounded(.up)) : step
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%g", (value * 1000).rounded() / 1000)
    }

    func svg() -> String {
        let xData = series.flatMap { $0.points.map(\.x) } + marks.map(\.x)
        let yData = series.flatMap { $0.points.map(\.y) } + marks.map(\.y) + thresholds.map(\.value)
        let xStep = Self.niceStep(max(xData.max() ?? 0, xExtent, integerX ? 1 : 0.001), integer: integerX)
        let xMax = max(1, ((max(xData.max() ?? 0, xExtent)) / xStep).rounded(.up)) * xStep
        let yStep = Self.niceStep(max(yData.max() ?? 0, 1))
        let yMax = max(1, ((yData.max() ?? 0) * 1.05 / yStep).rounded(.up)) * yStep
        func x(_ v: Double) -> Double { left + v / xMax * (right - left) }
        func y(_ v: Double) -> Double { bottom - v / yMax * plotHeight }
        func n(_ v: Double) -> String { String(format: "%.1f", v) }
        let legend = legendItems()
        let height = bottom + 62 + Double(legend.rows) * 18 + 8
        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
        viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="11">
        <rect width="100%" height="100%" fill="white"/>
        <text class="title" x="\(n(left))" y="22" font-size="14" font-weight="bold">\(KeyboardPicture.xml(title))</text>

        """
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
        <text class="ytitle" transform="translate(16 \(n((top + bottom) / 2))) rotate(-90)" text-anchor="middle">\(KeyboardPicture.xml(yTitle))</text>

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
        // Series.
        for (i, s) in series.enumerated() {
            let color = Self.palette[i % Self.palette.count]
            out += "<g class=\"series\" data-name=\"\(KeyboardPicture.xml(s.name))\" data-points=\"\(s.points.count)\" "
                + "stroke=\"\(color)\" fill=\"\(color)\">\n"
            var run: [(x: Double, y: Double)] = []
            func flush() {
                if run.count == 1 {
                    out += "<circle cx=\"\(n(x(run[0].x)))\" cy=\"\(n(y(run[0].y)))\" r=\"2\" stroke=\"none\"/>\n"
                } else if run.count > 1 {
                    let pts = run.map { "\(n(x($0.x))),\(n(y($0.y)))" }.joined(separator: " ")
                    out += "<polyline points=\"\(pts)\" fill=\"none\" stroke-width=\"1.5\"/>\n"
                }
                run = []
            }
            for p in s.points.sorted(by: { $0.x < $1.x }) {
                if let last = run.last, p.x - last.x > s.gap { flush() }
                run.append(p)
            }
            flush()
            out += "</g>\n"
        }
        // Marks.
        for m in marks {
            let style = markStyles[m.style]
            out += Self.shape(style.shape, at: x(m.x), y(m.y), color: style.color, size: 5, kind: style.name)
        }
        // Legend, below the x axis title.
        out += "<g class=\"legend\">\n"
        for item in legend.items {
            let ly = bottom + 62 + Double(item.row) * 18
            switch item.what {
            case .series(let i):
                let color = Self.palette[i % Self.palette.count]
                out += "<line x1=\"\(n(item.x))\" y1=\"\(n(ly - 4))\" x2=\"\(n(item.x + 16))\" y2=\"\(n(ly - 4))\" stroke=\"\(color)\" stroke-width=\"3\"/>\n"
                out += "<text x=\"\(n(item.x + 21))\" y=\"\(n(ly))\">\(KeyboardPicture.xml(series[i].name))</text>\n"
            case .mark(let i):
                let style = markStyles[i]
                out += Self.shape(style.shape, at: item.x + 8, ly - 4, color: style.color, size: 5, kind: nil)
                out += "<text x=\"\(n(item.x + 21))\" y=\"\(n(ly))\">\(KeyboardPicture.xml(style.name))</text>\n"
            }
        }
        return out + "</g>\n</svg>\n"
    }

    private enum LegendEntry { case series(Int), mark(Int) }

    /// Legend entries flowed left to right in rows under the plot.
    private func legendItems() -> (items: [(what: LegendEntry, x: Double, row: Int)], rows: Int) {
        var items: [(what: LegendEntry, x: Double, row: Int)] = []
        var cursor = left, row = 0
        let entries: [(LegendEntry, String)] = series.indices.map { (.series($0), series[$0].name) }
            + markStyles.indices.map { (.mark($0), markStyles[$0].name) }
        for (entry, name) in entries {
            let w = 21 + Double(name.count) * 6.6 + 18
            if cursor + w > width - 10 && cursor > left { row += 1; cursor = left }
            items.append((entry, cursor, row))
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
        case .plus:
            return "<path\(cls) d=\"M\(n(cx - s)),\(n(cy)) L\(n(cx + s)),\(n(cy)) M\(n(cx)),\(n(cy - s)) L\(n(cx)),\(n(cy + s))\" "
                + "stroke=\"\(color)\" stroke-width=\"2.5\" fill=\"none\"/>\n"
        }
    }
}
