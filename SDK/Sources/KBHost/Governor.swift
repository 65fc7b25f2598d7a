import Foundation
import KBCore
import KBSystem
import Synchronization

/// What the governor did to a keyboard that went over its budget.
public struct MemoryKill: Hashable, Sendable, CustomStringConvertible {
    public var budget: Int
    /// The footprint seen at the sample that decided the kill.
    public var footprintAtKill: Int
    /// The largest footprint seen over the process's life.
    public var peak: Int
    /// What its file locks took of `footprintAtKill` (kernel memory; see `RecordLocks`).
    public var lockBytes: Int = 0
    /// How many file locks it held; over `Governor.lockLimit`, that alone ended it.
    public var locks: Int = 0
    /// What its sockets' queues held of `footprintAtKill` (kernel memory; see `SocketBuffers`).
    public var socketBytes: Int = 0
    /// What its files on a tmpfs held of `footprintAtKill` (see `TmpfsUsage`), and how many there were.
    public var tmpfsBytes: Int = 0
    public var tmpfsEntries: Int = 0
    /// Files it deleted on a tmpfs but kept mapped, whose size the governor may not read
    /// (`UnnamedFiles`, as an ordinary user); any such file alone ended it.
    public var unreadableUnnamedFiles: Int = 0
    /// Its main thread ended while other threads ran on, where the kernel shows no memory for
    /// it (`Footprint.mainThreadEnded`); that alone ended it.
    public var mainThreadEnded = false
    /// Its mappings when it was ended for keeping more than `Governor.mappingLimit` (0 otherwise; counted
    /// up to one past the limit).
    public var mappings = 0
    /// Sockets it had mapped (a mapping keeps a socket open, queues and all, with no descriptor);
    /// any alone ended it.
    public var mappedSockets = 0
    /// Its /proc/PID/maps ran past what a count reads (`UnnamedFiles.listingLimit`); that alone ended it.
    public var mappingsListingCut = false
    /// It could not be stopped within `Governor.pauseLimit` to read its descriptors and mappings; that alone ended it.
    public var notPaused = false
    /// The count of what it holds in the kernel did not finish within `Governor.countStallLimit`
    /// (`Governor.watchCounting`); that alone ended it.
    public var countStalled = false
    /// How far over the budget it got (footprint at the kill − budget).
    public var overshoot: Int { footprintAtKill - budget }
    /// From the last sample under the budget to the kill.
    public var detectionNanoseconds: Int64

