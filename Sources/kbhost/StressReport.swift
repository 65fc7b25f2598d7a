import Foundation
import KBHost

/// What a stress run saw. `passed` gates CI: nothing lost or added, no child left.
struct StressReport: Encodable {
    var seconds = 0.0
    var taps = 0
    var switches = 0
    var recoveries = 0
    var expectedCharacters = 0
    var committedCharacters = 0
    var mismatches: [String] = []
    var kills: [String: Int] = [:]
    /// Per keyboard, bytes.
    var peak: [String: Int] = [:]
    /// Memory kills: time since the last sample under budget (ns), and bytes over the budget.
    var detection: [Int64] = []
    var overshoot: [Int] = []
    var hostMemoryStart = 0
    var hostMemoryEnd = 0
    var leftBehind = 0

    var passed: Bool { mismatches.isEmpty && expectedCharacters == committedCharacters && leftBehind == 0 }

    enum CodingKeys: String, CodingKey {
        case seconds, taps, tapsPerSecond, switches, recoveries, expectedCharacters, committedCharacters, mismatches, kills,
             peakFootprintBytes, detectionMs, overshootBytes, hostPrivateDirtyBytes, childProcessesLeft, passed
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(seconds, forKey: .seconds)
        try c.encode(taps, forKey: .taps)
        try c.encode(Double(taps) / max(seconds, 0.001), forKey: .tapsPerSecond)
        try c.encode(switches, forKey: .switches)
        try c.encode(recoveries, forKey: .recoveries)
        try c.encode(expectedCharacters, forKey: .expectedCharacters)
        try c.encode(committedCharacters, forKey: .committedCharacters)
        try c.encode(mismatches, forKey: .mismatches)
        // Every kind of kill, none as 0; memory in bytes.
        try c.encode(Dictionary(uniqueKeysWithValues: KeyboardFailure.kinds.map { ($0, 0) }).merging(kills) { $1 }, forKey: .kills)
        try c.encode(peak, forKey: .peakFootprintBytes)
        try c.encode(["p50": percentile(detection.map(Double.init), 50) / 1e6, "p99": percentile(detection.map(Double.init), 99) / 1e6],
                     forKey: .detectionMs)
        try c.encode(["p50": Int(percentile(overshoot.map(Double.init), 50)), "max": overshoot.max() ?? 0], forKey: .overshootBytes)
        try c.encode(["start": hostMemoryStart, "end": hostMemoryEnd], forKey: .hostPrivateDirtyBytes)
        try c.encode(leftBehind, forKey: .childProcessesLeft)
        try c.encode(passed, forKey: .passed)
    }

    func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1 < 0 ? 0 : Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)]
    }

    func text(svg: String) -> String {
        var lines: [String] = []
        lines.append(String(format: "kbhost stress: %.1f s, %d taps (%.0f taps/s), %d switches, %d recoveries",
                            seconds, taps, Double(taps) / max(seconds, 0.001), switches, recoveries))
        lines.append("  characters expected \(expectedCharacters), committed \(committedCharacters)"
                     + (expectedCharacters == committedCharacters && mismatches.isEmpty ? " — nothing lost" : " — MISMATCH"))
        for m in mismatches.prefix(5) { lines.append("    \(m)") }
        let k = kills.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        lines.append("  kills: \(k.isEmpty ? "none" : k)")
        if !detection.isEmpty {
            lines.append(String(format: "  memory kills: detection p50 %.2f ms, p99 %.2f ms; overshoot p50 %.2f MiB, max %.2f MiB",
                                percentile(detection.map(Double.init), 50) / 1e6, percentile(detection.map(Double.init), 99) / 1e6,
                                percentile(overshoot.map(Double.init), 50) / 1_048_576, Double(overshoot.max() ?? 0) / 1_048_576))
        }
        for (id, bytes) in peak.sorted(by: { $0.key < $1.key }) {
            lines.append(String(format: "  peak footprint %@: %.1f MiB", TerminalText.line(id), Double(bytes) / 1_048_576))
        }
        lines.append(String(format: "  host private dirty: %.1f MiB at start, %.1f MiB at end",
                            Double(hostMemoryStart) / 1_048_576, Double(hostMemoryEnd) / 1_048_576))
        lines.append("  child processes left: \(leftBehind)")
        lines.append("  timeline: \(svg)")
        lines.append(passed ? "PASSED" : "FAILED")
        return lines.joined(separator: "\n")
    }
}

/// Footprint over time per keyboard, the budget, and the kills: an SVG a person can open.
struct Timeline {
    var points: [(time: Double, keyboard: String, bytes: Int)] = []
    var kills: [(time: Double, keyboard: String, bytes: Int)] = []

    func svg(budget: Int) -> String {
        let width = 900.0, height = 360.0, left = 60.0, right = 20.0, top = 30.0, bottom = 40.0
        let maxTime = max(points.map(\.time).max() ?? 1, kills.map(\.time).max() ?? 1, 0.001)
        let maxBytes = Double(max(budget, points.map(\.bytes).max() ?? 1, kills.map(\.bytes).max() ?? 1)) * 1.1
        func x(_ t: Double) -> Double { left + t / maxTime * (width - left - right) }
        func y(_ b: Double) -> Double { top + (1 - b / maxBytes) * (height - top - bottom) }
        let colors = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"]
        let ids = Array(Set(points.map(\.keyboard) + kills.map(\.keyboard))).sorted()
        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="11">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(left)" y="18" font-size="13">kbhost stress: keyboard footprint (anonymous + shared + swap) over time</text>
        <line x1="\(left)" y1="\(y(0))" x2="\(width - right)" y2="\(y(0))" stroke="black"/>
        <line x1="\(left)" y1="\(top)" x2="\(left)" y2="\(y(0))" stroke="black"/>
        <text x="\(width - right - 40)" y="\(height - 10)">\(String(format: "%.1f s", maxTime))</text>
        <text x="5" y="\(top + 10)">\(String(format: "%.0f MiB", maxBytes / 1_048_576))</text>

        """
        if budget > 0 {
            out += "<line x1=\"\(left)\" y1=\"\(y(Double(budget)))\" x2=\"\(width - right)\" y2=\"\(y(Double(budget)))\" stroke=\"red\" stroke-dasharray=\"6,4\"/>\n"
            out += "<text x=\"\(left + 4)\" y=\"\(y(Double(budget)) - 4)\" fill=\"red\">budget \(budget >> 20) MiB</text>\n"
        }
        for (i, id) in ids.enumerated() {
            let color = colors[i % colors.count]
            let series = points.filter { $0.keyboard == id }
            // Points of one keyboard, in time order; a gap while another keyboard is shown is drawn as separate dots.
            let dots = series.map { "<circle cx=\"\(x($0.time))\" cy=\"\(y(Double($0.bytes)))\" r=\"1.2\" fill=\"\(color)\"/>" }
            out += dots.joined(separator: "\n") + "\n"
            out += "<text x=\"\(width - right - 260)\" y=\"\(top + 14 + Double(i) * 14)\" fill=\"\(color)\">● \(id)</text>\n"
        }
        for kill in kills {
            let ky = kill.bytes > 0 ? y(Double(kill.bytes)) : y(0) - 8
            out += "<text x=\"\(x(kill.time) - 4)\" y=\"\(ky + 4)\" fill=\"red\" font-weight=\"bold\">✕</text>\n"
        }
        return out + "</svg>\n"
    }
}
