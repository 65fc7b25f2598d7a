import Foundation
import KBHost
import KBSystem
import KBText

/// One stress run: keyboards in their processes under the budget, taps as
/// fast as asked, switches, injected faults; every acknowledged character
/// accounted for. The keyboards' life cycle (activate, the warm pool, failover
/// that keeps what a keyboard committed) is the input manager's, with the
/// keyboards apart from the user's data (`InputManager.Apart`); the run chooses
/// each keyboard and counts what the manager reports.
struct StressRun {
    /// Identifiers of the keyboards typed through, and of the fault keyboards.
    let keyboards: [String]
    let faultKeyboards: [String]
    let manager: InputManager
    let duration: Double
    let tapRate: Double
    let switchRate: Double
    let faultRate: Double
    var random: SplitMix64
    var progress: ProgressLine?

    init(keyboards: [LoadableKeyboard], faultKeyboards: [LoadableKeyboard], manager: InputManager,
         duration: Double, tapRate: Double, switchRate: Double, faultRate: Double, seed: UInt64, progress: Bool) {
        self.keyboards = keyboards.map(\.identifier)
        self.faultKeyboards = faultKeyboards.map(\.identifier)
        self.manager = manager
        self.duration = duration
        self.tapRate = tapRate
        self.switchRate = switchRate
        self.faultRate = faultRate
        random = SplitMix64(seed: seed)
        self.progress = progress ? ProgressLine() : nil
    }

    // Running state.
    private var current: String { manager.currentID }
    private var expected = ""
    private var report = StressReport()
    private var timeline = Timeline()
    /// Keys known to insert exactly their label, per keyboard (learned on first tap).
    private var inserting: [String: [String: Bool]] = [:]
    /// The fault keyboards still to inject in this round: each is injected once a round, in an
    /// order the seed shuffles, so that a short or slow run meets every fault it was given (drawn
    /// at random, a loaded 3 s run drew the leak and never the spike).
    private var faultsLeft: [String] = []
    /// The fault keyboards injected so far: a run too short or too slow for every one to come
    /// round once injects the rest before it ends (its report then counts the time it took).
    private var injected: Set<String> = []
    private var start: Int64 = 0
    /// Taps pipelined at once: up to 32, fewer for a keyboard slow to answer, so that a batch
    /// takes about `batchSeconds` and the run (and Ctrl-C) ends on time (32 taps of a keyboard
    /// showing 20,000 candidates took 2.9 s). It starts at 1 and at most doubles a batch.
    private var batchSize = 1
    private static let batchSeconds = 0.05

    private var elapsed: Double { Double(Sys.monotonicNanoseconds() - start) / 1e9 }

    mutating func run() -> (report: StressReport, timeline: Timeline) {
        report.hostMemoryStart = ProcMemory.read(pid: getpid())?.privateDirtyBytes ?? 0
        start = Sys.monotonicNanoseconds()
        var nextSwitch = switchRate > 0 ? 1 / switchRate : .infinity
        var nextFault = faultRate > 0 && !faultKeyboards.isEmpty ? 1 / faultRate : .infinity
        var nextSample = 0.0, nextProgress = 0.5
        activate(keyboards[Int.random(in: 0..<keyboards.count, using: &random)])
        manager.focus(StressProbe.field)  // keys insert their labels: no auto-capitals, no autocorrection
        var tapsSinceCheck = 0
        while elapsed < duration && !LongRun.wasInterrupted {
            let now = elapsed
            if now >= nextSwitch {
                nextSwitch += 1 / switchRate
                report.switches += 1
                activate(keyboards[Int.random(in: 0..<keyboards.count, using: &random)])
            }
            if now >= nextFault {
                nextFault += 1 / faultRate
                injectFault()
            }
            if now >= nextSample {
                nextSample = now + 0.01
                sample()
            }
            if progress != nil && now >= nextProgress {
                nextProgress += 0.5
                printProgress(now)
            }
            if tapRate == 0 { tapsSinceCheck += tapBatch() } else { tap(); tapsSinceCheck += 1 }
            if tapsSinceCheck >= 2000 { checkpoint(); tapsSinceCheck = 0 }
            if tapRate > 0 {
                let due = Double(report.taps) / tapRate
                if due > elapsed { usleep(UInt32(min((due - elapsed) * 1e6, 100_000))) }
            }
        }
        if nextFault < .infinity {
            while injected.count < Set(faultKeyboards).count && !LongRun.wasInterrupted { injectFault() }
        }
        checkpoint()
        report.seconds = elapsed
        report.interrupted = LongRun.wasInterrupted
        report.duration = duration
        manager.close()
        report.peak = manager.peakFootprints
        report.leftBehind = manager.processesLeft.count
        report.hostMemoryEnd = ProcMemory.read(pid: getpid())?.privateDirtyBytes ?? 0
        progress?.finish()
        return (report, timeline)
    }

    /// One point of the current keyboard's footprint on the timeline.
    private mutating func sample() {
        if let s = manager.active, let f = FootprintReader(pid: s.pid)?.read() {
            timeline.points.append((elapsed, current, f.total))
        }
    }

    /// Shows a keyboard (the manager reuses its warm session or starts one); the document moves with the user.
    private mutating func activate(_ id: String) {
        manager.activate(id)
        if manager.active == nil { failedOver() }
    }

