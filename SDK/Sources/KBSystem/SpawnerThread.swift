import Glibc

/// PR_SET_PDEATHSIG fires when the *thread* that created a child exits, not
/// when its process does. A host that spawns workers from short-lived threads
/// (a thread pool, Swift concurrency) would see its keyboards killed at
/// random. Every spawn therefore runs on this one thread, which lives as long
/// as the process.
final class SpawnerThread: @unchecked Sendable {
    static let shared = SpawnerThread()

    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [Job] = []

    private final class Job: @unchecked Sendable {
        let work: () -> Void
        var done = false
        init(_ work: @escaping () -> Void) { self.work = work }
    }

    private init() {
        pthread_mutex_init(lock, nil)
        pthread_cond_init(wake, nil)
        Threads.start(name: "kbhost-spawner") { [self] in loop() }
    }

    /// Runs `work` on the spawner thread and waits for it.
    func run<T>(_ work: () -> T) -> T {
        withoutActuallyEscaping(work) { work in
            var result: T?
            let job = Job { result = work() }
            pthread_mutex_lock(lock)
            jobs.append(job)
            pthread_cond_broadcast(wake)
            while !job.done { pthread_cond_wait(wake, lock) }
            pthread_mutex_unlock(lock)
            return result!
        }
    }

    private func loop() {
        pthread_mutex_lock(lock)
        while true {
            while jobs.isEmpty { pthread_cond_wait(wake, lock) }
            let job = jobs.removeFirst()
            pthread_mutex_unlock(lock)
            job.work()
            pthread_mutex_lock(lock)
            job.done = true
            pthread_cond_broadcast(wake)
        }
    }
}
