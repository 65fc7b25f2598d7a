// kbhost-bench: prints what kbhost costs against the floors of its design
// (raw socketpair ping-pong; bare spawn + dlopen), measured in one run.
// Figures only: it never asserts a timing. Exits non-zero only if something failed to run.
//
// Usage: kbhost-bench [--taps N] [--loads N] [--ibus-keys N] [--switches N] [--only N,N…] [--json]
import Foundation
import KBHost
import KBSystem

struct Options {
    var taps = 20_000
    var warmupTaps = 2_000
    var loads = 50
    /// Timed IBus keys per engine and placement, and warm switches per placement.
    var ibusKeys = 5_000
    var switches = 300
    /// The sections to run (all when empty).
    var only: Set<Int> = []

    func runs(_ section: Int) -> Bool { only.isEmpty || only.contains(section) }
    var warmupLoads = 5
    var json = false

    static let usage = "kbhost-bench [--taps N] [--loads N] [--ibus-keys N] [--switches N] [--only N,N…] [--json]"

    init(_ arguments: [String]) throws {
        var i = 1
        func count(_ name: String) throws -> Int {
            i += 1
            guard i < arguments.count, let n = Int(arguments[i]), n > 0 else {
                throw BenchError("\(name) needs a positive count")
            }
            return n
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--taps": taps = try count("--taps")
            case "--loads": loads = try count("--loads")
            case "--ibus-keys": ibusKeys = try count("--ibus-keys")
            case "--switches": switches = try count("--switches")
            case "--only":
                i += 1
                let sections = i < arguments.count ? arguments[i].split(separator: ",").compactMap { Int($0) } : []
                guard !sections.isEmpty, sections.allSatisfy({ (1...7).contains($0) }) else {
                    throw BenchError("--only needs section numbers, e.g. --only 1,6")
                }
                only = Set(sections)
            case "--json": json = true
            case "-h", "--help":
                print("usage: \(Options.usage)")
                exit(0)
            default: throw BenchError("unknown argument \(arguments[i]); usage: \(Options.usage)")
            }
            i += 1
        }
    }
}

func machineContext() -> [String: Any] {
    var names = utsname()
    uname(&names)
    func field<T>(_ value: T) -> String {
        withUnsafeBytes(of: value) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }
    #if DEBUG
    let build = "debug"
    #else
    let build = "release"
    #endif
    return ["nproc": sysconf(Int32(_SC_NPROCESSORS_ONLN)), "kernel": "\(field(names.sysname)) \(field(names.release))",
            "machine": field(names.machine), "build": build, "single_run": true]
}

let tapKeyboard = "dev.kbhost.NumberPad"
let loadKeyboards = ["dev.kbhost.NumberPad", "dev.kbhost.Calculator"]
let memoryKeyboards = ["dev.kbhost.NumberPad", "dev.kbhost.Calculator", "dev.kbhost.Science"]
let tapBlock = 500, loadBlock = 5, ibusBlock = 250, ibusWarmup = 20
let tapRatioTarget = 1.5, loadRatioTarget = 2.0, ibusRatioTarget = 1.1, privateDirtyTargetKiB = 1024