    public var description: String {
        if countStalled {
            return String(format: "kept kbhost's count of the memory it holds in the kernel (its sockets, file locks and files on a tmpfs) from finishing for %.1f s, so nothing could keep it to its memory budget of %.1f MiB (%.1f MiB counted by then)",
                          Double(Governor.countStallLimit) / 1e9, mib(budget), mib(footprintAtKill))
        }
        if mappedSockets > 0 {
            return String(format: "mapped %d socket(s) into its memory, which keeps a socket open with its queues and no descriptor, out of the count of its memory; a keyboard may not (its memory budget is %.1f MiB)",
                          mappedSockets, mib(budget))
        }
        if notPaused {
            return String(format: "could not be paused to count its descriptors and mappings for over %.1f s in all within %.0f s (its threads stop as each leaves the kernel: one kept staying in calls that long), so nothing could keep it to its memory budget of %.1f MiB",
                          Double(Governor.pauseLimit) / 1e9, Double(Governor.pauseWindow) / 1e9, mib(budget))
        }
        if mappingsListingCut {
            return String(format: "kept memory mappings whose listing in /proc/PID/maps runs past %d MiB (files named with long paths, or many mappings), more than kbhost reads for a keyboard while its containers are on a tmpfs or it has open access: a count that slow would leave its memory unseen meanwhile (its memory budget is %.1f MiB)",
                          UnnamedFiles.listingLimit >> 20, mib(budget))
        }
        if mappings > Governor.mappingLimit {
            return String(format: "kept at least %d memory mappings, more than the %d a keyboard may while its containers are on a tmpfs or it has open access (each is kernel memory, and may hold a file open and its locks; its memory budget is %.1f MiB)",
                          mappings, Governor.mappingLimit, mib(budget))
        }
        if mainThreadEnded {
            return String(format: "ended its main thread while its other threads ran on, which leaves the kernel showing no memory for it, so nothing could keep it to its memory budget of %.1f MiB (peak seen %.1f MiB)",
                          mib(budget), mib(peak))
        }
        if unreadableUnnamedFiles > 0 {
            return String(format: "kept mapped %d file(s) it had deleted from its containers on a tmpfs, whose size kbhost cannot read without CAP_CHECKPOINT_RESTORE: memory it could hold unseen (%.1f MiB counted by then; its memory budget is %.1f MiB)",
                          unreadableUnnamedFiles, mib(footprintAtKill), mib(budget))
        }
        if tmpfsEntries > Governor.tmpfsEntryLimit {
            return String(format: "kept more than %d files and folders, folders more than %d deep, a folder kbhost may not read, or files renamed faster than they could be counted, in its containers on a tmpfs, the most a keyboard may (%.1f MiB of memory counted by then; its memory budget is %.1f MiB)",
                          Governor.tmpfsEntryLimit, TmpfsUsage.maximumDepth, mib(tmpfsBytes), mib(budget))
        }
        if locks > Governor.lockLimit {
            return String(format: "held %d file locks, more than the %d a keyboard may hold (%.1f MiB of kernel memory; its memory budget is %.1f MiB, its footprint with them %.1f MiB)",
                          locks, Governor.lockLimit, mib(lockBytes), mib(budget), mib(footprintAtKill))
        }
        var locks = lockBytes > 0 ? String(format: "; %.1f MiB of it in %d file locks", mib(lockBytes), self.locks) : ""
        if socketBytes > 0 { locks += String(format: "; %.1f MiB of it in its sockets' queues", mib(socketBytes)) }
        if tmpfsBytes > 0 { locks += String(format: "; %.1f MiB of it in %d files on a tmpfs", mib(tmpfsBytes), tmpfsEntries) }
        return String(format: "went over its memory budget of %.1f MiB: %.1f MiB at the kill (%.1f MiB over, peak %.1f MiB%@), detected within %.2f ms",
                      mib(budget), mib(footprintAtKill), mib(overshoot), mib(peak), locks, Double(detectionNanoseconds) / 1e6)
    }

    private func mib(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }
}

/// The jetsam of kbhost: samples every watched extension process's footprint
/// (anonymous + shared memory it made + swap + page tables, from /proc with
/// kept-open descriptors) on one thread, more often the closer a process is to
/// its budget, and SIGKILLs it through its pidfd the moment it is over. The
/// kernel memory its descriptors hold — file locks (`RecordLocks`) and its
/// sockets' queues (`SocketBuffers`) — is counted into its footprint by a
/// second thread, more often the closer a process is to its budget (a count
/// takes long with many locks held, and never delays a sample); a process
/// holding more than `lockLimit` locks is ended.
public final class Governor: @unchecked Sendable {
    public static let shared = Governor()

    /// Device profiles: the budgets phones and tablets are measured to enforce (KBCore's `MemoryBudget`).
    public static let profiles: [(name: String, budget: Int)] = MemoryBudget.profiles.map { ($0.name, $0.budget) }
    public static let defaultBudget = MemoryBudget.defaultBudget
    /// RLIMIT_DATA of every keyboard's process: the backstop behind the budget.
    public static let backstop = MemoryBudget.backstop
    /// The budgets that mean something (`MemoryBudget.range`).
    public static let budgetRange = MemoryBudget.range

    /// A budget given as MiB ("48") or a profile name ("recent-phone"), in bytes; nil outside `budgetRange`.
    public static func budget(parsing text: String) -> Int? { MemoryBudget.parse(text) }

    public static var budgetHelp: String { MemoryBudget.help }

