import ArgumentParser
import Foundation
import KBHost
import KBSystem

struct Stress: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The memory-limit stress run: type through keyboards under a budget, switch, inject faults, count every character.",
        discussion: """
            Taps go to keys that insert their label, so every acknowledged tap's text must be in the \
            document: the run fails (exit 1) if a character is lost or added, or a child process is left. \
            The field asks for no auto-capitals and no autocorrection. A keyboard that composes (marked \
            text, as Kana's romaji), or none of whose keys types its label (Calculator), is refused (exit 7). Ctrl-C ends the run early; the report and the chart still come. \
            Faults (fault keyboards in the rotation, whose 'boom' key misbehaves): \
            \(StressFault.allCases.map(\.rawValue).joined(separator: ", ")).
            """)

    @Option(name: .customLong("keyboard"), help: "A keyboard to type through (repeatable). Default: the bundled NumberPad and Science.",
            completion: KeyboardName.completion)
    var keyboards: [String] = []
    @OptionGroup var budget: BudgetOption
    @Option(help: "How long to run, in seconds.") var duration: Double = 10
    @Option(help: "Taps per second (0: as fast as the keyboards answer).") var tapRate: Double = 0
    @Option(help: "Keyboard switches per second.") var switchRate: Double = 5
    @Option(help: "Faults to inject, comma-separated (or 'all').") var faults: String = ""
    @Option(help: "Fault taps per second.") var faultRate: Double = 2
    @Option(help: "Seed of the random choices.") var seed: UInt64 = 1
    @Option(help: "Deadline for each event in ms (a hang is detected after this).") var eventDeadline = 300
    @Option(help: "Write the memory timeline chart (SVG) here.") var svg: String = "kbhost-stress.svg"
    @Flag(help: "Print the report as JSON.") var json = false

    func validate() throws {
        guard duration > 0, duration <= 86_400 else { throw ValidationError("--duration must be in (0, 86400] seconds") }
        guard tapRate >= 0, switchRate >= 0, faultRate >= 0 else { throw ValidationError("rates cannot be negative") }
        _ = try StressFault.parse(faults)
    }

    func run() throws {
        let context = try LongRun.begin(chart: svg)
        defer { signal(SIGINT, SIG_DFL) }
        let ids = keyboards.isEmpty ? ["dev.kbhost.NumberPad", "dev.kbhost.Science"] : keyboards
        var rotation: [LoadableKeyboard] = []
        for id in ids {
            let entry = try report { try context.entry(id) }
            guard let loadable = entry.loadable else {
                throw exitWithError("\(entry.identifier) is built in; stress runs plugins", status: Kbhost.Exit.refused)
            }
            rotation.append(loadable)
        }
        let faultKeyboards = try StressFault.parse(faults).map { try $0.keyboard(context.installation) }
        let bytes = try budget.bytes(context)
        // Keyboards switch here: a spare is kept, so the next launch is only a load. A run may
        // last hours and reads no session's history: each keeps its last 1,000 events, as `attach`.
        let launching = InputManager.Launching(keepsSpare: true, leastLaunchDeadlineMilliseconds: nil,
                                               eventLimit: InputManager.Launching.person.eventLimit,
                                               eventDeadlineMilliseconds: eventDeadline)
        func manager(_ keyboards: [LoadableKeyboard]) throws -> InputManager {
            do {
                return try InputManager(apart: InputManager.Apart(keyboards: keyboards, needsInputModeSwitchKey: false),
                                        installation: context.installation, budget: bytes, launching: launching)
            } catch { throw exitWithError("\(error)", status: Kbhost.Exit.refused) }  // only the system keyboard's identifier
        }
        for keyboard in rotation { try StressProbe.refuseUncountable(try manager([keyboard])) }
        var run = StressRun(keyboards: rotation, faultKeyboards: faultKeyboards, manager: try manager(rotation + faultKeyboards),
                            duration: duration, tapRate: tapRate, switchRate: switchRate, faultRate: faultRate, seed: seed,
                            progress: !json)
        let result = run.run()
        let chart = result.timeline.chart(budget: bytes, seconds: result.report.seconds).svg()
        let written = LongRun.write(chart, to: svg)
        if json { try printJSON(result.report) } else { Console.out(result.report.text(svg: written ? svg : "not written")) }
        if !result.report.passed || !written { throw ExitCode(Kbhost.Exit.checkFailed) }
    }
}

/// The faults a stress run can inject, each a class of the fault plugin.
enum StressFault: String, CaseIterable {
    case spike, leak, crash, hang, exit, garbage

    var className: String {
        switch self {
        case .spike: "SpikeOnKey"
        case .leak: "LeakOnKey"
        case .crash: "CrashOnKey"
        case .hang: "HangOnKey"
        case .exit: "ExitOnKey"
        case .garbage: "GarbageFrameOnKey"
        }
    }

    static func parse(_ list: String) throws -> [StressFault] {
        if list == "all" { return allCases }
        return try list.split(separator: ",").map {
            guard let f = StressFault(rawValue: String($0)) else {
                throw ValidationError("unknown fault '\($0)'; faults: \(allCases.map(\.rawValue).joined(separator: ", ")), all")
            }
            return f
        }
    }

    func keyboard(_ installation: Installation) throws -> LoadableKeyboard {
        let library = installation.productsDirectory + "/libFaultKeyboards.so"
        guard FileManager.default.fileExists(atPath: library) else {
            throw ValidationError("the fault keyboards are not built (\(library)); run `swift build`")
        }
        let manifest = KeyboardManifest(path: library, bundleIdentifier: "dev.kbhost.fault.\(rawValue)",
                                        displayName: "fault: \(rawValue)", executable: "libFaultKeyboards.so",
                                        principalClass: className, isASCIICapable: true)
        return LoadableKeyboard(manifest: manifest, libraryPath: library)
    }
}
