import ArgumentParser
import Foundation
import KBHost
import KBSystem

struct Profile: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a typing script through one keyboard and report its peak footprint against each device profile.",
        discussion: """
            The script holds tap tokens separated by white space, as `kbhost type` takes them \
            (labels, space/return/delete/shift/globe, id:NAME, double:KEY, long:KEY, long:KEY:CHOICE, hold:KEY:MS, \
            drag:KEY:DX[,DY]/…, pause:MS, rotate:…, and reopen: dismissed and shown again, a new controller in the \
            same process, so a keyboard that keeps its old controllers shows the leak). \
            The keyboard runs without a kill, so the whole script is measured; the report says where each \
            profile's budget would have ended it. A chart of the footprint after each tap, with each \
            profile's budget and the tap after which it would have killed the keyboard, is written as SVG. \
            --fail-over PROFILE exits 1 when that profile would have killed it (for CI). On a terminal a \
            progress line shows the tap it is at. Ctrl-C ends the script early; the report and the chart still come.
            """)

    @Argument(help: KeyboardName.one, completion: KeyboardName.completion) var keyboard: String
    @Option(help: "The typing script: a file, or - for standard input.") var script: String
    @Option(help: "Write the memory timeline chart (SVG) here.") var svg = "kbhost-profile.svg"
    @Option(help: ArgumentHelp("Exit 1 if this device profile would have killed the keyboard (\(Governor.profiles.map(\.name).joined(separator: ", "))).",
                               valueName: "PROFILE"))
    var failOver: String?
    @Flag(help: "Print the report as JSON.") var json = false

    func validate() throws {
        if let failOver, !Governor.profiles.contains(where: { $0.name == failOver }) {
            throw ValidationError("unknown device profile '\(failOver)'; profiles: \(Governor.profiles.map(\.name).joined(separator: ", "))")
        }
    }

    struct Row: Encodable {
        var profile: String
        var budgetBytes: Int
        var fits: Bool
        /// The first tap (1-based) after which the footprint was over the budget.
        @Nullable var overAfterTap: Int?
    }

    /// Memory in bytes, as in all of kbhost's JSON.
    struct Report: Encodable {
        var keyboard: String
        /// Taps performed: all of the script's unless interrupted.
        var taps: Int
        var scriptTaps: Int
        var interrupted: Bool
        var peakFootprintBytes: Int
        var finalFootprintBytes: Int
        var profiles: [Row]
    }

    func run() throws {
        let context = try LongRun.begin(chart: svg)
        defer { signal(SIGINT, SIG_DFL) }
        let entry = try report { try context.entry(self.keyboard) }
        let keyboard = entry.identifier
        guard let loadable = entry.loadable else {
            throw exitWithError("\(keyboard) is built in and has no process to profile", status: Kbhost.Exit.refused)
        }
        context.warnIfStale(entry)
        let text = try TapScript.text(script)
        let steps: [TapStep]
        do { steps = try TapStep.script(text) } catch {
            throw exitWithError("\(script): \(error)", status: Kbhost.Exit.usage)
        }
        // Apart from the user's data, as measured; watched for its peak, never killed short of RLIMIT_DATA.
        let manager: InputManager
        do {
            manager = try InputManager(apart: InputManager.Apart(keyboards: [loadable]), installation: context.installation,
                                       budget: 4 << 30, warmKeyboards: 1, launching: .script)
        } catch { throw exitWithError("\(error)", status: Kbhost.Exit.refused) }  // only the system keyboard's identifier
        manager.activate(keyboard)
        guard let session = manager.active else {
            throw exitWithError(manager.lastFailure?.reason ?? "\(keyboard) did not start", status: Kbhost.Exit.keyboardFailed)
        }
        defer { manager.close() }
        guard let reader = FootprintReader(pid: session.pid) else {
            throw exitWithError("cannot read the footprint of \(session.pid)", status: Kbhost.Exit.keyboardFailed)
        }
        var peak = reader.read()?.total ?? 0
        var last = peak
        var footprints = [last]  // before the first tap, then after each
        // A long script shows where it is on a terminal (every 0.5 s); redirected, nothing.
        var progress = !json && Terminal.isTerminal(2) ? ProgressLine() : nil
        let began = Sys.monotonicNanoseconds()
        var nextProgress = 0.5
        for (i, step) in steps.enumerated() {
            if LongRun.wasInterrupted { break }
            let now = Double(Sys.monotonicNanoseconds() - began) / 1e9
            if progress != nil, now >= nextProgress {
                nextProgress = now + 0.5
                progress?.show(String(format: "tap %d of %d · footprint %.1f MiB · peak %.1f MiB · Ctrl-C ends it with the report",
                                      i, steps.count, Double(last) / 1_048_576, Double(peak) / 1_048_576), at: now)
            }
            do throws(SessionError) { try manager.perform(step) } catch {
                progress?.finish()  // the error on a clean line
                let status = if error.isNoSuchKeyOrAlternate { Kbhost.Exit.noSuchKey } else { Kbhost.Exit.keyboardFailed }
                throw exitWithError("tap \(i + 1) of \(script): \(error)", status: status)
            }
            last = reader.read()?.total ?? last
            peak = max(peak, last)
            footprints.append(last)
        }
        progress?.finish()
        let overAfter = MemoryBudget.profiles.reduce(into: [String: Int]()) { $0[$1.name] = $1.overAfterTap(footprints) }
        let done = footprints.count - 1
        peak = max(peak, session.peakFootprint ?? 0)
        let rows = Governor.profiles.map {
            Row(profile: $0.name, budgetBytes: $0.budget, fits: peak <= $0.budget, overAfterTap: overAfter[$0.name])
        }
        let written = LongRun.write(Self.chart(keyboard, footprints: footprints, peak: peak, overAfter: overAfter).svg(), to: svg)
        let result = Report(keyboard: keyboard, taps: done, scriptTaps: steps.count, interrupted: done < steps.count,
                            peakFootprintBytes: peak, finalFootprintBytes: last, profiles: rows)
        let failed = !written || (failOver.map { overAfter[$0] != nil } ?? false)
        if json {
            try printJSON(result)
            if failed { throw ExitCode(Kbhost.Exit.checkFailed) }
            return
        }
        Console.out(String(format: "%@: %d taps, peak footprint %.2f MiB, at the end %.2f MiB", keyboard, done,
                           Double(peak) / 1_048_576, Double(last) / 1_048_576))
        if done < steps.count { Console.out("  interrupted (Ctrl-C) after tap \(done) of \(steps.count)") }
        for row in rows {
            let verdict = row.fits ? "fits" : "would be killed" + (row.overAfterTap.map { " after tap \($0)" } ?? "")
            Console.out("  \(row.profile) (\(row.budgetBytes >> 20) MiB): \(verdict)")
        }
        Console.out("  chart: \(written ? svg : "not written")")
        if let failOver, let tap = overAfter[failOver] { Console.err("kbhost: \(failOver) would have killed \(keyboard) after tap \(tap)") }
        if failed { throw ExitCode(Kbhost.Exit.checkFailed) }
    }
}