    /// The fastest a keyboard is assumed to touch memory (bytes per ns), for pacing samples by headroom.
    static let assumedTouchRate = 2.5  // 2.5 GB/s
    static let shortestInterval: Int64 = 200_000      // 0.2 ms
    /// How long a process may show its main thread ended with others running before it is ended.
    static let mainThreadEndedGrace: Int64 = 5_000_000  // 5 ms: its other threads may take memory meanwhile, unseen
    static let longestInterval: Int64 = 20_000_000    // 20 ms
    /// The fastest a keyboard is assumed to take file locks, in bytes of kernel memory per ns:
    /// 300,000 a second (60 MB/s) were measured with 200 files of 600 locks.
    static let assumedLockRate = 0.1  // 100 MB/s
    static let shortestLockInterval: Int64 = 2_000_000     // 2 ms
    static let longestLockInterval: Int64 = 100_000_000    // 100 ms
    /// The most file locks a keyboard may hold, whatever its budget: a count reads them all
    /// (about 2 ms per 1,000; 60,000 held under the old limit of 65,536 kept the counting thread
    /// busy most of a core, eighth red team F), and a program needs a handful (SQLite five per
    /// database, Anthy one). 768 KiB of kernel memory.
    public static let lockLimit = 4_096
    /// How often an open-access keyboard's socket queues are counted: paced by its headroom at
    /// `assumedQueueRate`, every 10 ms far from its budget down to every 2 ms near it. Each
    /// socket is asked itself (pidfd_getfd and SO_MEMINFO: a few microseconds a socket); only
    /// where the kernel refuses that are the network's tables read, which cost a millisecond
    /// and grow with the machine's sockets (tens of thousands in TIME_WAIT after a burst).
    static let socketCountInterval: Int64 = 10_000_000  // 10 ms
    /// How fast a keyboard's socket queues are assumed to fill: 40 TCP sockets to a local
    /// server that never reads took 156 MB of send queues in about 20 ms.
    static let assumedQueueRate = 8.0  // 8 GB/s
    static let shortestSocketCountInterval: Int64 = 2_000_000  // 2 ms
    /// The most files and folders a keyboard may keep in its containers when they are on a
    /// tmpfs: each count walks them all (30,000 empty files, under the old limit of 100,000,
    /// kept the counting thread busy most of a core, eighth red team F). 10 MiB of inodes and names.
    public static let tmpfsEntryLimit = 10_000
    /// The large files of a keyboard's folders on a tmpfs the governor holds on to, at most (each
    /// at least its budget / this: filling every place takes more than the budget).
    public static let trackedFileLimit = 64
    /// The most mappings a keyboard may have while its containers are on a tmpfs or it has open
    /// access, where each count reads them all (a Swift keyboard has a few hundred). 65,530 made a
    /// count take 2.3 s, and 16,300 still kept the counting thread busy most of a core (tenth red
    /// team, L2); each mapping may also hold a file open, and its flock (N5).
    public static let mappingLimit = 4_096
    /// The wait to a keyboard's next count of its files: memoryless, with a mean of a third of its
    /// `pace` (the time its headroom takes to fill at the assumed rate) so that the longest wait is
    /// that pace, as when the wait was drawn between half the pace and the whole (a mean of the pace
    /// itself let one wait in twenty run two to three paces, and a keyboard filling its files that
    /// much further past its budget; a review) — or, after a slow count, of what the count cost
    /// (about a fifth of a core at most for a keyboard's counts, up to a quarter second).
    static func countWait(pace: Int64, cost: Int64) -> Int64 {
        memoryless(mean: max(pace / 3, min(27 * cost / 4, longestCountPause)), atLeast: shortestLockInterval)
    }

    /// A wait drawn from an exponential distribution of mean `mean`, at least `atLeast` and at most
    /// three means: memoryless, so that however long since the last count, the next is as likely to
    /// come at once, and knowing when one ran tells nothing of when the next comes.
    static func memoryless(mean: Int64, atLeast: Int64) -> Int64 {
        let u = Double.random(in: Double.leastNonzeroMagnitude ..< 1)
        return min(max(Int64(-log(u) * Double(mean)), atLeast), 3 * max(mean, atLeast))
    }

