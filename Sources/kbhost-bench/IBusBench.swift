import Foundation
import Glibc
import KBHost
import KBSystem

/// A key through IBus: one headless ibus-daemon, child of this benchmark (it sets
/// PR_SET_PDEATHSIG, so it dies with it), serving two engines it starts from
/// component files: `kbhost` (`kbhost ibus --ibus`, typing through NumberPad in
/// its sandboxed process), `kbhost-floor` (kbhost-floor-ibus, a C engine that
/// commits every key) and `kbhost-floor-hop` (the same, with one round trip to a
/// child process before each commit: what one process per keyboard costs at the
/// least). One client, `kbhost-floor-ibus client`, times a press from
/// process_key_event until its commit arrives, for whichever engine is chosen.
final class IBusRig {
    static let kbhostEngine = "kbhost", floorEngine = "kbhost-floor", hopEngine = "kbhost-floor-hop"

    let root: String
    let daemonPID: pid_t
    private var clientPID: pid_t = 0
    private var channel: LineChannel
    private var finished = false
    /// The engine chosen last.
    private(set) var engine = ""

    /// Where ibus-daemon is, if installed.
    static func daemonPath() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map { "\($0)/ibus-daemon" } + ["/usr/bin/ibus-daemon"]).first(where: Sys.fileExists)
    }

    init(kbhost: String, floorIBus: String, daemon: String, keyboard: String) throws {
        root = try AtomicFile.makeTemporaryFolder(prefix: "kbhost-bench-ibus")  // mkdtemp: never a folder another user made
        let home = root + "/home", run = root + "/run", components = root + "/components"
        try FileManager.default.createDirectory(atPath: components, withIntermediateDirectories: true)
        var env = ProcessInfo.processInfo.environment
        env["KBHOST_HOME"] = home
        env["KBHOST_RUNTIME_DIR"] = run
        env["KBHOST_KEYBOARDS"] = nil
        env["IBUS_COMPONENT_PATH"] = components
        env["IBUS_ADDRESS"] = "unix:path=\(root)/ibus.sock"
        try SettingsStore(directory: home).update { s in
            s.enabled = [SystemKeyboard.identifier, keyboard]
            s.current = keyboard
        }
        // kbhost's component file, as a user installs it; the floor's beside it.
        let install = Process()
        install.executableURL = URL(fileURLWithPath: kbhost)
        install.arguments = ["ibus", "install", "--component-dir", components, "--no-environment"]
        install.environment = env
        install.standardOutput = FileHandle.nullDevice
        try install.run()
        install.waitUntilExit()
        guard install.terminationStatus == 0 else { throw BenchError("kbhost ibus install failed (\(install.terminationStatus))") }
        for (engine, bus, flags) in [(Self.floorEngine, "KbhostFloor", ""), (Self.hopEngine, "KbhostFloorHop", " --hop")] {
            let xml = """
                <?xml version="1.0" encoding="utf-8"?>
                <component><name>org.freedesktop.IBus.\(bus)</name><description>kbhost-bench's IBus floor</description>
                <exec>'\(floorIBus)' engine\(flags) --ibus</exec><version>1</version><author>kbhost</author><license>MIT</license>
                <homepage>-</homepage><textdomain>kbhost</textdomain>
                <engines><engine><name>\(engine)</name><longname>kbhost floor</longname><description>commits every key</description>
                <language>other</language><license>MIT</license><author>kbhost</author><icon></icon><layout>default</layout>
                <symbol>f</symbol><rank>0</rank></engine></engines></component>

                """
            try AtomicFile.write(components + "/\(engine).xml", Array(xml.utf8), mode: 0o644)
        }

        // The daemon, and through its stderr the engines' (they inherit it): one log.
        let log = open(root + "/ibus.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard log >= 0 else { throw BenchError("cannot create \(root)/ibus.log") }
        defer { Sys.close(log) }
        let environment = env.map { "\($0.key)=\($0.value)" }
        daemonPID = try Spawn.spawn(path: daemon, arguments: [daemon, "--panel=disable", "--emoji-extension=disable",
                                                              "--config=disable", "--cache=none", "--address=unix:path=\(root)/ibus.sock"],
                                    environment: environment, files: [.init(log, as: 1), .init(log, as: 2)])
        var waited = 0
        while !Sys.fileExists(root + "/ibus.sock") && waited < 500 { usleep(10_000); waited += 1 }
        usleep(100_000)  // the socket exists a moment before the daemon accepts on it
        let (ours, theirs) = try Sys.socketPair()
        defer { Sys.close(theirs) }
        channel = LineChannel(fd: ours)
        clientPID = try Spawn.spawn(path: floorIBus, arguments: [floorIBus, "client"], environment: environment,
                                    files: [.init(theirs, as: 0), .init(theirs, as: 1), .init(log, as: 2)])
    }

    deinit { finish() }

    /// One command to the client, its answer.
    private func ask(_ command: String) throws -> String {
        try channel.send(command)
        guard let answer = try channel.receive() else { throw BenchError("kbhost-floor-ibus client ended; see \(root)/ibus.log") }
        if answer.hasPrefix("error") {
            let tail = log.split(separator: "\n").suffix(8).joined(separator: "\n  ")
            throw BenchError("kbhost-floor-ibus client: \(answer) (\(command), engine \(engine)); the daemon's log ends:\n  \(tail)")
        }
        return answer
    }

    /// Chooses an engine (the daemon starts its process the first time).
    func choose(_ engine: String) throws {
        self.engine = engine
        _ = try ask("engine \(engine)")
    }

    /// `warmup` untimed keys, then `count` timed ones (ns), on the engine chosen.
    func keys(_ count: Int, warmup: Int) throws -> [Int64] {
        let answer = try ask("keys \(count) \(warmup)")
        let samples = answer.split(separator: " ").dropFirst().compactMap { Int64($0) }
        guard answer.hasPrefix("samples"), samples.count == count else { throw BenchError("kbhost-floor-ibus client answered \(answer.prefix(80))") }
        return samples
    }

    /// The daemon's child whose command line's first word ends so, with `--hop` or without.
    func engineProcess(_ executableSuffix: String, hop: Bool = false) -> pid_t? {
        CPUPinning.tree(daemonPID).first { pid in
            let words = commandLine(pid)
            return CPUPinning.parent(of: pid) == daemonPID && (words.first?.hasSuffix(executableSuffix) ?? false)
                && words.contains("--hop") == hop
        }
    }

    /// The client's process.
    var client: pid_t { clientPID }

    /// The daemon's log (its engines' stderr included).
    var log: String { (try? String(contentsOfFile: root + "/ibus.log", encoding: .utf8)) ?? "" }

    /// Ends the client, then the daemon; the engines go when the daemon does. Returns the
    /// engine processes still running 3 s later (killed then), which should be none.
    @discardableResult
    func finish() -> [pid_t] {
        guard !finished else { return [] }
        finished = true
        let engines = CPUPinning.tree(daemonPID).filter { $0 != daemonPID }
        try? channel.send("quit")
        Sys.close(channel.fd)
        if clientPID > 0 { _ = try? Sys.waitForChild(clientPID) }
        try? Sys.kill(daemonPID, SIGTERM)
        _ = try? Sys.waitForChild(daemonPID)
        var left: [pid_t] = []
        for _ in 0..<300 {
            left = engines.filter(isRunning)
            if left.isEmpty { break }
            usleep(10_000)
        }
        for pid in left { try? Sys.kill(pid, SIGKILL) }
        if ProcessInfo.processInfo.environment["KBHOST_BENCH_DEBUG"] == nil { try? FileManager.default.removeItem(atPath: root) }
        return left
    }
}