extension Profile {
    /// The profile chart: the footprint after each tap, each device profile's
    /// budget, and a mark where each would have killed the keyboard.
    /// `peak`: the report's peak (the kernel's high-water mark can be above every footprint read).
    static func chart(_ keyboard: String, footprints: [Int], peak: Int, overAfter: [String: Int]) -> Chart {
        var chart = Chart(title: "kbhost profile: \(keyboard), footprint after each tap"
                              + String(format: ", peak %.2f MiB", Double(peak) / 1_048_576),
                          xTitle: "tap number (0: before the first tap)", yTitle: "footprint (MiB)")
        chart.note = "footprint after each tap: anonymous + shared + swap + page tables; a dashed line per device profile's budget"
        chart.integerX = true
        chart.xExtent = Double(max(footprints.count - 1, 1))
        chart.series = [Chart.Series(name: keyboard, points: footprints.enumerated().map { (Double($0.offset), Double($0.element) / 1_048_576) })]
        let colors = ["#d62728", "#ff7f0e", "#2ca02c", "#9467bd"]
        for (i, p) in Governor.profiles.enumerated() {
            let color = colors[i % colors.count]
            chart.thresholds.append(.init(label: "\(p.name) \(p.budget >> 20) MiB", value: Double(p.budget >> 20), color: color))
            let tap = overAfter[p.name]
            chart.markStyles.append(.init(name: tap.map { "\(p.name) kills after tap \($0)" } ?? "\(p.name) (\(p.budget >> 20) MiB): fits",
                                          shape: tap == nil ? .dash : .triangle, color: color))
            if let tap { chart.marks.append(.init(x: Double(tap), y: Double(footprints[tap]) / 1_048_576, style: i)) }
        }
        return chart
    }
}
