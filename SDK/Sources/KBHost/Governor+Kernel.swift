import Foundation
import KBSystem
import Synchronization

extension Governor {
    /// A keyboard's network relay as the governor counts it (see `countRelay`).
    /// A class: the counting thread works on the relay it took under the lock while the watch may
    /// drop it (the keyboard ended, another relay replaced it); its descriptors close when the last
    /// holder lets go, never under a count (a number closed mid-count could be the next keyboard's
    /// channel by then; a review of this change).
    final class Relay: @unchecked Sendable {
        let pid: Int32
        /// The governor's own pidfd of it.
        let pidfd: Int32
        let reader: FootprintReader
        /// Its footprint when it was ready.
        let baseline: Int
        /// A sock_diag socket made in the keyboard's network (its launcher's, taken at launch), or -1.
        let diagnostics: Int32

        init(pid: Int32, pidfd: Int32, reader: FootprintReader, baseline: Int, diagnostics: Int32) {
            (self.pid, self.pidfd, self.reader, self.baseline, self.diagnostics) = (pid, pidfd, reader, baseline, diagnostics)
        }

        deinit {
            Sys.close(pidfd)
            if diagnostics >= 0 { Sys.close(diagnostics) }
        }

        /// What it holds for the keyboard: its sockets' queues and its memory above its start.
        func held() -> Int {
            let grown = max((reader.read()?.total ?? baseline) - baseline, 0)
            // Its sockets by their links alone (its fdinfo is not needed: a relay holds no locks).
            guard let sockets = Descriptors.sockets(of: pid) else { return grown }
            return grown + (SocketBuffers.bytes(ofDescriptors: sockets.numbers, of: pidfd, relay: true)
                ?? SocketBuffers.bytes(of: sockets.inodes, in: pid))
        }

