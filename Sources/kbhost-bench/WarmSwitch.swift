import Foundation
import KBHost
import KBSystem

/// The warm switch: the globe key to a keyboard whose process is alive (the
/// input manager keeps the last few keyboards' processes, as iOS does), until
/// the new keyboard has had viewWillAppear/viewDidAppear and shows. Through
/// InputManager as every front end uses it, NumberPad ↔ Calculator, both started first.
struct WarmSwitchFigures {
    var placement: Placement
    /// InputManager.globe(): the next keyboard written to the settings (under their lock), then shown.
    var globe: Samples
    /// InputManager.follow(current:): the same switch without the settings write (a front end
    /// that hears `kbhost next` from the daemon, or the IBus engine, switches so).
    var follow: Samples
    /// The keyboards' processes were the same at the end as after the first round: no switch started one.
    var processesKept: Bool

    static let keyboards = ["dev.kbhost.NumberPad", "dev.kbhost.Calculator"]

    static func measure(installation: Installation, switches: Int, placement: Placement) throws -> WarmSwitchFigures {
        let home = try AtomicFile.makeTemporaryFolder(prefix: "kbhost-bench-switch")  // mkdtemp: never a folder another user made
        defer { try? FileManager.default.removeItem(atPath: home) }
        let store = SettingsStore(directory: home)
        try store.update { s in
            s.enabled = keyboards
            s.current = keyboards[0]
        }
        let registry = try KeyboardRegistry.discover(installation: installation, home: home)
        let manager = try InputManager(installation: installation, store: store, registry: registry,
                                       field: FieldContext(), budget: 48 << 20)
        defer { manager.close() }
        manager.start()
        // Start both, then a few warm rounds.
        var pids: [String: Int32] = [:]
        for _ in 0..<10 {
            try manager.globe()
            guard let session = manager.active else { throw BenchError("the globe key left no keyboard showing") }
            pids[session.keyboard.identifier] = session.pid
        }
        guard pids.count == keyboards.count else { throw BenchError("the globe key did not alternate \(keyboards)") }
        return try CPUPinning.with(placement) {
            var globe: [Int64] = [], follow: [Int64] = []
            var kept = true
            // Every switch lands on the other keyboard, in the process it had before.
            func check(_ expected: String) throws {
                guard manager.currentID == expected, let session = manager.active else {
                    throw BenchError("the switch left \(manager.currentID) current, not \(expected)")
                }
                if session.pid != pids[expected] { kept = false }
            }
            func other() -> String { manager.currentID == keyboards[0] ? keyboards[1] : keyboards[0] }
            for i in 0..<(switches + 10) {
                let next = other()
                let t = try timed { try manager.globe() }
                try check(next)
                if i >= 10 { globe.append(t) }
            }
            for i in 0..<(switches + 10) {
                let next = other()
                let t = timed { manager.follow(current: next) }
                try check(next)
                if i >= 10 { follow.append(t) }
            }
            return WarmSwitchFigures(placement: placement, globe: Samples(globe), follow: Samples(follow), processesKept: kept)
        }
    }
}