func run() throws {
    let options = try Options(CommandLine.arguments)
    let out = Report(toStandardError: options.json)
    let installation = Installation.current()
    let floorPath = (installation.productsDirectory as NSString).appendingPathComponent("kbhost-floor")
    guard Sys.fileExists(floorPath) else { throw BenchError("no kbhost-floor at \(floorPath); run `swift build` first") }
    func keyboard(_ id: String) throws -> LoadableKeyboard { try installation.keyboard(id) }

    // Right after a build the plugins' and runtime's file pages are still dirty in
    // the page cache, and smaps counts them as the worker's Private_Dirty
    // (~300 KiB more, measured). Write them back first so the figure is the worker's own.
    sync()

    let machine = machineContext()
    out.header(machine: machine, products: installation.productsDirectory,
               command: "swift build -c release && .build/release/" + ([ "kbhost-bench"] + CommandLine.arguments.dropFirst()).joined(separator: " "))
    var json: [String: Any] = ["machine": machine,
                               "options": ["taps": options.taps, "warmup_taps": options.warmupTaps,
                                           "loads": options.loads, "warmup_loads": options.warmupLoads,
                                           "ibus_keys": options.ibusKeys, "switches": options.switches]]

    // 1. Key round trip: kbhost and the floor in alternating blocks, the ratio block by block,
    // once as the scheduler places the processes and once with all of them on one CPU.
    var tapMemoryAfter: ProcMemory?, tapCount = 0
    if options.runs(1) {
        let frames = tapFrameSizes()
        let tapPairs = max(1, options.taps / tapBlock), tapBlockSize = min(options.taps, tapBlock)
        out.progress("key round trip: \(options.warmupTaps) + \(tapPairs) × \(tapBlockSize) taps each side, unpinned, then pinned …")
        let runner = try TapRunner(keyboard: try keyboard(tapKeyboard), installation: installation, key: "1")
        let pingPong: PingPong
        do { pingPong = try PingPong(floorPath: floorPath, messageBytes: frames.request) } catch { runner.finish(); throw error }
        defer { runner.finish(); pingPong.finish() }  // also on the way out of a failure below
        _ = try runner.block(options.warmupTaps)
        _ = try pingPong.block(options.warmupTaps)
        var tapRuns: [TapRun] = []
        for placement in Placement.both() {
            var oursCPU = CPUAccount(), floorCPU = CPUAccount()
            let comparison = try CPUPinning.with(placement) {
                _ = try runner.block(tapBlockSize / 2)  // settle where the placement put them
                _ = try pingPong.block(tapBlockSize / 2)
                return try Comparison.interleaved(placement, pairs: tapPairs, ours: {
                    try oursCPU.measure(child: runner.session.pid, roundTrips: tapBlockSize) { try runner.block(tapBlockSize) }
                }, floor: {
                    try floorCPU.measure(child: pingPong.pid, roundTrips: tapBlockSize) { try pingPong.block(tapBlockSize) }
                })
            }
            tapRuns.append(TapRun(comparison: comparison, cpu: (oursCPU, floorCPU)))
        }
        tapMemoryAfter = runner.memory
        tapCount = options.warmupTaps + Placement.both().count * (tapBlockSize / 2 + tapPairs * tapBlockSize)
        runner.finish()
        pingPong.finish()
        out.tapSection(tapRuns, frames: frames, target: tapRatioTarget)
        let firstTap = tapRuns[0].comparison
        var tapJSON: [String: Any] = ["keyboard": tapKeyboard, "key": "1", "ours": firstTap.ours.jsonMicroseconds(),
                                      "floor": firstTap.floor.jsonMicroseconds(), "request_frame_bytes": frames.request,
                                      "reply_frame_bytes": frames.reply, "floor_message_bytes": frames.request,
                                      "ratio_p50": (firstTap.pooledRatio * 1000).rounded() / 1000, "target_ratio": tapRatioTarget,
                                      "met": tapRuns.allSatisfy { $0.comparison.ratios.median <= tapRatioTarget },
                                      "cpu": ["ours": tapRuns[0].cpu.ours.json(), "floor": tapRuns[0].cpu.floor.json()],
                                      "placements": Dictionary(uniqueKeysWithValues: tapRuns.map { run in
                                          var j = run.comparison.json()
                                          j["cpu_per_trip"] = ["ours": run.cpu.ours.json(), "floor": run.cpu.floor.json()]
                                          return (run.comparison.placement.key, j)
                                      })]
        if let m = tapMemoryAfter { tapJSON["worker_memory_after_taps"] = memoryJSON(m) }
        json["key_round_trip"] = tapJSON
    }

    // 2. Cold load, load by load interleaved (kbhost sandboxed, unsandboxed, the floor, kbhost
    // taking a spare), the ratio per block of loads; unpinned, then pinned. Containers go in a throwaway KBHOST_HOME.
    if options.runs(2) {
        let benchHome = try AtomicFile.makeTemporaryFolder(prefix: "kbhost-bench")  // mkdtemp: never a folder another user made
        defer { try? FileManager.default.removeItem(atPath: benchHome) }
        var loadJSON: [String: [String: Any]] = [:]
        var loadRows: [LoadRow] = []
        for placement in Placement.both() {
            for id in loadKeyboards {
                out.progress("cold load \(id), \(placement): \(options.warmupLoads) + \(options.loads) loads …")
                let k = try keyboard(id)
                let row = try CPUPinning.with(placement) {
                    try measureColdLoads(keyboard: k, installation: installation, floorPath: floorPath, home: benchHome,
                                         warmup: options.warmupLoads, loads: options.loads, block: min(loadBlock, options.loads),
                                         placement: placement)
                }
                SpareProcesses.shared.drain()
                loadRows.append(row)
                var j = row.json(target: loadRatioTarget)
                if case .unpinned = placement {
                    j["library"] = k.libraryPath
                    loadJSON[id] = j
                } else {
                    loadJSON[id]?[placement.key] = j
                }
            }
        }
        out.loadSection(loadRows, target: loadRatioTarget)
        json["cold_load"] = loadJSON
    }

    // 3. Memory with the plugin loaded.
    if options.runs(3) {
        var memoryRows: [MemoryRow] = []
        var memJSON: [String: Any] = [:]
        for id in memoryKeyboards {
            out.progress("memory \(id) …")
            let k = try keyboard(id)
            let ours = try measureMemory(keyboard: k, installation: installation)
            let floor = try floorMemory(floorPath: floorPath, pluginPath: k.libraryPath)
            memoryRows.append(MemoryRow(id: id, ours: ours, floor: floor))
            memJSON[id] = ["ours": memoryJSON(ours), "floor": memoryJSON(floor),
                           "target_private_dirty_kib_below": privateDirtyTargetKiB,
                           "met": ours.privateDirtyBytes / 1024 < privateDirtyTargetKiB]
        }
        out.memorySection(memoryRows, afterTaps: tapMemoryAfter, tapCount: tapCount,
                          targetKiB: privateDirtyTargetKiB)
        json["memory"] = memJSON
    }

    // 4. A `next` reaching an attached session through the daemon.
    if options.runs(4) {
        out.progress("daemon: next → attached session …")
        let daemon = try DaemonFigures.measure(kbhost: installation.productsDirectory + "/kbhost", requests: 200, commands: 30)
        out.line()
        out.line("4. next through kbhost serve until an attached (subscribed) session has the event")
        out.line(String(format: "   request on the control socket: p50 %.3f ms, p99 %.3f ms (%d requests)",
                        ms(daemon.socket.p50), ms(daemon.socket.percentile(99)), daemon.socket.count))
        out.line(String(format: "   whole `kbhost next` command:    p50 %.3f ms, p99 %.3f ms (%d commands, process start included)",
                        ms(daemon.command.p50), ms(daemon.command.percentile(99)), daemon.command.count))
        json["daemon_next"] = ["socket": daemon.socket.jsonMilliseconds(), "command": daemon.command.jsonMilliseconds()]
    }

    // 5. The governor's CPU for idle keyboards under a budget.
    if options.runs(5) {
        out.progress("governor: idle keyboards under a 48 MiB budget …")
        var governed = installation.processConfiguration
        governed.memoryBudgetBytes = 48 << 20
        let idle = try (0..<10).map { _ in try KeyboardSession(keyboard: try keyboard(tapKeyboard), configuration: governed) }
        let cpuBefore = Sys.processCPUNanoseconds(), wallBefore = Sys.monotonicNanoseconds()
        usleep(3_000_000)
        let cpu = Double(Sys.processCPUNanoseconds() - cpuBefore), wall = Double(Sys.monotonicNanoseconds() - wallBefore)
        idle.forEach { $0.close() }
        let perKeyboard = cpu / wall / Double(idle.count) * 100
        out.line()
        out.line("5. Governor CPU with \(idle.count) idle keyboards under a 48 MiB budget (whole host process, 3 s)")
        out.line(String(format: "   %.4f%% of a core per idle keyboard   target < 0.5%%: %@", perKeyboard,
                        perKeyboard < 0.5 ? "met" : "NOT met"))
        json["governor_idle_cpu_percent_per_keyboard"] = (perKeyboard * 10000).rounded() / 10000
    }

    // 6. A key through IBus: kbhost's engine against the floor engine, through one ibus-daemon.
    if options.runs(6) {
        let floorIBusPath = installation.productsDirectory + "/kbhost-floor-ibus"
        if let daemon = IBusRig.daemonPath(), Sys.fileExists(floorIBusPath) {
            out.progress("ibus: \(options.ibusKeys) keys per engine, in blocks of \(ibusBlock), unpinned, then pinned …")
            let ibus = try IBusFigures.measure(kbhost: installation.productsDirectory + "/kbhost", floorIBus: floorIBusPath,
                                               daemon: daemon, keyboard: tapKeyboard, keys: options.ibusKeys, block: ibusBlock,
                                               warmup: ibusWarmup)
            out.ibusSection(ibus, target: ibusRatioTarget)
            json["ibus_key"] = ibus.json(target: ibusRatioTarget)
        } else {
            out.line()
            out.line("6. A key through IBus: skipped (\(IBusRig.daemonPath() == nil ? "no ibus-daemon on PATH" : "no kbhost-floor-ibus; run `swift build`"))")
            json["ibus_key"] = ["skipped": true]
        }
    }

    // 7. The warm switch: the globe key to a keyboard whose process is alive.
    if options.runs(7) {
        out.progress("warm switch: \(options.switches) globe keys and \(options.switches) follows, unpinned, then pinned …")
        let switches = try Placement.both().map { placement in
            try WarmSwitchFigures.measure(installation: installation, switches: options.switches, placement: placement)
        }
        out.switchSection(switches)
        json["warm_switch"] = Dictionary(uniqueKeysWithValues: switches.map { w in
            (w.placement.key, ["globe": w.globe.jsonMilliseconds(), "follow": w.follow.jsonMilliseconds(),
                               "processes_kept": w.processesKept] as [String: Any])
        })
    }

    if options.json {
        let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        print(String(decoding: data, as: UTF8.self))
    }
}

func memoryJSON(_ m: ProcMemory) -> [String: Any] {
    ["rss_kib": m.residentBytes / 1024, "private_dirty_kib": m.privateDirtyBytes / 1024,
     "private_clean_kib": m.privateCleanBytes / 1024, "shared_clean_kib": m.sharedCleanBytes / 1024,
     "swap_kib": m.swapBytes / 1024]
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("kbhost-bench: \(error)\n".utf8))
    exit(1)
}
