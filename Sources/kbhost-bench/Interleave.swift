import Foundation
import KBSystem

/// Where the benchmark's processes may run while a comparison is measured.
/// On a machine of few shared CPUs the scheduler may keep two processes that
/// talk on one CPU or put them on two, and a round trip's cost differs several
/// times between the two placements; so every comparison is measured once as
/// the scheduler places them and once with all of them on one CPU.
enum Placement: CustomStringConvertible {
    case unpinned
    case pinned(cpu: Int)

    var description: String {
        switch self {
        case .unpinned: return "unpinned"
        case .pinned(let cpu): return "pinned to CPU \(cpu)"
        }
    }

    var key: String {
        switch self {
        case .unpinned: return "unpinned"
        case .pinned: return "pinned"
        }
    }

    var cpu: Int? {
        if case .pinned(let cpu) = self { return cpu }
        return nil
    }

    /// The two placements every comparison is measured in.
    static func both() -> [Placement] { [.unpinned, .pinned(cpu: CPUPinning.chosenCPU)] }
}

/// Pins a process tree (every thread of every process) to one CPU, and lets it go again.
/// Processes started later inherit the mask of the thread that spawned them.
enum CPUPinning {
    /// The CPUs this benchmark was allowed at start (taskset around it is respected).
    static let allowed: UInt64 = (try? Sys.affinity(of: getpid())) ?? ~0

    /// The one CPU pinned runs use: the lowest of the allowed ones.
    static let chosenCPU: Int = allowed == 0 ? 0 : allowed.trailingZeroBitCount

    /// Runs `body` with the tree under `root` (this process by default, so its
    /// children too) placed as asked; afterwards the tree may use every allowed CPU again.
    static func with<T>(_ placement: Placement, root: pid_t = getpid(), _ body: () throws -> T) rethrows -> T {
        guard let cpu = placement.cpu else { return try body() }
        apply(UInt64(1) << UInt64(cpu), root: root)
        defer { apply(allowed, root: root) }
        return try body()
    }

    /// Sets the mask of every thread in the tree; returns the number of threads set.
    @discardableResult
    static func apply(_ mask: UInt64, root: pid_t = getpid()) -> Int {
        var count = 0
        for pid in tree(root) {
            for tid in tasks(pid) where (try? Sys.setAffinity(of: tid, mask)) != nil { count += 1 }
        }
        return count
    }

    /// `root` and every process below it (from each process's parent in /proc/PID/stat).
    static func tree(_ root: pid_t) -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(name), let ppid = parent(of: pid) else { continue }
            children[ppid, default: []].append(pid)
        }
        var result: [pid_t] = [], queue = [root]
        while let pid = queue.popLast() {
            result.append(pid)
            queue += children[pid] ?? []
        }
        return result
    }

    /// A process's parent, from /proc/PID/stat (the field after the command's closing parenthesis).
    static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = ProcMemory.readSmallFile("/proc/\(pid)/stat"),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    /// A process's threads.
    static func tasks(_ pid: pid_t) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).compactMap { pid_t($0) }
    }
}

/// kbhost's figure over the floor's, block by block: each block's p50 over the
/// p50 of the floor's block next to it. Scheduler placement and machine drift
/// change from block to block, and they hit the two blocks of a pair alike.
struct BlockRatios {
    private(set) var ratios: [Double] = []

    mutating func add(ours: [Int64], floor: [Int64]) {
        ratios.append(Samples(ours).p50 / Samples(floor).p50)
    }

    private var sorted: [Double] { ratios.sorted() }
    private func quantile(_ q: Double) -> Double {
        let s = sorted
        guard !s.isEmpty else { return .nan }
        let position = q * Double(s.count - 1)
        let low = Int(position.rounded(.down)), high = Int(position.rounded(.up))
        return s[low] + (s[high] - s[low]) * (position - Double(low))
    }

    var count: Int { ratios.count }
    var median: Double { quantile(0.5) }
    var lowerQuartile: Double { quantile(0.25) }
    var upperQuartile: Double { quantile(0.75) }
    var min: Double { sorted.first ?? .nan }
    var max: Double { sorted.last ?? .nan }

    /// "median 1.02× (IQR 0.98–1.07×, range 0.91–1.20×, 12 blocks)"
    var summary: String {
        String(format: "median %.2f× (IQR %.2f–%.2f×, range %.2f–%.2f×, %d blocks)",
               median, lowerQuartile, upperQuartile, min, max, count)
    }

    func json() -> [String: Any] {
        func r(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
        return ["median": r(median), "q1": r(lowerQuartile), "q3": r(upperQuartile), "min": r(min), "max": r(max),
                "blocks": count, "ratios": ratios.map(r)]
    }
}

/// One comparison in one placement: both sides' samples pooled, and the ratio block by block.
struct Comparison {
    var placement: Placement
    var ours: Samples
    var floor: Samples
    var ratios: BlockRatios
    /// Ratio of the pooled p50s (the old single figure; the block median is the one to quote).
    var pooledRatio: Double { ours.p50 / floor.p50 }

    /// `pairs` pairs of blocks, kbhost's and the floor's, alternating which goes first (ABBA).
    static func interleaved(_ placement: Placement, pairs: Int, ours: () throws -> [Int64],
                            floor: () throws -> [Int64]) rethrows -> Comparison {
        var all: (ours: [Int64], floor: [Int64]) = ([], [])
        var ratios = BlockRatios()
        for pair in 0..<pairs {
            let o: [Int64], f: [Int64]
            if pair % 2 == 0 {
                o = try ours(); f = try floor()
            } else {
                f = try floor(); o = try ours()
            }
            all.ours += o
            all.floor += f
            ratios.add(ours: o, floor: f)
        }
        return Comparison(placement: placement, ours: Samples(all.ours), floor: Samples(all.floor), ratios: ratios)
    }

    func json() -> [String: Any] {
        var j: [String: Any] = ["ours": ours.jsonMicroseconds(), "floor": floor.jsonMicroseconds(),
                                "ratio_pooled_p50": (pooledRatio * 1000).rounded() / 1000,
                                "block_ratio": ratios.json()]
        if let cpu = placement.cpu { j["cpu"] = cpu }
        return j
    }
}
