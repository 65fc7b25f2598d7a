import Foundation
import KBSystem

/// One placement's key round trips, and the CPU each side spent per trip.
struct TapRun {
    var comparison: Comparison
    var cpu: (ours: CPUAccount, floor: CPUAccount)
}

struct MemoryRow {
    var id: String
    var ours: ProcMemory
    var floor: ProcMemory
}

/// The readable table: to stdout, or to stderr when stdout carries the JSON.
struct Report {
    var toStandardError: Bool

    init(toStandardError: Bool) { self.toStandardError = toStandardError }

    func line(_ text: String = "") {
        if toStandardError {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        } else {
            print(text)
        }
    }

    /// Progress notes go to stderr, so that stdout holds only the report.
    func progress(_ text: String) {
        FileHandle.standardError.write(Data("… \(text)\n".utf8))
    }

    private func verdict(_ met: Bool) -> String { met ? "met" : "NOT met" }
    private func f(_ value: Double, _ decimals: Int = 1) -> String { String(format: "%.\(decimals)f", value) }
    private func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
    private func lpad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : String(repeating: " ", count: width - s.count) + s
    }

    func header(machine: [String: Any], products: String, command: String) {
        line("kbhost-bench — figures from one run, not a statistical study; re-run before quoting them")
        line("machine: nproc \(machine["nproc"]!), kernel \(machine["kernel"]!) \(machine["machine"]!), \(machine["build"]!) build")
        line("products: \(products)")
        line("reproduce: \(command)   (one section: --only N; --help for the counts)")
        line("every kbhost/floor ratio is taken per pair of adjacent blocks (ABBA order) and quoted as the median of those;"
             + " each comparison runs unpinned, then with every process of the benchmark on CPU \(CPUPinning.chosenCPU)")
        line()
    }

    /// A table of timing rows: name, then samples, p50, p99, mean, min, max (µs or ms).
    func timingTable(_ rows: [(String, Samples)], nameWidth: Int, milliseconds: Bool = false) {
        let unit = milliseconds ? "ms" : "µs", scale = milliseconds ? 1e6 : 1e3, decimals = milliseconds ? 3 : 2
        line("   " + pad("", nameWidth) + lpad("samples", 9) + lpad("p50 \(unit)", 10) + lpad("p99 \(unit)", 10)
             + lpad("mean \(unit)", 10) + lpad("min \(unit)", 10) + lpad("max \(unit)", 10))
        for (name, s) in rows {
            line("   " + pad(name, nameWidth) + lpad("\(s.count)", 9) + lpad(f(s.p50 / scale, decimals), 10)
                 + lpad(f(s.p99 / scale, decimals), 10) + lpad(f(s.mean / scale, decimals), 10)
                 + lpad(f(s.min / scale, decimals), 10) + lpad(f(s.max / scale, decimals), 10))
        }
    }

    /// The ratio lines of a comparison: the block median (the figure to quote) and its spread, the pooled p50s' ratio.
    func ratioLines(_ c: Comparison, target: Double, what: String = "blocks") {
        line("   kbhost/floor per block (\(c.placement)): \(c.ratios.summary)   target ≤ \(f(target, 1))×: \(verdict(c.ratios.median <= target))")
        line("   (ratio of the pooled p50s: \(f(c.pooledRatio, 2))×)")
    }

    func tapSection(_ runs: [TapRun], frames: (request: Int, reply: Int), target: Double) {
        line("1. Key round trip (dev.kbhost.NumberPad, tap \"1\": frame → libffi action → insertText → reply → document)")
        line("   request frame \(frames.request) B, reply frame \(frames.reply) B; floor: raw socketpair ping-pong of \(frames.request) B with kbhost-floor echo")
        line("   alternating blocks of \(runs.first.map { $0.comparison.ours.count / max(1, $0.comparison.ratios.count) } ?? 0) taps (ABBA), unpinned, then host, worker and echo all on one CPU")
        timingTable(runs.flatMap { run in
            [("kbhost, \(run.comparison.placement)", run.comparison.ours), ("floor, \(run.comparison.placement)", run.comparison.floor)]
        }, nameWidth: 26)
        for run in runs {
            line("   CPU per round trip (µs), \(run.comparison.placement): kbhost host \(f(run.cpu.ours.selfPerTrip / 1000, 2)) + worker \(f(run.cpu.ours.childPerTrip / 1000, 2));"
                 + " floor bench \(f(run.cpu.floor.selfPerTrip / 1000, 2)) + echo \(f(run.cpu.floor.childPerTrip / 1000, 2))")
        }
        for run in runs { ratioLines(run.comparison, target: target) }
        line()
    }

    func loadSection(_ rows: [LoadRow], target: Double) {
        line("2. Cold load (KeyboardSession init + appear() → viewDidAppear; floor: spawn kbhost-floor dlopen PATH → 'r')")
        line("   load by load: sandboxed, unsandboxed, floor, with a spare; ratios per block of \(rows.first.map { $0.ours.count / max(1, $0.ratios.count) } ?? 0) loads;"
             + " close() / floor close+reap timed apart")
        line("   " + pad("keyboard", 24) + pad("placement", 19) + lpad("p50 ms", 8) + lpad("p99 ms", 8)
             + lpad("floor p50", 10) + lpad("floor p99", 10) + lpad("spare p50", 10) + lpad("unsandb.", 9)
             + lpad("close ms", 9) + lpad("floor close", 12))
        for r in rows {
            line("   " + pad(r.id, 24) + pad("\(r.placement)", 19) + lpad(f(r.ours.p50 / 1e6, 3), 8)
                 + lpad(f(r.ours.p99 / 1e6, 3), 8) + lpad(f(r.floor.p50 / 1e6, 3), 10) + lpad(f(r.floor.p99 / 1e6, 3), 10)
                 + lpad(f(r.withSpare.p50 / 1e6, 3), 10) + lpad(f(r.unsandboxed.p50 / 1e6, 3), 9)
                 + lpad(f(r.oursTeardown.p50 / 1e6, 3), 9) + lpad(f(r.floorTeardown.p50 / 1e6, 3), 12))
        }
        // The target is for a keyboard's load as the front ends that switch keyboards make it:
        // into the spare they keep pre-created (the issue's "pre-create what can be reused").
        line("   kbhost/floor per block, a load taking the prepared spare (spawned, in its namespaces, handshake done;"
             + " attach, the daemon, stress and ibus keep one) (target ≤ \(f(target, 0))×):")
        for r in rows {
            line("   \(pad(r.id, 24)) \(pad("\(r.placement)", 18)) \(r.spareRatios.summary): \(verdict(r.spareRatios.median <= target))")
        }
        line("   kbhost/floor per block, a process started for the load (no spare: a session's first keyboard, `kbhost type`):")
        for r in rows {
            line("   \(pad(r.id, 24)) \(pad("\(r.placement)", 18)) \(r.ratios.summary)")
        }
        line("   the sandbox (namespaces, root, seccomp, Landlock, containers) against the same load without it, p50:")
        for r in rows {
            line("   \(pad(r.id, 24)) \(pad("\(r.placement)", 18)) sandboxed \(f(r.ours.p50 / 1e6, 3)) ms, unsandboxed \(f(r.unsandboxed.p50 / 1e6, 3)) ms: "
                 + "\(f(r.sandboxAddedMs, 3)) ms added")
        }
        line()
    }

    func ibusSection(_ figures: IBusFigures, target: Double) {
        line()
        line("6. A key through IBus (headless ibus-daemon; client kbhost-floor-ibus: process_key_event press → commit-text, then the release)")
        line("   kbhost: engine `kbhost` (kbhost ibus --ibus) typing through dev.kbhost.NumberPad in its sandboxed process;"
             + " floor: engine `kbhost-floor` (C, commits every key);")
        line("   floor+hop: engine `kbhost-floor-hop`, the floor with one blocking round trip to a forked child before each commit"
             + " (what one process per keyboard costs at the least: no Swift, no sandbox, no keyboard)")
        line("   alternating blocks of \(figures.keysPerBlock) keys (kbhost, floor, floor+hop, then floor, floor+hop, kbhost, …; before each block"
             + " its engine is chosen and \(figures.warmupPerBlock) keys go untimed)")
        timingTable(zip(figures.comparisons, figures.hopComparisons).flatMap { c, h in
            [("kbhost, \(c.placement)", c.ours), ("floor, \(c.placement)", c.floor), ("floor+hop, \(h.placement)", h.ours)]
        }, nameWidth: 26)
        for (i, c) in figures.comparisons.enumerated() where 2 * i + 1 < figures.cpu.count {
            let o = figures.cpu[2 * i], fl = figures.cpu[2 * i + 1]
            line("   CPU per key (µs), \(c.placement): kbhost engine+keyboard \(f(o.perKey(o.engine) / 1000, 1)), daemon \(f(o.perKey(o.daemon) / 1000, 1)),"
                 + " client \(f(o.perKey(o.client) / 1000, 1)); floor engine \(f(fl.perKey(fl.engine) / 1000, 1)), daemon \(f(fl.perKey(fl.daemon) / 1000, 1)),"
                 + " client \(f(fl.perKey(fl.client) / 1000, 1))"
                 + (i < figures.hopCPU.count ? "; floor+hop engine+child \(f(figures.hopCPU[i].perKey(figures.hopCPU[i].engine) / 1000, 1))" : ""))
        }
        for c in figures.comparisons { ratioLines(c, target: target) }
        for h in figures.hopComparisons {
            line("   floor+hop/floor per block (\(h.placement)): \(h.ratios.summary)   (one process hop alone, the design's least)")
        }
        line("   memory (smaps_rollup, KiB), after warm-up → after every timed key:")
        line("   " + pad("process", 40) + lpad("pid", 8) + lpad("Rss", 14) + lpad("Private_Dirty", 16))
        for row in figures.memoryAfter {
            let before = figures.memoryBefore.first { $0.pid == row.pid }
            func pair(_ value: (ProcMemory) -> Int) -> String {
                let now = "\(value(row.memory) / 1024)"
                return before.map { "\(value($0.memory) / 1024) → " + now } ?? now
            }
            line("   " + pad(row.role, 40) + lpad("\(row.pid)", 8) + lpad(pair { $0.residentBytes }, 14)
                 + lpad(pair { $0.privateDirtyBytes }, 16))
        }
        let kbhostRows = figures.memoryAfter.filter { !$0.role.hasPrefix("kbhost-floor") && $0.role != "ibus-daemon" }
        line("   kbhost's engine and its keyboard's processes together: Rss \(kbhostRows.reduce(0) { $0 + $1.memory.residentBytes } / 1024) KiB,"
             + " private dirty \(kbhostRows.reduce(0) { $0 + $1.memory.privateDirtyBytes } / 1024) KiB (Rss counts shared pages in each)")
        if !figures.engineLog.isEmpty {
            line("   the daemon's and engines' stderr (\(figures.engineLog.count) lines), last ones:")
            for l in figures.engineLog.suffix(5) { line("     " + String(l.prefix(160))) }
        }
        if !figures.leftBehind.isEmpty {
            line("   left behind after the daemon ended (killed): \(figures.leftBehind.map(String.init).joined(separator: ", "))")
        }
    }

    func switchSection(_ runs: [WarmSwitchFigures]) {
        line()
        line("7. Warm switch: the globe key to a keyboard whose process is alive (InputManager, \(WarmSwitchFigures.keyboards.joined(separator: " ↔ ")),"
             + " until the new keyboard has appeared)")
        line("   globe: the settings written (lock, atomic write, fsync) and the switch; follow: the switch alone (`kbhost next` heard from the daemon)")
        timingTable(runs.flatMap { w in [("globe, \(w.placement)", w.globe), ("follow, \(w.placement)", w.follow)] },
                    nameWidth: 26, milliseconds: true)
        for w in runs where !w.processesKept {
            line("   \(w.placement): a switch did not land in the keyboard's earlier process (it was started anew)")
        }
    }

    func memorySection(_ rows: [MemoryRow], afterTaps: ProcMemory?, tapCount: Int, targetKiB: Int) {
        line("3. Memory with the plugin loaded (smaps_rollup, KiB; kbhost worker after viewDidAppear, floor after dlopen)")
        line("   " + pad("keyboard", 24) + pad("process", 20) + lpad("Private_Dirty", 14) + lpad("Rss", 8)
             + lpad("Private_Clean", 14) + lpad("Shared_Clean", 13))
        func row(_ id: String, _ who: String, _ m: ProcMemory) {
            line("   " + pad(id, 24) + pad(who, 20) + lpad("\(m.privateDirtyBytes / 1024)", 14) + lpad("\(m.residentBytes / 1024)", 8)
                 + lpad("\(m.privateCleanBytes / 1024)", 14) + lpad("\(m.sharedCleanBytes / 1024)", 13))
        }
        for r in rows {
            row(r.id, "kbhost-worker", r.ours)
            row("", "kbhost-floor", r.floor)
        }
        if let m = afterTaps { row("dev.kbhost.NumberPad", "worker, \(tapCount) taps", m) }
        for r in rows {
            let kib = r.ours.privateDirtyBytes / 1024
            line("   \(r.id): worker private dirty \(kib) KiB (floor \(r.floor.privateDirtyBytes / 1024) KiB)   target < \(targetKiB) KiB: \(verdict(kib < targetKiB))")
        }
    }
}
