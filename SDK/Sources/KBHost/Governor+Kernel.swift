import Foundation
import KBSystem
import Synchronization

extension Governor {
    /// The second thread: what every watched process holds outside its address space (file
    /// locks, its sockets' queues, its files on a tmpfs), into its footprint at the next sample. It counts more
    /// often the closer a process is to its budget (`assumedLockRate`), and ends one holding
    /// more than `lockLimit` locks, whatever its budget.
    func countKernelMemory() {
        while true {
            let watched = state.withLock { $0.filter { $0.value.kill == nil }.map { ($0.key, $0.value.tmpfsFolders) } }
            let pids = watched.map(\.0)
            guard !pids.isEmpty else {
                kernelWake.wait()  // nothing to watch: sleep until something is
                continue
            }
            let counts = watched.map { pid, folders -> (pid: Int32, locks: Int, sockets: Int, files: (bytes: Int, entries: Int)) in
                var files = (bytes: 0, entries: 0)
                for folder in folders {
                    guard let used = TmpfsUsage.usage(of: folder, limit: Governor.tmpfsEntryLimit + 1 - files.entries) else { continue }
                    files = (files.bytes + used.bytes, files.entries + used.entries)
                }
                guard let held = Descriptors.read(pid: pid) else { return (pid, 0, 0, files) }
                return (pid, held.locks, SocketBuffers.bytes(of: held.inodes, in: pid), files)
            }
            let now = Sys.monotonicNanoseconds()
            var interval = Governor.longestLockInterval
            let changed = state.withLock { watches in
                var changed = false
                for (pid, locks, sockets, files) in counts {
                    guard var w = watches[pid], w.kill == nil else { continue }
                    let lockBytes = locks * RecordLocks.bytesPerLock
                    if locks > Governor.lockLimit || files.entries > Governor.tmpfsEntryLimit {
                        let footprint = w.last - w.kernelBytes + lockBytes + sockets + files.bytes
                        try? Sys.pidfdSendSignal(w.pidfd, SIGKILL)
                        var kill = MemoryKill(budget: w.budget, footprintAtKill: footprint, peak: max(w.peak, footprint),
                                              detectionNanoseconds: now - w.lastUnderBudget)
                        (kill.lockBytes, kill.locks, kill.socketBytes) = (lockBytes, locks, sockets)
                        (kill.tmpfsBytes, kill.tmpfsEntries) = files
                        w.peak = kill.peak
                        w.kill = kill
                    } else if lockBytes != w.lockBytes || sockets != w.socketBytes || files.bytes != w.tmpfsBytes {
                        (w.lockBytes, w.locks, w.socketBytes) = (lockBytes, locks, sockets)
                        (w.tmpfsBytes, w.tmpfsEntries) = files
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