    /// The longest one count waits for a keyboard to stop (`ProcessPause`): its threads stop within
    /// microseconds, as each leaves the kernel. Not stopped by then, it is counted again soon.
    static let pauseWait: Int64 = 100_000_000  // 100 ms: a thread that is runnable stops only once it runs, later on a loaded machine
    /// The longest a keyboard may keep its counts waiting for it to stop, in all over `pauseWindow`, before it is ended.
    static let pauseLimit: Int64 = 1_000_000_000  // 1 s
    static let pauseWindow: Int64 = 10_000_000_000  // 10 s
    /// A wait for a stop longer than this counts toward `pauseLimit` even when the stop came.
    static let chargedStopWait: Int64 = 50_000_000  // 50 ms: a runnable thread waiting for a CPU looks the same; on one core shared with 12 busy processes stops took up to 40 ms (a review)
    /// The longest the counting thread waits because its last count was slow.
    static let longestCountPause: Int64 = 250_000_000  // 0.25 s
    /// The longest one process's count may take before the governor ends that process and counts
    /// on with a new thread (`watchCounting`). The slowest count a keyboard can cause within the
    /// limits above takes tens of milliseconds; a call that never returned (a lingering close,
    /// ninth red team K) left every keyboard of the host uncounted for good.
    public static let countStallLimit: Int64 = 2_000_000_000  // 2 s

    struct Watch {
        /// The governor's own pidfd of it (a duplicate): the counting thread keeps it for as long as
        /// a count runs, so a number the owner closed meanwhile never reaches another process.
        let process: OwnedDescriptor
        var pidfd: Int32 { process.fd }
        let reader: FootprintReader
        let budget: Int
        var peak = 0
        /// The footprint at the last sample (its locks included).
        var last = 0
        var lastUnderBudget: Int64
        /// When the last count of what it holds in the kernel began that left it under its budget,
        /// and whether a count changed those figures since the last sample: a kill they decide was
        /// decided at most that long after it went over, however recent the last sample.
        var lastCountUnderBudget: Int64
        var countChanged = false
        var nextSample: Int64 = 0
        var kill: MemoryKill?
        /// What its file locks took at the last count.
        var lockBytes = 0
        var locks = 0
        /// What its sockets' queues held at the last count.
        var socketBytes = 0
        /// Its folders on a tmpfs (`countHeld`), and what they held at the last count.
        var tmpfsFolders: [String] = []
        /// The large files its folders' walks found, counted wherever they move (`TmpfsUsage.Tracked`).
        var trackedFiles: TmpfsUsage.Tracked?
        /// Whether it may have TCP or UDP sockets (open access: `countHeld`), and when their
        /// queues are counted next. Reading the network's tables walks every bucket of its hash
        /// tables (a millisecond a read here): without open access there is nothing to find,
        /// and with it they are read at most every `socketCountInterval`.
        var countsSockets = false
        var nextSocketCount: Int64 = 0
        /// When what it holds in the kernel is counted next (`countKernelMemory`).
        var nextCount: Int64 = 0
        /// The relay of its network when it has one of its own (`UserNetwork`): what the relay
        /// holds above its start is the keyboard's, and so are the namespace's sockets it no
        /// longer has a descriptor of.
        var relay: Relay?
        var tmpfsBytes = 0
        var tmpfsEntries = 0
        /// How many counts of its locks, files and mappings were taken (for tests).
        var heavyCounts = 0
        /// When counts could not stop it (`Governor.pauseWait`) over the last `Governor.pauseWindow`, and how long each waited.
        var unstopped: [(at: Int64, waited: Int64)] = []
        /// When a sample first found its main thread ended with others running on.
        var mainThreadEndedSince: Int64?
        /// Memory it holds outside its address space, counted into its footprint.
        var kernelBytes: Int { lockBytes + socketBytes + tmpfsBytes }