/// Whether a process is there and not a zombie (the daemon's engines are its
/// zombies until it has exited itself).
func isRunning(_ pid: pid_t) -> Bool {
    guard let stat = ProcMemory.readSmallFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
    return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
}

/// A process's command line, word by word.
func commandLine(_ pid: pid_t) -> [String] {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
    return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
}

/// One process of an engine's tree, and its memory.
struct EngineProcessMemory {
    var role: String
    var pid: pid_t
    var memory: ProcMemory
}

/// The IBus section's figures.
struct IBusFigures {
    var comparisons: [Comparison]
    /// The floor with one round trip to a child process against the floor, for each placement.
    var hopComparisons: [Comparison]
    /// CPU per key, kbhost's then the floor's, for each placement in turn.
    var cpu: [KeyCPU]
    /// CPU per key of the floor with the round trip, for each placement.
    var hopCPU: [KeyCPU]
    var keysPerBlock: Int
    var warmupPerBlock: Int
    /// Memory after the engines warmed up, and after every timed key.
    var memoryBefore: [EngineProcessMemory]
    var memoryAfter: [EngineProcessMemory]
    /// What the engines wrote to stderr, and processes left behind by the daemon's end.
    var engineLog: [String]
    var leftBehind: [pid_t]

    static func measure(kbhost: String, floorIBus: String, daemon: String, keyboard: String, keys: Int, block: Int,
                        warmup: Int) throws -> IBusFigures {
        let rig = try IBusRig(kbhost: kbhost, floorIBus: floorIBus, daemon: daemon, keyboard: keyboard)
        defer { rig.finish() }
        // Start both engines (the daemon spawns each the first time it is chosen) and warm them up.
        for engine in [IBusRig.kbhostEngine, IBusRig.floorEngine, IBusRig.hopEngine] {
            try rig.choose(engine)
            _ = try rig.keys(block, warmup: warmup)
        }
        let before = memory(rig, keyboard: keyboard)
        let blockSize = min(keys, block), pairs = max(1, keys / block)
        guard let kbhostPID = rig.engineProcess("/kbhost"), let floorPID = rig.engineProcess("/kbhost-floor-ibus"),
              let hopPID = rig.engineProcess("/kbhost-floor-ibus", hop: true) else {
            throw BenchError("the daemon did not start all three engines; see \(rig.root)/ibus.log")
        }
        var comparisons: [Comparison] = [], hopComparisons: [Comparison] = []
        var cpu: [KeyCPU] = [], hopCPU: [KeyCPU] = []
        for placement in Placement.both() {
            var ours = KeyCPU(), floor = KeyCPU(), hop = KeyCPU()
            var hopSamples: (hop: [Int64], floor: [Int64]) = ([], []), hopRatios = BlockRatios()
            func block(_ engine: String, _ pid: pid_t, _ cpu: inout KeyCPU) throws -> [Int64] {
                try rig.choose(engine)
                if warmup > 0 { _ = try rig.keys(warmup, warmup: 0) }
                return try cpu.measure(engine: pid, daemon: rig.daemonPID, client: rig.client, keys: blockSize) {
                    try rig.keys(blockSize, warmup: 0)
                }
            }
            comparisons.append(try CPUPinning.with(placement) {
                // Even pairs run kbhost, floor, hop; odd ones floor, hop, kbhost: the floor's block is next to both.
                try Comparison.interleaved(placement, pairs: pairs, ours: { try block(IBusRig.kbhostEngine, kbhostPID, &ours) }, floor: {
                    let f = try block(IBusRig.floorEngine, floorPID, &floor)
                    let h = try block(IBusRig.hopEngine, hopPID, &hop)
                    hopSamples.hop += h
                    hopSamples.floor += f
                    hopRatios.add(ours: h, floor: f)
                    return f
                })
            })
            hopComparisons.append(Comparison(placement: placement, ours: Samples(hopSamples.hop), floor: Samples(hopSamples.floor),
                                             ratios: hopRatios))
            cpu += [ours, floor]
            hopCPU.append(hop)
        }
        let after = memory(rig, keyboard: keyboard)
        let log = rig.log.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        let left = rig.finish()
        return IBusFigures(comparisons: comparisons, hopComparisons: hopComparisons, cpu: cpu, hopCPU: hopCPU, keysPerBlock: blockSize, warmupPerBlock: warmup, memoryBefore: before,
                           memoryAfter: after, engineLog: log, leftBehind: left)
    }

