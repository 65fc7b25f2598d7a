import CKBShims
import Glibc

/// A process held still while what the kernel lists of it piece by piece is read: /proc/PID/maps
/// is no snapshot (each read resumes at an address) and neither is /proc/PID/fd, so a keyboard that
/// moved a deleted file's mapping with `mremap` nonstop, behind listings it had made slow, held
/// 384–768 MiB unseen under a 48 MiB budget (twenty-first red team). Stopped (SIGSTOP through its
/// pidfd) until each of its threads is, it can change no mapping and no descriptor: every thread
/// stops as it leaves the kernel, which a keyboard's calls do within microseconds.
public enum ProcessPause {
    /// A stop asked of a process (SIGSTOP through its pidfd) and not yet ended: whoever holds it
    /// checks, without waiting, whether every thread has stopped, reads the process once it has (or at
    /// its deadline), and ends it (SIGCONT). The governor's one counting thread counts the other
    /// keyboards meanwhile: a keyboard that kept its stops from coming held up their counts for as
    /// long (twenty-second and twenty-third red teams).
    public struct Stop: Sendable {
        public let pid: Int32
        public let asked: Int64, deadline: Int64
        /// Threads seen stopped: a thread once stopped stays so until the SIGCONT, and is not read again.
        private var known = Set<Int32>()
        public private(set) var stopped = false
        /// When a look last found a thread of it still running (`asked` if none did): how long it
        /// resisted the stop at least, whatever kept the one who looks from looking more often.
        public private(set) var lastSeenRunning: Int64
        /// The time spent looking (reading its threads' states): the host's work for this stop, which
        /// grows with its threads (240 idle threads made each stop cost milliseconds: twenty-fourth red team).
        public private(set) var lookCost: Int64 = 0
        /// Its CPU time when the stop was asked (nil: unknown).
        let cpuAtAsk: Int64?
        /// For each thread seen asleep in the kernel uninterruptibly (state D: a disk read, an fsync), about how
        /// long it was seen so, looks apart: such a thread takes no stop until its call returns, and uses no CPU.
        private var uninterruptible: [Int32: Int64] = [:]
        /// When it was last looked at.
        private var lastLook: Int64

        /// Stops `pid`; nil if the signal could not be sent (a process gone, or not ours to stop).
        public static func begin(pid: Int32, pidfd: Int32, within nanoseconds: Int64) -> Stop? {
            let cpu = Sys.cpuNanoseconds(of: pid)
            guard (try? Sys.pidfdSendSignal(pidfd, SIGSTOP)) != nil else { return nil }
            let now = Sys.monotonicNanoseconds()
            return Stop(pid: pid, asked: now, deadline: now + nanoseconds, cpuAtAsk: cpu)
        }

        private init(pid: Int32, asked: Int64, deadline: Int64, cpuAtAsk: Int64?) {
            (self.pid, self.asked, self.deadline, self.lastSeenRunning, self.cpuAtAsk) = (pid, asked, deadline, asked, cpuAtAsk)
            lastLook = asked
        }

        /// How long it resisted the stop, as far as it could have: the time from the ask to the last look
        /// that found a thread of it running, but no more than the CPU time it used since the ask and the
        /// longest any one thread of it was seen asleep in a call the stop cannot interrupt (call it before
        /// `end`). A thread that has not stopped is waiting for a CPU (it stops as soon as it runs, and does
        /// nothing before), running inside a call (CPU), or asleep inside one (state D; a disk read may take
        /// as long as the keyboard likes, with no CPU: a review) — only waiting for a CPU is no keyboard's
        /// doing. By wall time alone, a keyboard that kept both CPUs busy had another keyboard, whose idle
        /// threads waited for a CPU to take their stop, ended for "keeping its counts waiting" (twenty-fifth
        /// red team, D).
        public func resisted() -> Int64 {
            let waited = lastSeenRunning - asked
            guard let before = cpuAtAsk, let now = Sys.cpuNanoseconds(of: pid) else { return waited }
            return min(waited, max(now - before, 0) + (uninterruptible.values.max() ?? 0))
        }