    /// One tap on a random key that inserts its label.
    private mutating func tap() {
        guard let s = manager.active else { return activate(keyboards[0]) }
        let keys = s.layout.rows.joined().filter { $0.role == .character && inserting[current]?[$0.label] != false }
        guard !keys.isEmpty else { return }
        let key = keys[Int.random(in: 0..<keys.count, using: &random)]
        let before = s.document.text.utf16.count
        guard manager.tap(key) == .tapped else { return failedOver() }
        report.taps += 1
        if inserting[current]?[key.label] == nil {
            // Learn once whether this key inserts exactly its label.
            let inserted = s.document.text.utf16.count - before == key.label.utf16.count
                && s.document.text.hasSuffix(key.label)
            inserting[current, default: [:]][key.label] = inserted
            if !inserted { expected = s.document.text; return }
        }
        expected += key.label
    }

    /// As fast as the keyboards answer: 32 taps pipelined on keys known to
    /// insert their label (unknown keys are first learned one tap at a time).
    private mutating func tapBatch() -> Int {
        guard let s = manager.active else { activate(keyboards[0]); return 0 }
        let characters = s.layout.rows.joined().filter { $0.role == .character }
        let known = characters.filter { inserting[current]?[$0.label] == true }
        if known.isEmpty || characters.contains(where: { inserting[current]?[$0.label] == nil }) {
            tap()
            return 1
        }
        let keys = (0..<batchSize).map { _ in known[Int.random(in: 0..<known.count, using: &random)] }
        var acknowledged = 0
        let began = elapsed
        defer {
            let perTap = (elapsed - began) / Double(max(acknowledged, 1))
            batchSize = max(1, min(32, 2 * batchSize, Int(Self.batchSeconds / max(perTap, 1e-6))))
        }
        guard manager.tapAll(keys, acknowledged: &acknowledged) == .tapped else {
            expected += keys.prefix(acknowledged).map(\.label).joined()
            report.taps += acknowledged
            failedOver()
            return acknowledged
        }
        expected += keys.map(\.label).joined()
        report.taps += keys.count
        return keys.count
    }

    /// Switch to a fault keyboard, type a character, then press its bad key.
    private mutating func injectFault() {
        if faultsLeft.isEmpty { faultsLeft = faultKeyboards.shuffled(using: &random) }
        let fault = faultsLeft.removeFirst()
        injected.insert(fault)
        let back = keyboards[Int.random(in: 0..<keyboards.count, using: &random)]
        activate(fault)
        if let s = manager.active, let boom = s.layout.key(named: "boom") {
            sample()
            tap()
            sample()
            if manager.active === s {  // the character's tap did not end it
                let before = s.document.text
                if manager.tap(boom) == .tapped {
                    expected += String(s.document.text.dropFirst(before.count))  // the leak's "+"
                    sample()
                } else {
                    failedOver()
                }
            }
        }
        activate(back)
        report.recoveries += 1
    }

    /// The manager failed over from a keyboard: count it by kind, mark it on the chart, and
    /// check that what it committed is what was acknowledged (the document goes on from there).
    /// A keyboard that failed before its session started committed nothing and is not counted.
    private mutating func failedOver() {
        guard let failover = manager.lastFailover, let committed = failover.committed else { return }
        let id = failover.keyboardID
        let kind = failover.failure?.kind ?? "other"
        report.kills[kind, default: 0] += 1
        if case .memoryExceeded(let kill)? = failover.failure?.reason {
            report.detection.append(kill.detectionNanoseconds)
            report.overshoot.append(kill.overshoot)
            timeline.points.append((elapsed, id, kill.footprintAtKill))  // the last point of its climb
            timeline.kills.append((elapsed, id, kill.footprintAtKill, kind))
        } else {
            let last = timeline.points.last { $0.keyboard == id }?.bytes ?? 0
            timeline.kills.append((elapsed, id, last, kind))
        }
        if committed.text != expected { report.mismatches.append("after \(kind) of \(id): document differs from what was acknowledged") }
        expected = committed.text
    }

    /// Compares the document with the acknowledged taps, then starts a fresh document.
    private mutating func checkpoint() {
        guard let s = manager.active else { return }
        let text = s.document.text
        report.expectedCharacters += expected.count
        report.committedCharacters += text.count
        if text != expected {
            report.mismatches.append(String(format: "at %.2f s on %@: expected %d characters, document has %d", elapsed, current,
                                            expected.count, text.count))
        }
        expected = ""
        manager.appChanged(TextBuffer())  // a fresh document
        if manager.active == nil { failedOver() }
    }

    private mutating func printProgress(_ now: Double) {
        let rate = Double(report.taps) / max(now, 0.001)
        let kills = report.kills.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: " ")
        var footprint = ""
        if let s = manager.active, let f = FootprintReader(pid: s.pid)?.read() {
            footprint = String(format: " · %@ %.1f MiB", TerminalText.line(s.keyboard.manifest.displayName), Double(f.total) / 1_048_576)
        }
        let line = String(format: "%.1f s · %.0f taps/s · %d switches · kills: %@%@", now, rate, report.switches,
                          kills.isEmpty ? "none" : kills, footprint)
        progress?.show(line, at: now)
    }
}
