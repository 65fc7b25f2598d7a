import Foundation
import KBSystem
import Synchronization

extension Governor {
    /// A keyboard's network relay as the governor counts it (see `countRelay`).
    struct Relay {
        let pid: Int32
        /// The governor's own pidfd of it.
        let pidfd: Int32
        let reader: FootprintReader
        /// Its footprint when it was ready.
        let baseline: Int

        /// What it holds for the keyboard: its sockets' queues and its memory above its start.
        func held() -> Int {
            let grown = max((reader.read()?.total ?? baseline) - baseline, 0)
            guard let descriptors = Descriptors.read(pid: pid, sockets: true) else { return grown }
            return grown + (SocketBuffers.bytes(ofDescriptors: descriptors.sockets, of: pidfd)
                ?? SocketBuffers.bytes(of: descriptors.inodes, in: pid))
        }

        func close() { Sys.close(pidfd) }
    }

    /// The second thread: what every watched process holds outside its address space (file
    /// locks, its sockets' queues, its files on a tmpfs), into its footprint at the next sample.
    /// It counts more often the closer a process is to its budget (`assumedLockRate`, or
    /// `assumedTouchRate` for files on a tmpfs; sockets at most every `socketCountInterval`), and
    /// ends one holding more than `lockLimit` locks or `tmpfsEntryLimit` files, whatever its budget,
    /// or keeping mapped a file it deleted there whose size the governor may not read (`UnnamedFiles`).
    func countKernelMemory(generation: Int) {
        while counting.withLock({ $0.generation }) == generation {
            let start = Sys.monotonicNanoseconds()
            let watched = state.withLock { watches in
                watches.filter { $0.value.kill == nil }.map { pid, w in
                    (pid, w.pidfd, w.tmpfsFolders, w.countsSockets && start >= w.nextSocketCount ? nil : w.socketBytes, w.relay)
                }
            }
            let pids = watched.map(\.0)
            guard !pids.isEmpty else {
                kernelWake.wait()  // nothing to watch: sleep until something is
                continue
            }
            // Sockets: counted again when due (a keyboard with open access), else as last counted.
            let counts = watched.map { pid, pidfd, folders, socketsKnown, relay -> (pid: Int32, locks: Int, sockets: Int, files: (bytes: Int, entries: Int, unreadable: Int), mappings: (count: Int, sockets: Int)) in
                counting.withLock { if $0.generation == generation { $0 = (pid, Sys.monotonicNanoseconds(), generation) } }
                while Governor.stalledCountsForTests.withLock({ $0.contains(pid) }) { usleep(1000) }
                var files = (bytes: 0, entries: 0, unreadable: 0)
                var mappings = (count: 0, sockets: 0)
                for folder in folders {
                    guard let used = TmpfsUsage.usage(of: folder, limit: Governor.tmpfsEntryLimit + 1 - files.entries) else { continue }
                    files = (files.bytes + used.bytes, files.entries + used.entries, 0)
                }
                // Files there it unlinked but holds open or mapped (red team 6, R6-1).
                if !folders.isEmpty, let unnamed = UnnamedFiles.held(by: pid, on: UnnamedFiles.devices(of: folders)) {
                    files = (files.bytes + unnamed.bytes, files.entries + unnamed.files, unnamed.unreadable)
                    mappings = (unnamed.mappings, unnamed.sockets)
                } else if socketsKnown == nil, let mapped = UnnamedFiles.mappings(of: pid) {
                    // With open access: a socket it mapped stays open with no descriptor (tenth red team, N4).
                    mappings = (mapped.mappings, mapped.sockets)
                }
                guard let held = Descriptors.read(pid: pid, sockets: socketsKnown == nil) else { return (pid, 0, 0, files, mappings) }
                // Each socket asked itself (its own descriptors, at most 256), else the network's tables.
                var sockets = socketsKnown ?? SocketBuffers.bytes(ofDescriptors: held.sockets, of: pidfd)
                    ?? SocketBuffers.bytes(of: held.inodes, in: pid)
                // In a network of its own: also its sockets without a descriptor, and its relay's.
                if socketsKnown == nil, let relay {
                    sockets += SocketBuffers.bytes(notAmong: held.inodes, in: pid) + relay.held()
                }
                return (pid, held.locks, sockets, files, mappings)
            }
            counting.withLock { if $0.generation == generation { $0.pid = 0 } }
            guard counting.withLock({ $0.generation }) == generation else { return }  // replaced while it was stuck
            let now = Sys.monotonicNanoseconds()
            var interval = Governor.longestLockInterval
            let changed = state.withLock { watches in
                var changed = false
                for (pid, locks, sockets, files, mappings) in counts {
                    guard var w = watches[pid], w.kill == nil else { continue }
                    if w.countsSockets && start >= w.nextSocketCount {
                        // A queue fills as fast as memory: the nearer the budget, the sooner the next count.
                        let headroom = Double(max(w.budget - w.last, 0))
                        let pace = min(max(Int64(headroom / Governor.assumedQueueRate), Governor.shortestSocketCountInterval),
                                       Governor.socketCountInterval)
                        w.nextSocketCount = now + pace
                    }
                    let lockBytes = locks * RecordLocks.bytesPerLock
                    if locks > Governor.lockLimit || files.entries > Governor.tmpfsEntryLimit || files.unreadable > 0
                        || mappings.count > Governor.mappingLimit || mappings.sockets > 0 {
                        let footprint = w.last - w.kernelBytes + lockBytes + sockets + files.bytes
                        try? Sys.pidfdSendSignal(w.pidfd, SIGKILL)
                        var kill = MemoryKill(budget: w.budget, footprintAtKill: footprint, peak: max(w.peak, footprint),
                                              detectionNanoseconds: now - min(w.lastUnderBudget, w.lastCountUnderBudget))
                        (kill.lockBytes, kill.locks, kill.socketBytes) = (lockBytes, locks, sockets)
                        (kill.tmpfsBytes, kill.tmpfsEntries, kill.unreadableUnnamedFiles) = files
                        (kill.mappings, kill.mappedSockets) = mappings
                        w.peak = kill.peak
                        w.kill = kill
                    } else {
                        if w.last - w.kernelBytes + lockBytes + sockets + files.bytes <= w.budget { w.lastCountUnderBudget = start }
                        if lockBytes != w.lockBytes || sockets != w.socketBytes || files.bytes != w.tmpfsBytes {
                            (w.lockBytes, w.locks, w.socketBytes) = (lockBytes, locks, sockets)
                            (w.tmpfsBytes, w.tmpfsEntries) = (files.bytes, files.entries)
                            w.nextSample = 0  // sampled again at once
                            w.countChanged = true
                            changed = true
                        }
                    }
                    watches[pid] = w
                    // Files on a tmpfs fill as fast as memory; locks at most about 60 MB/s.
                    let rate = w.tmpfsFolders.isEmpty ? Governor.assumedLockRate : Governor.assumedTouchRate
                    let headroom = Double(w.budget - max(w.last, w.kernelBytes))
                    interval = min(interval, max(Int64(headroom / rate), Governor.shortestLockInterval))
                    if w.countsSockets { interval = min(interval, max(w.nextSocketCount - now, Governor.shortestSocketCountInterval)) }
                }
                return changed
            }
            if changed { wake.signal() }
            // About a fifth of a core at most: the next count waits at least four and a half times
            // what this one took (a count grows with what a keyboard holds, up to the limits above),
            // but never more than a quarter second: a keyboard that made its counts slow on
            // purpose spaced them 21 s apart, for every keyboard of the host (ninth red team, L).
            interval = max(interval, min(9 * (Sys.monotonicNanoseconds() - start), Governor.longestCountPause))
            // At a time no keyboard can tell in advance: one that watched its folder's atime to learn
            // when counts came held 400 MiB between them, 48 s of 60 (tenth red team, L2).
            interval = interval / 2 + Int64.random(in: 0 ... interval / 2)
            _ = kernelWake.wait(timeout: .now() + .nanoseconds(Int(interval)))
        }
    }
}