        /// Whether every thread has stopped (or is gone) by now. Threads seen stopped are not read
        /// again while others are awaited, but the last look reads every one: the process may have let
        /// them go on meanwhile (a SIGCONT it sent itself from a thread not yet stopped, in a call the
        /// kernel does not interrupt: a review).
        public mutating func check() -> Bool {
            guard !stopped else { return true }
            let began = Sys.monotonicNanoseconds()
            // A look that read every thread (none cached) needs no second: a thread it found stopped can
            // send no SIGCONT, and one that sent it is running when read.
            let cached = !known.isEmpty
            var asleep: [Int32] = []
            if ProcessPause.allStopped(pid, known: &known, uninterruptible: &asleep) {
                stopped = true
                if cached {
                    var fresh = Set<Int32>()
                    stopped = ProcessPause.allStopped(pid, known: &fresh, uninterruptible: &asleep)
                    known = fresh
                }
            }
            let now = Sys.monotonicNanoseconds()
            for tid in asleep { uninterruptible[tid, default: 0] += now - lastLook }
            lastLook = now
            lookCost += now - began
            if !stopped { lastSeenRunning = now }
            return stopped
        }

        /// Whether its deadline has passed.
        public func expired(at now: Int64) -> Bool { now > deadline }

        /// Lets it go on.
        public func end(pidfd: Int32) { _ = try? Sys.pidfdSendSignal(pidfd, SIGCONT) }
    }

    /// How long to wait before looking again at a stop asked `waited` ago: its threads stop within
    /// microseconds, as each leaves the kernel; one that does not is in a long call, so the wait grows
    /// to a millisecond (a keyboard of 240 threads made the host spend two thirds of a core on a
    /// wait that read each thread's state every 0.1 ms: twenty-second red team).
    public static func backoff(waited: Int64) -> UInt32 {
        waited < 1_000_000 ? 50 : waited < 10_000_000 ? 200 : 1000
    }

    /// Whether every thread of `pid` is stopped (or gone): the state after the name in each
    /// /proc/PID/task/TID/stat (whose name, in parentheses, may hold anything: the last ")" ends it).
    /// `known`: threads already seen stopped, not read again (those seen stopped now are added).
    /// `uninterruptible`: threads found asleep in a call the stop cannot interrupt (D) are added; every
    /// thread not yet stopped is read to find them.
    static func allStopped(_ pid: Int32, known: inout Set<Int32>, uninterruptible: inout [Int32]) -> Bool {
        guard let dir = opendir("/proc/\(pid)/task") else { return true }  // gone
        defer { closedir(dir) }
        let folder = dirfd(dir)
        var buffer = [UInt8](repeating: 0, count: 1024)
        var all = true
        while let entry = readdir(dir) {
            let (tid, fd) = Sys.withEntryName(entry) { name -> (Int32, Int32) in
                guard let first = name.first, first != 46 /* "." */ else { return (0, -1) }
                let text = String(decoding: name, as: UTF8.self)
                guard let tid = Int32(text), !known.contains(tid) else { return (0, -1) }
                return (tid, openat(folder, text + "/stat", O_RDONLY | O_CLOEXEC))
            }
            guard fd >= 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { (try? Sys.read(fd, into: $0)) ?? 0 }
            Sys.close(fd)
            guard n > 0, let close = buffer[..<n].lastIndex(of: 41 /* ")" */), close + 2 < n else { continue }  // a thread gone meanwhile
            switch buffer[close + 2] {
            case 84, 116, 90, 88: known.insert(tid)  // T (stopped), t (traced), Z, X (ending)
            case 68:  // D
                uninterruptible.append(tid)
                all = false
            default: all = false
            }
        }
        return all
    }
}
