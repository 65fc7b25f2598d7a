import CKBShims
import Glibc

/// A process held still while what the kernel lists of it piece by piece is read: /proc/PID/maps
/// is no snapshot (each read resumes at an address) and neither is /proc/PID/fd, so a keyboard that
/// moved a deleted file's mapping with `mremap` nonstop, behind listings it had made slow, held
/// 384–768 MiB unseen under a 48 MiB budget (twenty-first red team). Stopped (SIGSTOP through its
/// pidfd) until each of its threads is, it can change no mapping and no descriptor: every thread
/// stops as it leaves the kernel, which a keyboard's calls do within microseconds.
public enum ProcessPause {
    public enum Outcome<T> {
        case read(T)
        /// A thread of it was still running at the deadline (one call the kernel could not interrupt,
        /// that long): read then, with every thread that could stop stopped (a thread inside one
        /// call changes no mapping and opens no descriptor until that call returns).
        case notStopped(T)
    }

    /// Runs `body` with `pid` stopped, then lets it go on (SIGCONT); `waited` is how long it took to stop.
    /// A process not stopped within `nanoseconds` is read as it is then (`Outcome.notStopped`).
    public static func whileStopped<T>(pid: Int32, pidfd: Int32, within nanoseconds: Int64, waited: inout Int64,
                                       _ body: () -> T) -> Outcome<T> {
        do { try Sys.pidfdSendSignal(pidfd, SIGSTOP) } catch { return .read(body()) }  // (a process not ours to stop: read as is)
        defer { _ = try? Sys.pidfdSendSignal(pidfd, SIGCONT) }
        let start = Sys.monotonicNanoseconds(), deadline = start + nanoseconds
        var stopped = Set<Int32>()
        var waits = 0
        // Its threads stop within microseconds, as each leaves the kernel; one that does not is in a
        // long call, so the wait grows (up to a millisecond) and only threads not yet seen stopped
        // are read again: a keyboard of 240 threads made the host spend two thirds of a core on the
        // wait (twenty-second red team). A thread once stopped stays so until the SIGCONT below.
        while !allStopped(pid, known: &stopped) {
            if Sys.monotonicNanoseconds() > deadline {
                waited = Sys.monotonicNanoseconds() - start
                return .notStopped(body())
            }
            waits += 1
            if waits < 20 { sched_yield() } else { usleep(UInt32(min(100 << ((waits - 20) / 8), 1000))) }
        }
        waited = Sys.monotonicNanoseconds() - start
        return .read(body())
    }

    /// Whether every thread of `pid` is stopped (or gone): the state after the name in each
    /// /proc/PID/task/TID/stat (whose name, in parentheses, may hold anything: the last ")" ends it).
    /// `known`: threads already seen stopped, not read again.
    static func allStopped(_ pid: Int32, known: inout Set<Int32>) -> Bool {
        guard let dir = opendir("/proc/\(pid)/task") else { return true }  // gone
        defer { closedir(dir) }
        let folder = dirfd(dir)
        var buffer = [UInt8](repeating: 0, count: 1024)
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
            default: return false
            }
        }
        return true
    }
}
