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
    /// Ended early by Ctrl-C (after `seconds` of `duration`).
    var interrupted = false
    var duration = 0.0

    var passed: Bool { mismatches.isEmpty && expectedCharacters == committedCharacters && leftBehind == 0 }

    enum CodingKeys: String, CodingKey {
        case seconds, interrupted, taps, tapsPerSecond, switches, recoveries, expectedCharacters, committedCharacters, mismatches, kills,
             peakFootprintBytes, detectionMs, overshootBytes, hostPrivateDirtyBytes, childProcessesLeft, passed
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(seconds, forKey: .seconds)
        try c.encode(interrupted, forKey: .interrupted)
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
        if interrupted { lines.append(String(format: "  interrupted (Ctrl-C) after %.1f of %.0f s", seconds, duration)) }
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