    /// kbhost's engine process, its keyboard's three processes (launcher, init, the keyboard
    /// process) and the prepared spare's; the floor engine; the daemon.
    static func memory(_ rig: IBusRig, keyboard: String) -> [EngineProcessMemory] {
        var rows: [EngineProcessMemory] = []
        func add(_ role: String, _ pid: pid_t) {
            if let m = ProcMemory.read(pid: pid) { rows.append(EngineProcessMemory(role: role, pid: pid, memory: m)) }
        }
        if let engine = rig.engineProcess("/kbhost") {
            add("kbhost ibus (engine)", engine)
            // Each child is a launcher; below it init, below that the keyboard process.
            let launchers = CPUPinning.tree(engine).filter { CPUPinning.parent(of: $0) == engine }.sorted()
            for launcher in launchers {
                let below = CPUPinning.tree(launcher)
                let initPID = below.first { CPUPinning.parent(of: $0) == launcher }
                let process = initPID.flatMap { i in below.first { CPUPinning.parent(of: $0) == i } }
                let loaded = process.map { mapsMention($0, keyboard: keyboard) } ?? false
                let who = loaded ? "keyboard" : "spare"
                add("  \(who): launcher", launcher)
                if let i = initPID { add("  \(who): init", i) }
                if let p = process { add("  \(who): \(loaded ? "keyboard process" : "process (no plugin)")", p) }
            }
        }
        if let floor = rig.engineProcess("/kbhost-floor-ibus") { add("kbhost-floor-ibus (floor engine)", floor) }
        add("ibus-daemon", rig.daemonPID)
        return rows
    }

