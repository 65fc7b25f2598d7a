import Foundation

/// Footprint over time per keyboard and the kills of a stress run.
struct Timeline {
    var points: [(time: Double, keyboard: String, bytes: Int)] = []
    /// `bytes`: the footprint at the kill (memory) or the last one seen.
    var kills: [(time: Double, keyboard: String, bytes: Int, kind: String)] = []

    /// How each kind of kill is marked (KeyboardFailure.kinds); others as "other".
    static let killStyles: [String: (Chart.Shape, String)] = [
        "memory": (.triangle, "#d62728"), "crash": (.cross, "#000000"), "hang": (.diamond, "#e6a100"),
        "exit": (.square, "#6a3d9a"), "protocol": (.ring, "#a0522d"), "other": (.plus, "#666666"),
    ]
    static let killOrder = ["memory", "crash", "hang", "exit", "protocol", "other"]

    /// The stress chart: a line per keyboard (fault keyboards included), the
    /// budget, a mark per kill by reason.
    func chart(budget: Int, seconds: Double) -> Chart {
        var chart = Chart(title: "kbhost stress: keyboard footprint over time" + (budget > 0 ? ", budget \(budget >> 20) MiB" : ""),
                          xTitle: "time since the start (s)", yTitle: "footprint (MiB)")
        chart.note = "footprint: each keyboard process's anonymous + shared + swap + page tables, read about every 10 ms while it is shown"
        chart.xExtent = seconds
        // A line per keyboard with a footprint read; a kill of one never read is still marked.
        let ids = Array(Set(points.map(\.keyboard))).sorted()
        chart.series = ids.map { id in
            Chart.Series(name: id, points: points.filter { $0.keyboard == id }.map { ($0.time, Double($0.bytes) / 1_048_576) }, gap: 0.1)
        }
        if budget > 0 { chart.thresholds = [.init(label: "budget \(budget >> 20) MiB", value: Double(budget >> 20), color: "#d62728")] }
        let kinds = Set(kills.map { Self.killStyles[$0.kind] == nil ? "other" : $0.kind })
        let used = Self.killOrder.filter(kinds.contains)
        chart.markStyles = used.map { kind in
            let (shape, color) = Self.killStyles[kind]!
            return Chart.MarkStyle(name: "kill: \(kind)", shape: shape, color: color)
        }
        chart.marks = kills.map { kill in
            let kind = Self.killStyles[kill.kind] == nil ? "other" : kill.kind
            return Chart.Mark(x: kill.time, y: Double(kill.bytes) / 1_048_576, style: used.firstIndex(of: kind)!)
        }
        return chart
    }
}
