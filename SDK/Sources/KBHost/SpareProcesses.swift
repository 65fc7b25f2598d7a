import Foundation
import KBSystem
import Synchronization

/// Extension processes prepared ahead of need, one per kind of configuration:
/// spawned, in their namespaces, handshake done, waiting for a load. Taking
/// one leaves only the load (its root, its filters, dlopen) on the launch's
/// path; the next is prepared on a background thread. A spare belongs to no
/// keyboard until it is taken, and dies with the host (PR_SET_PDEATHSIG).
/// Android's and Chromium's zygotes, on the scale of one process.
public final class SpareProcesses: Sendable {
    public static let shared = SpareProcesses()

    /// What makes two spares interchangeable: what the worker was started with.
    private struct Kind: Hashable {
        let workerPath: String
        let dataLimitBytes: UInt64
        let stackLimitBytes: UInt64
        let environment: [String]
        let isolate: Bool
        let privateNetwork: Bool
        let handsOff: Bool

        init(_ c: ExtensionProcess.Configuration) {
            (workerPath, dataLimitBytes, stackLimitBytes, environment, isolate, privateNetwork, handsOff)
                = (c.workerPath, c.dataLimitBytes, c.stackLimitBytes, c.environment, c.isolate, c.privateNetwork, c.handsOffAfterReply)
        }
    }

    /// A process handed between threads: only the holder of the slot uses it.
    private final class Slot: @unchecked Sendable {
        let process: ExtensionProcess
        init(_ process: ExtensionProcess) { self.process = process }
    }

    private let spares = Mutex<[Kind: Slot]>([:])
    private let preparing = Mutex<Set<Kind>>([])

    /// The prepared spare for this configuration, if one is ready and alive.
    func take(like configuration: ExtensionProcess.Configuration) -> ExtensionProcess? {
        let slot = spares.withLock { $0.removeValue(forKey: Kind(configuration)) }
        guard let process = slot?.process, process.isAlive else { return nil }
        return process
    }

    /// Prepares a spare for this configuration in the background, unless one is ready or on its way.
    public func prepare(like configuration: ExtensionProcess.Configuration) {
        let kind = Kind(configuration)
        guard spares.withLock({ $0[kind] == nil }), preparing.withLock({ $0.insert(kind).inserted }) else { return }
        var spareConfiguration = configuration
        spareConfiguration.memoryBudgetBytes = nil  // a budget applies once a keyboard has it
        // Any keyboard may take it, one with open access through a relay too: socket tables of its own.
        spareConfiguration.userNetwork = configuration.privateNetwork && UserNetwork.available
        let prepared = spareConfiguration
        Threads.start(name: "kbhost-spare") { [self] in
            let slot = (try? ExtensionProcess(keyboardID: "(spare)", configuration: prepared)).map(Slot.init)
            spares.withLock { if let slot, $0[kind] == nil { $0[kind] = slot } }
            preparing.withLock { _ = $0.remove(kind) }
        }
    }

    /// Whether a spare for this configuration is ready (measurements wait for one).
    public func isReady(like configuration: ExtensionProcess.Configuration) -> Bool {
        spares.withLock { $0[Kind(configuration)] != nil }
    }

    /// Whether a spare for this configuration is ready or being prepared.
    public func isReadyOrPreparing(like configuration: ExtensionProcess.Configuration) -> Bool {
        let kind = Kind(configuration)
        return spares.withLock { $0[kind] != nil } || preparing.withLock { $0.contains(kind) }
    }

    /// The keyboard process of the ready spare for this configuration (tests).
    public func readyPID(like configuration: ExtensionProcess.Configuration) -> Int32? {
        spares.withLock { $0[Kind(configuration)]?.process.pid }
    }

    /// Ends every spare (a host that is about to measure or exit).
    public func drain() {
        let all = spares.withLock { s in defer { s.removeAll() }; return Array(s.values) }
        for slot in all { slot.process.kill() }
    }
}