    /// Whether a process has the keyboard's library mapped (NumberPad → libNumberPadKeyboard.so).
    static func mapsMention(_ pid: pid_t, keyboard: String) -> Bool {
        let name = keyboard.split(separator: ".").last.map(String.init) ?? keyboard
        guard let maps = ProcMemory.readSmallFile("/proc/\(pid)/maps") else { return false }
        return maps.contains("lib\(name)Keyboard.so")
    }

    func json(target: Double) -> [String: Any] {
        func mem(_ rows: [EngineProcessMemory]) -> [[String: Any]] {
            rows.map { ["role": $0.role.trimmingCharacters(in: .whitespaces), "pid": $0.pid] .merging(memoryJSON($0.memory)) { a, _ in a } }
        }
        return ["keys_per_block": keysPerBlock, "warmup_keys_per_block": warmupPerBlock, "target_ratio": target,
                "met": comparisons.allSatisfy { $0.ratios.median <= target },
                "placements": Dictionary(uniqueKeysWithValues: comparisons.enumerated().map { i, c in
                    var j = c.json()
                    if 2 * i + 1 < cpu.count { j["cpu_per_key"] = ["ours": cpu[2 * i].json(), "floor": cpu[2 * i + 1].json()] }
                    return (c.placement.key, j)
                }),
                "floor_with_round_trip": Dictionary(uniqueKeysWithValues: hopComparisons.enumerated().map { i, c in
                    var j = c.json()
                    if i < hopCPU.count { j["cpu_per_key"] = hopCPU[i].json() }
                    return (c.placement.key, j)
                }),
                "memory_after_warmup": mem(memoryBefore), "memory_after_keys": mem(memoryAfter),
                "engine_log_lines": engineLog.count, "left_behind": leftBehind]
    }
}

/// CPU spent per key over the timed blocks: by the engine (with every process
/// below it: kbhost's keyboard processes), by the daemon alone and by the client.
struct KeyCPU {
    var engine: Int64 = 0, daemon: Int64 = 0, client: Int64 = 0
    var keys = 0

    mutating func measure<T>(engine e: pid_t, daemon d: pid_t, client c: pid_t, keys n: Int, _ body: () throws -> T) rethrows -> T {
        let e0 = treeCPUNanoseconds(e), d0 = threadsCPUNanoseconds(d), c0 = threadsCPUNanoseconds(c)
        let result = try body()
        engine += treeCPUNanoseconds(e) - e0
        daemon += threadsCPUNanoseconds(d) - d0
        client += threadsCPUNanoseconds(c) - c0
        keys += n
        return result
    }

    func perKey(_ ns: Int64) -> Double { keys == 0 ? .nan : Double(ns) / Double(keys) }
    func json() -> [String: Any] {
        ["engine_us": us(perKey(engine)), "daemon_us": us(perKey(daemon)), "client_us": us(perKey(client))]
    }
}
