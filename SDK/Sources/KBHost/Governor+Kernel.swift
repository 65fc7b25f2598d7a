import Foundation
import KBSystem
import Synchronization

extension Governor {
    /// The second thread: what every watched process's descriptors hold in the kernel (file
    /// locks, its sockets' queues), into its footprint at the next sample. It counts more
    /// often the closer a process is to its budget (`assumedLockRate`), and ends one holding
    /// more than `lockLimit` locks, whatever its budget.
    func countKernelMemory() {
        while true {
            let pids = state.withLock { $0.filter { $0.value.kill == nil }.map(\.key) }
            guard !pids.isEmpty else {
                kernelWake.wait()  // nothing to watch: sleep until something is
                continue
            }
            let counts = pids.map { pid -> (pid: Int32, locks: Int, sockets: Int) in
                guard let held = Descriptors.read(pid: pid) else { return (pid, 0, 0) }
                return (pid, held.locks, SocketBuffers.bytes(of: held.inodes, in: pid))
            }
            let now = Sys.monotonicNanoseconds()
            var interval = Governor.longestLockInterval
            let changed = state.withLock { watches in
                var changed = false
                for (pid, locks, sockets) in counts {
                    guard var w = watches[pid], w.kill == nil else { continue }
                    let lockBytes = locks * RecordLocks.bytesPerLock
                    if locks > Governor.lockLimit {
                        let footprint = w.last - w.kernelBytes + lockBytes + sockets
                        try? Sys.pidfdSendSignal(w.pidfd, SIGKILL)
                        var kill = MemoryKill(budget: w.budget, footprintAtKill: footprint, peak: max(w.peak, footprint),
                                              detectionNanoseconds: now - w.lastUnderBudget)
                        (kill.lockBytes, kill.locks, kill.socketBytes) = (lockBytes, locks, sockets)
                        w.peak = kill.peak
                        w.kill = kill
                    } else if lockBytes != w.lockBytes || sockets != w.socketBytes {
                        (w.lockBytes, w.locks, w.socketBytes) = (lockBytes, locks, sockets)
                        w.nextSample = 0  // sampled again at once
                        changed = true
                    }
                    watches[pid] = w
                    let headroom = Double(w.budget - max(w.last, w.kernelBytes))
                    interval = min(interval, max(Int64(headroom / Governor.assumedLockRate), Governor.shortestLockInterval))
                }
                return changed
            }
            if changed { wake.signal() }
            _ = kernelWake.wait(timeout: .now() + .nanoseconds(Int(interval)))
        }
    }
}