        /// Kills it through its pidfd and records why: its footprint then, how much of it was
        /// kernel memory (as last counted), and the time since `since`; `reason` marks the rest.
        mutating func end(footprint: Int, now: Int64, since: Int64, _ reason: (inout MemoryKill) -> Void = { _ in }) {
            try? Sys.pidfdSendSignal(pidfd, SIGKILL)
            // The host's hold on its large files goes with it: files it had deleted stayed alive on
            // those descriptors until the session noticed the end, 280 MiB until the next key
            // (twenty-second red team).
            trackedFiles?.letGo()
            var ended = MemoryKill(budget: budget, footprintAtKill: footprint, peak: max(peak, footprint), detectionNanoseconds: now - since)
            (ended.lockBytes, ended.locks, ended.socketBytes) = (lockBytes, locks, socketBytes)
            (ended.tmpfsBytes, ended.tmpfsEntries) = (tmpfsBytes, tmpfsEntries)
            reason(&ended)
            peak = ended.peak
            kill = ended
        }
        /// Times the footprint crossed the warning line (`memoryWarningFraction` of the budget).
        var warnings = 0
        /// False after a warning until the footprint falls below `memoryWarningRearmFraction`.
        var armed = true
    }

    /// A keyboard hears didReceiveMemoryWarning once its footprint passes this share of its
    /// budget, as iOS warns an extension before jetsam ends it; again only after it fell
    /// below `memoryWarningRearmFraction`. It arrives before the next call the host makes.
    public static let memoryWarningFraction = 0.8
    public static let memoryWarningRearmFraction = 0.7

    let state = Mutex<[Int32: Watch]>([:])
    /// Warnings earned by any process so far. Every call a host makes asks `warnings(of:)`;
    /// while this is 0 (nearly always) the answer needs no lock, which the sampling thread
    /// holds while it reads a footprint (tens of µs).
    private let warningsEarned = Atomic<Int>(0)
    let wake = DispatchSemaphore(value: 0)
    let kernelWake = DispatchSemaphore(value: 0)
    /// The counting thread's progress: the process it is counting and since when (pid 0: between
    /// counts), and which thread counts (a stalled one is left behind: `watchCounting`).
    let counting = Mutex<(pid: Int32, since: Int64, generation: Int)>((0, 0, 0))
    /// Keyboards asked to stop for a count and not yet read (`finishStops`).
    let stopping = Mutex<[Int32: PendingStop]>([:])
    /// For tests: a count of these processes blocks, as a call that never returns would.
    static let stalledCountsForTests = Mutex<Set<Int32>>([])
    /// For tests: from now on a count of `pid` blocks (until `stalls` is false), as a call that never returns would.
    package static func stallCounts(of pid: Int32, _ stalls: Bool) {
        stalledCountsForTests.withLock { if stalls { $0.insert(pid) } else { $0.remove(pid) } }
    }
    private var started = false
    private let startLock = NSLock()

    /// Watches a process under a budget. `pidfd` stays owned by the caller (the governor keeps a
    /// duplicate). A process it cannot watch (its footprint unreadable, no descriptor left) is
    /// killed: a budget is never left unenforced.
    public func watch(pid: Int32, pidfd: Int32, budget: Int) {
        guard let reader = FootprintReader(pid: pid), let own = try? Sys.duplicate(pidfd, atLeast: 3) else {
            try? Sys.pidfdSendSignal(pidfd, SIGKILL)
            return
        }
        let process = OwnedDescriptor(own)
        state.withLock { $0[pid] = Watch(process: process, reader: reader, budget: budget, lastUnderBudget: Sys.monotonicNanoseconds(),
                                   lastCountUnderBudget: Sys.monotonicNanoseconds()) }
        startIfNeeded()
        wake.signal()
        kernelWake.signal()
    }

