import Foundation
import KBSystem
import Synchronization

/// Watches extension processes' pidfds on one thread and reports an exit the
/// moment it happens — also when something the keyboard forked still holds
/// its end of the channel, so no end of file would ever come.
final class ExitWatcher: @unchecked Sendable {
    static let shared = ExitWatcher()

    private let watched = Mutex<[Int32: @Sendable () -> Void]>([:])
    private let wakeRead: Int32
    private let wakeWrite: Int32

    private init() {
        let (r, w) = (try? Sys.pipe()) ?? (-1, -1)
        wakeRead = r
        wakeWrite = w
        try? Sys.setNonBlocking(r)
        Threads.start(name: "kbhost-exit-watcher") { [self] in self.loop() }
    }

    /// Calls `onExit` once, from the watcher's thread, when the process behind `pidfd` ends.
    func watch(pidfd: Int32, onExit: @escaping @Sendable () -> Void) {
        watched.withLock { $0[pidfd] = onExit }
        wake()
    }

    /// After this returns, `onExit` for this pidfd will not be called.
    func unwatch(pidfd: Int32) {
        watched.withLock { _ = $0.removeValue(forKey: pidfd) }
        wake()
    }

    private func wake() {
        guard wakeWrite >= 0 else { return }  // no pipe: the watcher wakes at the next exit only
        _ = try? Sys.writeAll(wakeWrite, [1])
    }

    private func loop() {
        var drain = [UInt8](repeating: 0, count: 64)
        while true {
            let fds = watched.withLock { Array($0.keys) }
            var polls = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
                + fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard (try? Sys.poll(&polls, timeoutMilliseconds: -1)) != nil else { continue }
            if polls[0].revents != 0 {
                _ = drain.withUnsafeMutableBytes { try? Sys.readAvailable(wakeRead, into: $0) }
            }
            for p in polls.dropFirst() where p.revents & Int16(POLLIN) != 0 {
                // Called under the lock: once unwatch returns, its closure can no longer run, so
                // the owner may close (and the system reuse) the descriptors the closure names.
                watched.withLock { $0.removeValue(forKey: p.fd)?() }
            }
        }
    }
}
