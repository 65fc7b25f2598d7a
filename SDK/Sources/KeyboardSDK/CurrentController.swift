import Glibc

// The controller the host is calling on this thread, for APIs that, as UIKit's, reach the
// keyboard without being handed its controller (KeyboardUIKitCompat's feedback generators).
// Per thread: tests drive several keyboards at once, each on its own thread.

extension InputViewController {
    /// The controller whose method the host is calling on this thread (a life-cycle call, a key
    /// action…); nil outside one.
    package static var current: InputViewController? {
        pthread_getspecific(CurrentController.key).map { Unmanaged<InputViewController>.fromOpaque($0).takeUnretainedValue() }
    }
}

enum CurrentController {
    nonisolated(unsafe) static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body` with `controller` as this thread's current controller (restored after: calls nest).
    static func with<R>(_ controller: InputViewController, _ body: () -> R) -> R {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(controller).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return body()
    }
}