    /// Counts what a watched process holds beyond its locks into its footprint: what its folders
    /// that are on a tmpfs hold (its container, and its groups' when it may write them; folders
    /// elsewhere are its disk, not its memory) and, with `sockets` (open access), its TCP and
    /// UDP sockets' queues.
    public func countHeld(of pid: Int32, folders: [String], sockets: Bool) {
        let onTmpfs = folders.filter { !$0.isEmpty && TmpfsUsage.isTmpfs($0) }
        guard !onTmpfs.isEmpty || sockets else { return }
        // Its folders are walked once now, before any more of its code runs: what it left there
        // last time (over the limits, or over its budget) ends it at its start, not whenever the
        // counting thread first gets to it (a loaded machine let a short session finish first).
        let budget = state.withLock { $0[pid]?.budget } ?? 0
        let tracked = onTmpfs.isEmpty ? nil : TmpfsUsage.Tracked(bytes: max(1 << 20, budget / Governor.trackedFileLimit),
                                                                 capacity: Governor.trackedFileLimit)
        let files = Governor.usage(of: onTmpfs, tracked: tracked)
        let now = Sys.monotonicNanoseconds()
        state.withLock {
            guard var w = $0[pid] else { return }
            w.tmpfsFolders = onTmpfs
            w.trackedFiles = tracked
            w.countsSockets = sockets
            let footprint = w.last - w.kernelBytes + w.lockBytes + w.socketBytes + files.bytes
            (w.tmpfsBytes, w.tmpfsEntries) = files
            if w.kill == nil && (files.entries > Governor.tmpfsEntryLimit || footprint > w.budget) {
                w.end(footprint: footprint, now: now, since: w.lastUnderBudget)
            }
            w.nextCount = 0  // counted at once, as it now may hold more
            $0[pid] = w
        }
        kernelWake.signal()
    }

    /// The relay of a watched keyboard's network (`UserNetwork`), counted with it from now on.
    /// `diagnostics`: a sock_diag socket made in the keyboard's network (-1: none), the governor's from now on.
    func countRelay(of pid: Int32, relay: UserNetwork, diagnostics: Int32 = -1) {
        guard let reader = FootprintReader(pid: relay.pid) else {
            if diagnostics >= 0 { Sys.close(diagnostics) }
            return
        }
        // Its own: the relay's closes when the keyboard ends, maybe mid-count.
        guard let pidfd = try? Sys.duplicate(relay.pidfd, atLeast: 3) else {
            if diagnostics >= 0 { Sys.close(diagnostics) }
            return
        }
        let counted = Relay(pid: relay.pid, pidfd: pidfd, reader: reader, baseline: relay.baseline, diagnostics: diagnostics)
        state.withLock { watches in
            guard watches[pid] != nil else { return }  // not watched (no budget): nothing to count it into
            watches[pid]?.relay = counted  // one it replaces closes once no count holds it
            watches[pid]?.nextCount = 0
        }
        kernelWake.signal()
    }

    /// Stops watching; returns the kill if the governor made one.
    @discardableResult
    public func unwatch(pid: Int32) -> MemoryKill? {
        let removed = state.withLock { $0.removeValue(forKey: pid) }  // its relay closes once no count holds it
        return removed?.kill
    }

    /// How many counts of a watched process's locks, files and mappings were taken so far.
    package func heavyCounts(of pid: Int32) -> Int { state.withLock { $0[pid]?.heavyCounts ?? 0 } }

    /// The kill of a watched process, if the governor killed it.
    public func kill(of pid: Int32) -> MemoryKill? { state.withLock { $0[pid]?.kill } }

    /// How many memory warnings a watched process has earned (see `memoryWarningFraction`).
    public func warnings(of pid: Int32) -> Int {
        guard warningsEarned.load(ordering: .acquiring) > 0 else { return 0 }
        return state.withLock { $0[pid]?.warnings ?? 0 }
    }

    /// A watched process's footprint at the last sample, what its file locks take included
    /// (nil before the first sample or when it is not watched).
    public func footprint(of pid: Int32) -> Int? { state.withLock { $0[pid].flatMap { $0.last > 0 ? $0.last : nil } } }

    /// The peak footprint seen for a watched process; one that has had no sample yet (asked as it
    /// closes, on a machine too busy for the sampling thread to have run) is sampled now.
    public func peak(of pid: Int32) -> Int? {
        state.withLock { watches in
            guard var w = watches[pid] else { return nil }
            if w.peak == 0, let read = w.reader.read(), !read.mainThreadEnded {
                w.peak = read.total + w.kernelBytes
                watches[pid] = w
            }
            return w.peak
        }
    }

