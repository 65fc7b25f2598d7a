import CKBShims
import Glibc

/// kbhost's one way to run work on a thread of its own: a detached POSIX thread, named. The
/// governor, the exit watcher, the spawner and the spare-process preparer all start theirs here
/// (Foundation's Thread is not available to the worker's modules, and one style is easier to
/// read than three).
public enum Threads {
    private final class Start {
        let name: String
        let body: () -> Void
        init(_ name: String, _ body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new detached thread called `name` (the kernel keeps its first 15 bytes).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Start(name, body)).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
            _ = kbs_set_thread_name(start.name)
            start.body()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            preconditionFailure("cannot start the thread \(name): errno \(result)")
        }
        pthread_detach(thread)
    }
}