        /// What every socket of the keyboard's network holds, asked of the kernel in one dump, and
        /// those of its `descriptors` out of the tables one by one (nil without a diagnostics socket,
        /// or when the kernel refused): in bytes of memory. Counted from the namespace's tables
        /// instead, an orphan filled with 1-byte writes showed its bytes, not their memory: 37,848
        /// bytes for 30.1 MiB (twelfth red team, N6).
        func namespaceSockets(descriptors: [(number: Int32, inode: UInt64)], of keyboard: Int32) -> Int? {
            diagnostics >= 0 ? SocketBuffers.bytes(inNamespaceOf: diagnostics, descriptors: descriptors, of: keyboard) : nil
        }

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
            // Each keyboard is counted when its own count is due, in two parts on their own
            // schedules: what is slow to count (its locks, its files on a tmpfs, its mappings), and
            // its sockets, which fill fastest and are quick to count. A keyboard whose counts are
            // slow waits longer itself; neither another keyboard's counts (one keyboard's slow counts
            // had made another's kill come 70 MiB late in attach, tenth red team, L2) nor its own
            // sockets' wait for them.
            let beingStopped = stopping.withLock { Set($0.keys) }
            let (watched, anyWatched) = state.withLock { watches in
                (watches.filter { pid, w in
                    w.kill == nil && ((w.nextCount <= start && !beingStopped.contains(pid)) || w.socketsDue(at: start))
                }.map { pid, w in
                    (pid, w.process, (w.tmpfsFolders, w.trackedFiles), w.nextCount <= start && !beingStopped.contains(pid),
                     w.socketsDue(at: start), w.countsSockets, w.relay)
                }, watches.contains { $0.value.kill == nil })
            }
            guard anyWatched || !beingStopped.isEmpty else {
                kernelWake.wait()  // nothing to watch: sleep until something is
                continue
            }
            var finished: [Count] = []
            var counts = watched.map { pid, process, tmpfs, heavyDue, socketsDue, openAccess, relay -> Count in
                // Its number stays its own until this count ends (`process` holds it): the owner closing its
                // pidfd as the keyboard ends could have let the number become another keyboard's, stopped here.
                let pidfd = process.fd
                let (folders, tracked) = tmpfs
                counting.withLock { if $0.generation == generation { $0 = (pid, Sys.monotonicNanoseconds(), generation) } }
                while Governor.stalledCountsForTests.withLock({ $0.contains(pid) }) { usleep(1000) }
                var count = Count(pid: pid)
                if heavyDue {
                    let began = Sys.monotonicNanoseconds()
                    let used = Governor.usage(of: folders, tracked: tracked)
                    let walked = (bytes: used.bytes, entries: used.entries, unreadable: 0)
                    // Files there it unlinked but holds open or mapped (red team 6, R6-1); with open access,
                    // a socket it mapped, which stays open with no descriptor (tenth red team, N4). Its
                    // descriptors and mappings are read with it stopped: neither listing is a snapshot, and
                    // a mapping moved nonstop was missed by most counts (twenty-first red team, F2). The stop
                    // is asked here and read once it has come (`finishStops`): the other keyboards are
                    // counted meanwhile.
                    let devices = UnnamedFiles.devices(of: folders)  // (none: only its mappings are read)
                    if !folders.isEmpty || openAccess, counting.withLock({ $0.generation }) == generation,
                       let stop = ProcessPause.Stop.begin(pid: pid, pidfd: pidfd, within: Governor.pauseWait) {
                        stopping.withLock { $0[pid] = PendingStop(stop: stop, process: process, devices: devices, walked: walked,
                                                                  walkCost: Sys.monotonicNanoseconds() - began) }
                    } else {
                        count.heavy = Governor.finishHeavy(pid: pid, devices: devices, walked: walked,
                                                           readsUnnamed: !folders.isEmpty || openAccess)
                        count.heavyCost = Sys.monotonicNanoseconds() - began
                    }
                }
                if socketsDue {
                    let began = Sys.monotonicNanoseconds()
                    let own = Descriptors.sockets(of: pid)
                    if let relay, let own, let all = relay.namespaceSockets(descriptors: own.each, of: pidfd) {
                        // In a network of its own: every socket there is its own, one dump.
                        count.sockets = all + relay.held()
                    } else if let own {
                        // Each socket asked itself (its own descriptors, at most 256), else the network's tables.
                        var sockets = SocketBuffers.bytes(ofDescriptors: own.numbers, of: pidfd) ?? SocketBuffers.bytes(of: own.inodes, in: pid)
                        // In a network of its own: also its sockets without a descriptor, and its relay's.
                        if let relay { sockets += SocketBuffers.bytes(notAmong: own.inodes, in: pid) + relay.held() }
                        count.sockets = sockets
                    }
                    count.socketCost = Sys.monotonicNanoseconds() - began
                }
                withExtendedLifetime(process) {}
                // A keyboard asked to stop is read as soon as it has, not after every other keyboard's count:
                // it stays stopped meanwhile (a review).
                finished += finishStops(generation: generation)
                return count
            }
            counts += finished + finishStops(generation: generation)
            counting.withLock { if $0.generation == generation { $0.pid = 0 } }
            guard counting.withLock({ $0.generation }) == generation else { return }  // replaced while it was stuck
            let now = Sys.monotonicNanoseconds()
            let changed = state.withLock { watches in
                var changed = false
                for count in counts {
                    guard var w = watches[count.pid], w.kill == nil else { continue }
                    if count.heavy != nil { w.heavyCounts += 1 }
                    // Not stopped in time: it was read as it was; one that keeps its stops waiting more than
                    // `pauseLimit` in all over `pauseWindow` is ended, however it spaces them (a limit on waits
                    // in a row let it wait 0.9 s, stop once, and wait again; a review), and whether or not they
                    // came in the end (waits of 90 ms that ended in a stop were not counted; the same review). No other keyboard's count
                    // waits for its stop (`finishStops`): the twenty-second red team let one grow its files
                    // 240-850 MiB past its budget while another stalled its stops 0.84 s a count, and the
                    // twenty-third, with waits of 0.1 s, spaced the other's counts up to 0.26 s apart.
                    if count.unpaused || count.stopWait > Governor.chargedStopWait {
                        w.unstopped.removeAll { now - $0.at > Governor.pauseWindow }
                        w.unstopped.append((now, count.stopWait))
                        if w.unstopped.reduce(0, { $0 + $1.waited }) > Governor.pauseLimit {
                            w.end(footprint: w.last, now: now, since: w.lastUnderBudget) { $0.notPaused = true }
                            watches[count.pid] = w
                            continue
                        }
                    }
                    let (locks, files, mappings) = count.heavy ?? (w.locks, (w.tmpfsBytes, w.tmpfsEntries, 0), (0, 0, false))
                    let sockets = count.sockets ?? w.socketBytes
                    let lockBytes = locks * RecordLocks.bytesPerLock
                    if locks > Governor.lockLimit || files.entries > Governor.tmpfsEntryLimit || files.unreadable > 0
                        || mappings.count > Governor.mappingLimit || mappings.sockets > 0 || mappings.cut {
                        let footprint = w.last - w.kernelBytes + lockBytes + sockets + files.bytes
                        (w.lockBytes, w.locks, w.socketBytes) = (lockBytes, locks, sockets)
                        (w.tmpfsBytes, w.tmpfsEntries) = (files.bytes, files.entries)
                        w.end(footprint: footprint, now: now, since: min(w.lastUnderBudget, w.lastCountUnderBudget)) {
                            $0.unreadableUnnamedFiles = files.unreadable
                            ($0.mappings, $0.mappedSockets, $0.mappingsListingCut) = mappings
                        }
                        watches[count.pid] = w
                        continue
                    }
                    if w.last - w.kernelBytes + lockBytes + sockets + files.bytes <= w.budget { w.lastCountUnderBudget = start }
                    if lockBytes != w.lockBytes || sockets != w.socketBytes || files.bytes != w.tmpfsBytes {
                        (w.lockBytes, w.locks, w.socketBytes) = (lockBytes, locks, sockets)
                        (w.tmpfsBytes, w.tmpfsEntries) = (files.bytes, files.entries)
                        w.nextSample = 0  // sampled again at once
                        w.countChanged = true
                        changed = true
                    }
                    // After a slow count, a pause of four and a half to nine times what it took, up to
                    // a quarter second: about a fifth of a core at most for a keyboard's counts (a count
                    // grows with what it holds, up to the limits above; a keyboard that made its counts
                    // slow on purpose spaced them 21 s apart, ninth red team, L). It ends at a time no
                    // keyboard can tell in advance: one that watched its folder's atime to learn when
                    // counts came held 400 MiB between them, 48 s of 60 (tenth, L2).
                    func pause(after cost: Int64) -> Int64 {
                        let longest = min(9 * cost, Governor.longestCountPause)
                        return longest / 2 + Int64.random(in: 0 ... longest / 2)
                    }
                    let headroom = Double(max(w.budget - w.last, 0))
                    if count.heavy != nil {
                        // Files on a tmpfs fill as fast as memory; locks at most about 60 MB/s.
                        let rate = w.tmpfsFolders.isEmpty ? Governor.assumedLockRate : Governor.assumedTouchRate
                        let pace = min(Governor.longestLockInterval, max(Int64(headroom / rate), Governor.shortestLockInterval))
                        // Memoryless (`countWait`): never longer than the pace, or around the pause a slow
                        // count earns (on average what `pause(after:)` gives), whichever is longer. A keyboard can
                        // tell when a count ran (it is stopped for part of one, and may watch for SIGCONT);
                        // however long since, the next is as likely to come at once, so it has no window
                        // to hold files in between counts (a pause of four and a half times a count it had
                        // made slow left it sure of none for that long).
                        w.nextCount = now + Governor.countWait(pace: pace, cost: count.heavyCost)
                    }
                    if count.sockets != nil || count.socketCost > 0 {
                        // A queue fills as fast as memory: the nearer the budget, the sooner the next count.
                        let pace = min(max(Int64(headroom / Governor.assumedQueueRate), Governor.shortestSocketCountInterval),
                                       Governor.socketCountInterval)
                        w.nextSocketCount = now + max(pace, pause(after: count.socketCost))
                    }
                    watches[count.pid] = w
                }
                return changed
            }
            if changed { wake.signal() }
            // (A keyboard being stopped is due until its count ends: its stop is looked at on its own schedule below.)
            let stillStopping = stopping.withLock { Set($0.keys) }
            let next = state.withLock { watches in
                watches.filter { $0.value.kill == nil }.map { pid, w in
                    let heavy = stillStopping.contains(pid) ? Int64.max : w.nextCount
                    return w.countsSockets ? min(heavy, w.nextSocketCount) : heavy
                }.min()
            }
            var wait = max((next ?? 0) - Sys.monotonicNanoseconds(), 200_000)
            // A stop asked and not yet come: looked at again soon (`ProcessPause.backoff`).
            if let oldest = stopping.withLock({ $0.values.map(\.stop.asked).min() }) {
                let waited = Sys.monotonicNanoseconds() - oldest
                if waited < 200_000 {  // its threads stop within microseconds: a keyboard is not kept stopped for a timer's slack
                    sched_yield()
                    continue
                }
                wait = min(wait, Int64(ProcessPause.backoff(waited: waited)) * 1000)
            }
            _ = kernelWake.wait(timeout: .now() + .nanoseconds(Int(wait)))
        }
    }

    /// A keyboard asked to stop for its count, and what that count has found so far.
    struct PendingStop: Sendable {
        var stop: ProcessPause.Stop
        /// Its pidfd, the governor's own, for as long as the stop lasts.
        let process: OwnedDescriptor
        let devices: [UInt64]
        let walked: (bytes: Int, entries: Int, unreadable: Int)
        let walkCost: Int64
    }

    /// The stops asked that have come (or whose deadline passed): each keyboard read then, let go on,
    /// and its count returned. Any counting thread of the current generation finishes them (one left
    /// behind, stuck in a call, leaves its stops to its successor).
    func finishStops(generation: Int) -> [Count] {
        var done: [Count] = []
        while counting.withLock({ $0.generation }) == generation {  // (a thread left behind leaves them to its successor)
            let now = Sys.monotonicNanoseconds()
            // One at a time, taken out under the lock: no two threads read or continue the same one.
            let next = stopping.withLock { stops -> PendingStop? in
                for (pid, var pending) in stops {
                    let came = pending.stop.check()
                    stops[pid] = pending
                    if came || pending.stop.expired(at: now) { return stops.removeValue(forKey: pid) }
                }
                return nil
            }
            guard let pending = next else { return done }
            let pid = pending.stop.pid
            counting.withLock { if $0.generation == generation { $0 = (pid, Sys.monotonicNanoseconds(), generation) } }
            let began = Sys.monotonicNanoseconds()
            var count = Count(pid: pid)
            // Not stopped by its deadline, it is read all the same, with every thread that could stop
            // stopped (a thread inside one call changes no mapping and opens no descriptor until that
            // call returns): what it held unnamed was not counted at all then, and a keyboard that kept
            // one thread in a long write to a deleted file grew it unseen (a review).
            count.heavy = Governor.finishHeavy(pid: pid, devices: pending.devices, walked: pending.walked, readsUnnamed: true)
            // How long it resisted the stop: seen running (not how long until this thread looked: a host slow
            // to look again is no keyboard's doing), and running on a CPU (a load that kept its threads from
            // a CPU is no keyboard's doing either) — read before it goes on.
            count.stopWait = pending.stop.resisted()
            pending.stop.end(pidfd: pending.process.fd)
            count.unpaused = !pending.stop.stopped
            // Time waiting for it to stop is not the count's cost (a keyboard that delayed its stops had its
            // next counts spaced by that wait: twenty-second red team), but the time spent looking is: a
            // keyboard of 240 idle threads, counted every 6 ms, kept the host at half a core (twenty-fourth).
            count.heavyCost = pending.walkCost + pending.stop.lookCost + Sys.monotonicNanoseconds() - began
            done.append(count)
        }
        return done
    }

    /// The rest of a count of its locks, files and mappings: what it holds unnamed (when `readsUnnamed`)
    /// added to what the walk of its folders found, and its locks.
    static func finishHeavy(pid: Int32, devices: [UInt64], walked: (bytes: Int, entries: Int, unreadable: Int),
                            readsUnnamed: Bool) -> (locks: Int, files: (bytes: Int, entries: Int, unreadable: Int),
                                                    mappings: (count: Int, sockets: Int, cut: Bool)) {
        var files = walked
        var mappings = (count: 0, sockets: 0, cut: false)
        if readsUnnamed, let unnamed = UnnamedFiles.held(by: pid, on: devices, mappingLimit: Governor.mappingLimit) {
            files = (files.bytes + unnamed.bytes, files.entries + unnamed.files, unnamed.unreadable)
            mappings = (unnamed.mappings, unnamed.sockets, unnamed.listingCut)
        }
        return (Descriptors.read(pid: pid)?.locks ?? 0, files, mappings)
    }

    /// What `folders` on a tmpfs hold, walked together up to one more entry than a keyboard may keep,
    /// and what the large files found before hold wherever they moved (`tracked`).
    static func usage(of folders: [String], tracked: TmpfsUsage.Tracked?) -> (bytes: Int, entries: Int) {
        folders.isEmpty ? (0, 0) : TmpfsUsage.usage(of: folders, limit: tmpfsEntryLimit + 1, tracked: tracked)
    }

    /// One process's count: the slow part (`heavy`) and its sockets, each when due (nil: not counted now).
    struct Count {
        let pid: Int32
        var heavy: (locks: Int, files: (bytes: Int, entries: Int, unreadable: Int), mappings: (count: Int, sockets: Int, cut: Bool))?
        /// It could not be stopped within `Governor.pauseWait` for its descriptors and mappings: only the walk and locks are taken.
        var unpaused = false
        /// How long it waited for it to stop then.
        var stopWait: Int64 = 0
        var heavyCost: Int64 = 0
        var sockets: Int?
        var socketCost: Int64 = 0

        init(pid: Int32) { self.pid = pid }
    }
}

extension Governor.Watch {
    /// Whether its sockets' queues are to be counted at `time` (open access).
    func socketsDue(at time: Int64) -> Bool { countsSockets && nextSocketCount <= time }
}
