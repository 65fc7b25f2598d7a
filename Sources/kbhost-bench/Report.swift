import Foundation
import KBSystem

struct LoadRow {
    var id: String
    var ours: Samples
    var oursTeardown: Samples
    var floor: Samples
    var floorTeardown: Samples
    /// The same loads with the sandbox off (KeyboardAccess(sandboxed: false)), interleaved.
    var unsandboxed: Samples
    /// The same sandboxed loads taking a prepared spare (spawned, in its namespaces, handshake done), interleaved.
    var withSpare: Samples
    var ratio: Double { ours.p50 / floor.p50 }
    var spareRatio: Double { withSpare.p50 / floor.p50 }
    /// What the namespaces, seccomp, Landlock and the containers add to a cold load, p50, ms.
    var sandboxAddedMs: Double { (ours.p50 - unsandboxed.p50) / 1e6 }
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

    func header(machine: [String: Any], products: String) {
        line("kbhost-bench — figures from one run, not a statistical study; re-run before quoting them")
        line("machine: nproc \(machine["nproc"]!), kernel \(machine["kernel"]!) \(machine["machine"]!), \(machine["build"]!) build")
        line("products: \(products)")
        line()
    }

    func tapSection(ours: Samples, floor: Samples, frames: (request: Int, reply: Int), ratio: Double, target: Double,
                    cpu: (ours: CPUAccount, floor: CPUAccount)) {
        line("1. Key round trip (dev.kbhost.NumberPad, tap \"1\": frame → libffi action → insertText → reply → document)")
        line("   request frame \(frames.request) B, reply frame \(frames.reply) B; floor: raw socketpair ping-pong of \(frames.request) B with kbhost-floor echo")
        line("   " + pad("", 10) + lpad("samples", 9) + lpad("p50 µs", 10) + lpad("p99 µs", 10) + lpad("mean µs", 10)
             + lpad("min µs", 10) + lpad("max µs", 10))
        for (name, s) in [("kbhost", ours), ("floor", floor)] {
            line("   " + pad(name, 10) + lpad("\(s.count)", 9) + lpad(f(s.p50 / 1000, 2), 10) + lpad(f(s.p99 / 1000, 2), 10)
                 + lpad(f(s.mean / 1000, 2), 10) + lpad(f(s.min / 1000, 2), 10) + lpad(f(s.max / 1000, 2), 10))
        }
        line("   CPU per round trip (µs): kbhost host \(f(cpu.ours.selfPerTrip / 1000, 2)) + worker \(f(cpu.ours.childPerTrip / 1000, 2));"
             + " floor bench \(f(cpu.floor.selfPerTrip / 1000, 2)) + echo \(f(cpu.floor.childPerTrip / 1000, 2))")
        line("   p50 ratio kbhost/floor: \(f(ratio, 2))×   target ≤ \(f(target, 1))× floor: \(verdict(ratio <= target))")
        line()
    }

    func loadSection(_ rows: [LoadRow], target: Double) {
        line("2. Cold load (KeyboardSession init + appear() → viewDidAppear; floor: spawn kbhost-floor dlopen PATH → 'r')")
        line("   close() / floor close+reap timed apart, not in the load figure")
        line("   " + pad("keyboard", 24) + lpad("samples", 8) + lpad("p50 ms", 9) + lpad("p99 ms", 9) + lpad("mean ms", 9)
             + lpad("floor p50", 11) + lpad("floor p99", 11) + lpad("ratio", 8) + lpad("close ms", 10) + lpad("floor close", 13))
        for r in rows {
            line("   " + pad(r.id, 24) + lpad("\(r.ours.count)", 8) + lpad(f(r.ours.p50 / 1e6, 3), 9)
                 + lpad(f(r.ours.p99 / 1e6, 3), 9) + lpad(f(r.ours.mean / 1e6, 3), 9)
                 + lpad(f(r.floor.p50 / 1e6, 3), 11) + lpad(f(r.floor.p99 / 1e6, 3), 11) + lpad(f(r.ratio, 2) + "×", 8)
                 + lpad(f(r.oursTeardown.p50 / 1e6, 3), 10) + lpad(f(r.floorTeardown.p50 / 1e6, 3), 13))
        }
        for r in rows {
            line("   \(r.id): p50 ratio \(f(r.ratio, 2))×   target ≤ \(f(target, 0))× floor: \(verdict(r.ratio <= target))")
        }
        line("   taking a prepared spare (spawned, in its namespaces, handshake done; attach, the daemon and stress keep one):")
        for r in rows {
            line("   \(pad(r.id, 24)) p50 \(f(r.withSpare.p50 / 1e6, 3)) ms, p99 \(f(r.withSpare.p99 / 1e6, 3)) ms: "
                 + "ratio \(f(r.spareRatio, 2))×   target ≤ \(f(target, 0))× floor: \(verdict(r.spareRatio <= target))")
        }
        line("   the sandbox (namespaces, root, seccomp, Landlock, containers) against the same load without it, p50:")
        for r in rows {
            line("   \(pad(r.id, 24)) sandboxed \(f(r.ours.p50 / 1e6, 3)) ms, unsandboxed \(f(r.unsandboxed.p50 / 1e6, 3)) ms: "
                 + "\(f(r.sandboxAddedMs, 3)) ms added")
        }
        line()
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
