/// The UIControl events kbhost delivers to a key. Raw values match kbh_event_kind.
public enum KeyEventKind: UInt8, CaseIterable, Hashable, Sendable {
    case touchUpInside = 0, touchDown, touchDownRepeat, longPress, `repeat`

    /// Which of a key's selectors this event calls (the one rule, for host and worker alike):
    /// a repeat calls the tap action of a repeating key.
    public func selector(action: String?, touchDown: String?, longPress: String?, doubleTap: String?,
                         repeats: Bool) -> String? {
        switch self {
        case .touchUpInside: action
        case .touchDown: touchDown
        case .touchDownRepeat: doubleTap
        case .longPress: longPress
        case .repeat: repeats ? action : nil
        }
    }
}

/// What a person does to a key.
public enum Gesture: Hashable, Sendable {
    case tap
    case doubleTap
    /// Held long enough for the long-press action.
    case longPress
    /// Held for this long: a repeating key repeats, a long-press key long-presses.
    case hold(milliseconds: Int)

    /// The timing of touches, as the standard keyboard has it.
    public enum Timing {
        public static let tapNanoseconds: Int64 = 50_000_000
        public static let betweenTapsNanoseconds: Int64 = 50_000_000
        public static let doubleTapGapNanoseconds: Int64 = 100_000_000
        public static let longPressNanoseconds: Int64 = 500_000_000
        public static let firstRepeatNanoseconds: Int64 = 400_000_000
        public static let repeatIntervalNanoseconds: Int64 = 100_000_000
    }

    /// One event of a gesture, at an offset from the gesture's start.
    public struct Step: Hashable, Sendable {
        public var kind: KeyEventKind
        public var tapCount: Int32
        public var repeatCount: Int32
        public var atNanoseconds: Int64
    }

    /// The events of this gesture on a key, in order, and how long the gesture
    /// takes (the clock advances by that much). A tap is touch down, then touch
    /// up inside; a double tap adds touch-down-repeat and a second touch up
    /// (tap count 2); a hold long-presses a key with a long-press action (which
    /// then gets no touch up) or repeats a repeating key's action after 0.4 s,
    /// then every 0.1 s, then touches up.
    public func steps(repeats: Bool, hasLongPress: Bool) -> (steps: [Step], duration: Int64) {
        typealias T = Timing
        switch self {
        case .tap:
            return ([Step(kind: .touchDown, tapCount: 1, repeatCount: 0, atNanoseconds: 0),
                     Step(kind: .touchUpInside, tapCount: 1, repeatCount: 0, atNanoseconds: T.tapNanoseconds)],
                    T.tapNanoseconds + T.betweenTapsNanoseconds)
        case .doubleTap:
            let second = T.tapNanoseconds + T.doubleTapGapNanoseconds
            return ([Step(kind: .touchDown, tapCount: 1, repeatCount: 0, atNanoseconds: 0),
                     Step(kind: .touchUpInside, tapCount: 1, repeatCount: 0, atNanoseconds: T.tapNanoseconds),
                     Step(kind: .touchDownRepeat, tapCount: 2, repeatCount: 0, atNanoseconds: second),
                     Step(kind: .touchUpInside, tapCount: 2, repeatCount: 0, atNanoseconds: second + T.tapNanoseconds)],
                    second + T.tapNanoseconds + T.betweenTapsNanoseconds)
        case .longPress:
            return Gesture.hold(milliseconds: 600).steps(repeats: repeats, hasLongPress: hasLongPress)
        case .hold(let milliseconds):
            let held = Int64(max(0, milliseconds)) * 1_000_000
            var steps = [Step(kind: .touchDown, tapCount: 1, repeatCount: 0, atNanoseconds: 0)]
            if hasLongPress && held >= T.longPressNanoseconds {
                steps.append(Step(kind: .longPress, tapCount: 1, repeatCount: 0, atNanoseconds: T.longPressNanoseconds))
            } else {
                var at = T.firstRepeatNanoseconds
                var count: Int32 = 0
                while repeats && at < held {
                    count += 1
                    steps.append(Step(kind: .repeat, tapCount: 1, repeatCount: count, atNanoseconds: at))
                    at += T.repeatIntervalNanoseconds
                }
                steps.append(Step(kind: .touchUpInside, tapCount: 1, repeatCount: 0, atNanoseconds: held))
            }
            return (steps, held + T.betweenTapsNanoseconds)
        }
    }
}
