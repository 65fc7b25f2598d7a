import ArgumentParser
import Foundation
import KBHost
import KBSystem

struct Profile: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a typing script through one keyboard and report its peak footprint against each device profile.",
        discussion: """
            The script holds tap tokens separated by white space, as `kbhost type` takes them \
            (labels, space/return/delete/shift/globe, id:NAME, double:KEY, long:KEY, hold:KEY:MS, pause:MS). \
            The keyboard runs without a kill, so the whole script is measured; the report says where each \
            profile's budget would have ended it. A memory timeline is written as SVG.
            """)

    @Argument(help: KeyboardName.one, completion: KeyboardName.completion) var keyboard: String
    @Option(help: "The typing script.") var script: String
    @Option(help: "Write the memory timeline chart (SVG) here.") var svg = "kbhost-profile.svg"
    @Flag(help: "Print the report as JSON.") var json = false

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
        var taps: Int
        var peakFootprintBytes: Int
        var finalFootprintBytes: Int
        var profiles: [Row]
    }

    func run() throws {
        Sys.ignoreSIGPIPE()
        let context = try Context.make()
        let entry = try report { try context.entry(self.keyboard) }
        let keyboard = entry.identifier
        guard let loadable = entry.loadable else {
            throw exitWithError("\(keyboard) is built in and has no process to profile", status: Kbhost.Exit.refused)
        }
        context.warnIfStale(entry)
        let text: String
        do { text = try String(contentsOfFile: script, encoding: .utf8) } catch {
            throw exitWithError("cannot read the script \(script): \(error.localizedDescription)", status: Kbhost.Exit.usage)
        }
        let steps: [TapStep]
        do { steps = try TapStep.script(text) } catch {
            throw exitWithError("\(script): \(error)", status: Kbhost.Exit.usage)
        }
        var configuration = context.installation.processConfiguration
        configuration.memoryBudgetBytes = 4 << 30  // watched for its peak, never killed short of RLIMIT_DATA
        let session: KeyboardSession
        do {
            session = try KeyboardSession(keyboard: loadable, configuration: configuration)
            try session.appear()
        } catch { throw exitWithError("\(error)", status: Kbhost.Exit.keyboardFailed) }
        defer { session.close() }
        guard let reader = FootprintReader(pid: session.pid) else {
            throw exitWithError("cannot read the footprint of \(session.pid)", status: Kbhost.Exit.keyboardFailed)
        }
        var timeline = Timeline()
        let start = Sys.monotonicNanoseconds()
        var overAfter: [String: Int] = [:]
        var peak = reader.read()?.total ?? 0
        var last = peak
        for (i, step) in steps.enumerated() {
            do throws(SessionError) { try step.perform(on: session) } catch {
                let status = if case .noSuchKey = error { Kbhost.Exit.noSuchKey } else { Kbhost.Exit.keyboardFailed }
                throw exitWithError("tap \(i + 1) of \(script): \(error)", status: status)
            }
            last = reader.read()?.total ?? last
            peak = max(peak, last)
            timeline.points.append((Double(Sys.monotonicNanoseconds() - start) / 1e9, keyboard, last))
            for p in Governor.profiles where last > p.budget && overAfter[p.name] == nil {
                overAfter[p.name] = i + 1
                timeline.kills.append((Double(Sys.monotonicNanoseconds() - start) / 1e9, p.name, last))
            }
        }
        peak = max(peak, session.peakFootprint ?? 0)
        let rows = Governor.profiles.map {
            Row(profile: $0.name, budgetBytes: $0.budget, fits: peak <= $0.budget, overAfterTap: overAfter[$0.name])
        }
        try timeline.svg(budget: Governor.defaultBudget).write(toFile: svg, atomically: true, encoding: .utf8)
        let result = Report(keyboard: keyboard, taps: steps.count, peakFootprintBytes: peak, finalFootprintBytes: last, profiles: rows)
        if json { return try printJSON(result) }
        Console.out(String(format: "%@: %d taps, peak footprint %.2f MiB, at the end %.2f MiB", keyboard, steps.count,
                           Double(peak) / 1_048_576, Double(last) / 1_048_576))
        for row in rows {
            let verdict = row.fits ? "fits" : "would be killed" + (row.overAfterTap.map { " after tap \($0)" } ?? "")
            Console.out("  \(row.profile) (\(row.budgetBytes >> 20) MiB): \(verdict)")
        }
        Console.out("  timeline: \(svg)")
    }
}
