import Foundation
import KBSystem

/// A set of timing samples (nanoseconds) and the figures the report prints.
struct Samples {
    private(set) var sorted: [Int64]
    let mean: Double

    init(_ nanoseconds: [Int64]) {
        sorted = nanoseconds.sorted()
        mean = nanoseconds.isEmpty ? 0 : Double(nanoseconds.reduce(0, +)) / Double(nanoseconds.count)
    }

    var count: Int { sorted.count }

    /// Nearest-rank percentile (p in 0...100), in nanoseconds.
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return Double(sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1])
    }

    var p50: Double { percentile(50) }
    var p99: Double { percentile(99) }
    var min: Double { sorted.first.map(Double.init) ?? .nan }
    var max: Double { sorted.last.map(Double.init) ?? .nan }

    /// Figures in microseconds, for the JSON report.
    func jsonMicroseconds() -> [String: Any] {
        ["samples": count, "p50_us": us(p50), "p99_us": us(p99), "mean_us": us(mean),
         "min_us": us(min), "max_us": us(max)]
    }

    /// Figures in milliseconds, for the JSON report.
    func jsonMilliseconds() -> [String: Any] {
        ["samples": count, "p50_ms": ms(p50), "p99_ms": ms(p99), "mean_ms": ms(mean),
         "min_ms": ms(min), "max_ms": ms(max)]
    }
}

/// Rounded to 0.01 µs / 0.001 ms so the JSON stays readable.
func us(_ ns: Double) -> Double { (ns / 10).rounded() / 100 }
func ms(_ ns: Double) -> Double { (ns / 1_000).rounded() / 1_000 }

/// Times one call, in nanoseconds.
@inline(__always)
func timed(_ body: () throws -> Void) rethrows -> Int64 {
    let start = Sys.monotonicNanoseconds()
    try body()
    return Sys.monotonicNanoseconds() - start
}

/// CPU time (ns) a process has run, from /proc/PID/schedstat; nil if unreadable.
func childCPUNanoseconds(_ pid: Int32) -> Int64? {
    guard let text = ProcMemory.readSmallFile("/proc/\(pid)/schedstat"),
          let first = text.split(separator: " ").first else { return nil }
    return Int64(first)
}

/// CPU time (ns) every thread of every process in the tree under `pid` has run
/// (/proc/PID/task/TID/schedstat, summed); threads that ended since are not counted.
func treeCPUNanoseconds(_ pid: Int32) -> Int64 {
    CPUPinning.tree(pid).reduce(0) { $0 + threadsCPUNanoseconds($1) }
}

/// CPU time (ns) every thread of one process has run.
func threadsCPUNanoseconds(_ pid: Int32) -> Int64 {
    var total: Int64 = 0
    for tid in CPUPinning.tasks(pid) {
        guard let text = ProcMemory.readSmallFile("/proc/\(pid)/task/\(tid)/schedstat"),
              let first = text.split(separator: " ").first, let ns = Int64(first) else { continue }
        total += ns
    }
    return total
}

/// CPU spent per round trip, by this process and by the child, over the timed blocks.
struct CPUAccount {
    var selfNanoseconds: Int64 = 0
    var childNanoseconds: Int64 = 0
    var roundTrips = 0

    mutating func measure<T>(child pid: Int32, roundTrips n: Int, _ body: () throws -> T) rethrows -> T {
        let s0 = Sys.processCPUNanoseconds(), c0 = childCPUNanoseconds(pid) ?? 0
        let result = try body()
        selfNanoseconds += Sys.processCPUNanoseconds() - s0
        childNanoseconds += (childCPUNanoseconds(pid) ?? c0) - c0
        roundTrips += n
        return result
    }

    var selfPerTrip: Double { roundTrips == 0 ? .nan : Double(selfNanoseconds) / Double(roundTrips) }
    var childPerTrip: Double { roundTrips == 0 ? .nan : Double(childNanoseconds) / Double(roundTrips) }
    func json() -> [String: Any] { ["self_cpu_us_per_trip": us(selfPerTrip), "child_cpu_us_per_trip": us(childPerTrip)] }
}
