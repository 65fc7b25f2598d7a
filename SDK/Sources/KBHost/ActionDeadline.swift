import KBSystem
import Synchronization

/// One deadline that every event call of one action shares. A front end's action may make
/// several calls: the app's text reported under IBus is textWillChange, textDidChange,
/// selectionWillChange and selectionDidChange, a focus change more; each under its own
/// deadline, a keyboard that took just under it in each held the IBus engine — every app of
/// the session — about 10 s per app event and was never ended (sixteenth red team, F3).
/// Under `within`, the keyboards' calls end at the action's deadline if it comes first; a
/// keyboard that misses it fails as for its own call's deadline. Launches keep their own
/// deadlines and the action's clock stops while one runs (`excluding`: a keyboard's start, up
/// to 3 s for a person, is not its event); a keyboard landed on after a failure gets the whole
/// deadline again (`renew`).
public final class ActionDeadline: Sendable {
    /// The action under way (its end, how long it was given), and what the last one spent in launches.
    private let state = Mutex<(action: (end: Int64, milliseconds: Int)?, launching: Int64)>((nil, 0))

    public init() {}

    /// When the action under way ends, and how long it was given (nil: no action under way).
    var current: (end: Int64, milliseconds: Int)? { state.withLock { $0.action } }

    /// The time the last action (the one under way, if any) spent in launches (`excluding`).
    public var launchingNanoseconds: Int64 { state.withLock { $0.launching } }

    /// Runs `body` as one action of at most `milliseconds` of keyboard calls in all; an action
    /// inside another keeps the outer one's deadline.
    public func within<T>(milliseconds: Int, _ body: () throws -> T) rethrows -> T {
        let outermost = state.withLock { state in
            guard state.action == nil else { return false }
            state = ((Sys.monotonicNanoseconds() + Int64(milliseconds) * 1_000_000, milliseconds), 0)
            return true
        }
        defer { if outermost { state.withLock { $0.action = nil } } }
        return try body()
    }

    /// Runs `body` (a launch) with the action's clock stopped: its deadline moves on by the time it took.
    func excluding<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let start = Sys.monotonicNanoseconds()
        defer {
            let spent = Sys.monotonicNanoseconds() - start
            state.withLock { state in
                state.action?.end += spent
                state.launching += spent
            }
        }
        return try body()
    }

    /// The action's deadline starts again (a keyboard landed on after one failed mid-action).
    func renew() {
        state.withLock { state in
            if let action = state.action { state.action!.end = Sys.monotonicNanoseconds() + Int64(action.milliseconds) * 1_000_000 }
        }
    }
}