    private func startIfNeeded() {
        startLock.lock()
        defer { startLock.unlock() }
        guard !started else { return }
        started = true
        Threads.start(name: "kbhost-governor") { [self] in self.loop() }
        Threads.start(name: "kbhost-kernel") { [self] in self.countKernelMemory(generation: 0) }
    }

    private func loop() {
        while true {
            let now = Sys.monotonicNanoseconds()
            watchCounting(now: now)
            let next: Int64? = state.withLock { watches in
                var soonest: Int64?
                for (pid, var w) in watches where w.kill == nil {
                    if w.nextSample <= now {
                        sample(pid: pid, &w, now: now)
                        watches[pid] = w
                    }
                    if w.kill == nil { soonest = min(soonest ?? w.nextSample, w.nextSample) }
                }
                return soonest
            }
            guard let next else {
                wake.wait()  // nothing to watch: sleep until something is
                continue
            }
            let delay = next - Sys.monotonicNanoseconds()
            if delay > 0 { _ = wake.wait(timeout: .now() + .nanoseconds(Int(delay))) }
        }
    }

    /// Fails closed: a count of one process that has not finished within `countStallLimit` ends
    /// that process, and a new thread counts on for every other (the stalled one, should its
    /// call ever return, sees it has been replaced and ends).
    private func watchCounting(now: Int64) {
        let stalled = counting.withLock { c -> (pid: Int32, generation: Int)? in
            guard c.pid != 0, now - c.since > Governor.countStallLimit else { return nil }
            let pid = c.pid
            c = (0, 0, c.generation + 1)
            return (pid, c.generation)
        }
        guard let stalled else { return }
        state.withLock { watches in
            guard var w = watches[stalled.pid], w.kill == nil else { return }
            w.end(footprint: w.last, now: now, since: w.lastUnderBudget) { $0.countStalled = true }
            watches[stalled.pid] = w
        }
        Threads.start(name: "kbhost-kernel") { [self] in self.countKernelMemory(generation: stalled.generation) }
    }

    private func sample(pid: Int32, _ w: inout Watch, now: Int64) {
        guard let read = w.reader.read() else {
            w.nextSample = Int64.max  // gone; the owner will unwatch it
            w.trackedFiles?.letGo()  // and nothing of its files is held for it meanwhile
            return
        }
        if read.mainThreadEnded {  // no figure to trust: it could hold anything
            // A process ending (exit_group, a crash) passes through this for microseconds while
            // its threads go: only a state that lasts is the keyboard's doing.
            guard let since = w.mainThreadEndedSince, now - since >= Governor.mainThreadEndedGrace else {
                if w.mainThreadEndedSince == nil { w.mainThreadEndedSince = now }
                w.nextSample = now + Governor.mainThreadEndedGrace
                return
            }
            w.end(footprint: w.last, now: now, since: w.lastUnderBudget) { $0.mainThreadEnded = true }
            return
        }
        w.mainThreadEndedSince = nil
        let footprint = read.total + w.kernelBytes
        w.last = footprint
        w.peak = max(w.peak, footprint)
        let counted = w.countChanged
        w.countChanged = false
        if footprint > w.budget {
            w.end(footprint: footprint, now: now, since: counted ? min(w.lastUnderBudget, w.lastCountUnderBudget) : w.lastUnderBudget)
            return
        }
        w.lastUnderBudget = now
        if Double(footprint) >= Double(w.budget) * Governor.memoryWarningFraction {
            if w.armed {
                w.warnings += 1
                warningsEarned.add(1, ordering: .releasing)
            }
            w.armed = false
        } else if Double(footprint) < Double(w.budget) * Governor.memoryWarningRearmFraction {
            w.armed = true
        }
        let headroom = Double(w.budget - footprint)
        let interval = Int64(headroom / Governor.assumedTouchRate)
        w.nextSample = now + min(max(interval, Governor.shortestInterval), Governor.longestInterval)
    }
}
