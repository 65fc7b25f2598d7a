public import KBText
import KBWire

// MARK: Keys: gestures turned into the events the keyboard's keys are sent

extension KeyboardSession {
    /// Taps a key by name (see `KeyboardLayout.key(named:)`).
    public func tap(_ name: String) throws(SessionError) {
        try perform(.tap, on: name)
    }

    public func perform(_ gesture: Gesture, on name: String) throws(SessionError) {
        guard let key = layout.key(named: name) else {
            throw .noSuchKey(name: name, keyboardID: keyboard.identifier, labels: Array(layout.labels.joined()))
        }
        do { try perform(gesture, on: key) } catch { throw .keyboardFailed(error) }
    }

    /// Delivers the UIControl events of a gesture (see `Gesture.steps`); events
    /// the key has no action for are not sent.
    /// A key that offers alternates shows them once held for a long press ("showAlternates" in
    /// `events`); let go without picking one, the gesture goes on as for any key.
    public func perform(_ gesture: Gesture, on key: KeyboardLayout.Key) throws(KeyboardFailure) {
        let start = clockNanoseconds
        let plan = key.plan(gesture, from: start)
        let callout = layout.extras(of: key)?.alternates ?? []
        let held = plan.duration - Gesture.Timing.betweenTapsNanoseconds
        var shown = callout.isEmpty || held < Gesture.Timing.longPressNanoseconds  // nothing to show, or not held long enough
        for event in plan.events {
            if !shown && event.timestampNanoseconds >= start + Gesture.Timing.longPressNanoseconds {
                events.append(SessionEvent("showAlternates", callout.joined(separator: " ")))
                shown = true
            }
            clockNanoseconds = event.timestampNanoseconds
            try deliver(.key(row: Int32(key.row), column: Int32(key.column), event: event), phase: "key '\(key.label)'")
        }
        clockNanoseconds = start + plan.duration
    }

    /// A long press on a key that offers alternates (KeySpec.alternates), then `choice` picked
    /// from them, as from iOS's callout (`kbhost type long:KEY:CHOICE`).
    public func chooseAlternate(_ choice: String, on name: String) throws(SessionError) {
        guard let key = layout.key(named: name) else {
            throw .noSuchKey(name: name, keyboardID: keyboard.identifier, labels: Array(layout.labels.joined()))
        }
        let offered = layout.extras(of: key)?.alternates ?? []
        // The keyboard's own spelling of the pick (a script may write é decomposed).
        guard let canonical = offered.first(where: { $0 == choice }) else {
            throw .noSuchAlternate(name: name, choice: choice, keyboardID: keyboard.identifier, alternates: offered)
        }
        do { try chooseAlternate(canonical, on: key) } catch { throw .keyboardFailed(error) }
    }

    /// The long press as `perform(.longPress, on:)` sends it (touch down, the long-press action
    /// at 0.5 s), the callout shown ("showAlternates: é è ê"), then, at 0.6 s, the pick
    /// ("chooseAlternate: é"): the key's tap action with a KBH_EVENT_ALTERNATE event whose
    /// sender's label is `choice`. No touch up: the callout took the touch.
    public func chooseAlternate(_ choice: String, on key: KeyboardLayout.Key) throws(KeyboardFailure) {
        let start = clockNanoseconds
        let plan = key.plan(.longPress, from: start)
        for event in plan.events where event.kind != .touchUpInside {
            clockNanoseconds = event.timestampNanoseconds
            try deliver(.key(row: Int32(key.row), column: Int32(key.column), event: event), phase: "key '\(key.label)'")
        }
        // The long press may have redrawn the keyboard: the callout belongs to the key
        // (`key(following:)`), and is dismissed without a pick if it no longer offers the choice.
        guard let now = layout.key(following: key), let offered = layout.extras(of: now)?.alternates,
              offered.contains(choice) else {
            clockNanoseconds = start + plan.duration
            return
        }
        events.append(SessionEvent("showAlternates", offered.joined(separator: " ")))
        events.append(SessionEvent("chooseAlternate", choice))
        clockNanoseconds = start + plan.duration - Gesture.Timing.betweenTapsNanoseconds
        let event = KeyEvent(kind: .touchUpInside, tapCount: 1, timestampNanoseconds: clockNanoseconds)
        try deliver(.alternate(row: Int32(now.row), column: Int32(now.column), choice: choice, event: event),
                    phase: "key '\(key.label)' alternate '\(choice)'")
        clockNanoseconds = start + plan.duration
    }

    /// Taps several keys with their requests pipelined: one write for all, the
    /// replies applied in order as they come. Much faster than one tap at a
    /// time; meant for keys that do not change the layout (the worker resolves
    /// each tap against its layout at that moment). `acknowledged` counts the
    /// keys whose every event was answered, also when a failure cuts the batch short.
    public func tapAll(_ keys: [KeyboardLayout.Key], acknowledged: inout Int) throws(KeyboardFailure) {
        if let failure { throw failure }
        var messages: [HostMessage] = []
        var lastMessageOfKey: [Int] = []
        for key in keys {
            let start = clockNanoseconds
            let plan = key.plan(.tap, from: start)
            for event in plan.events {
                messages.append(.deliver(nextDelivery(.key(row: Int32(key.row), column: Int32(key.column), event: event))))
            }
            clockNanoseconds = start + plan.duration
            lastMessageOfKey.append(messages.count - 1)
        }
        let first = sequence - UInt64(messages.count) + 1
        var keyIndex = 0
        do {
            try process.requestAll(messages, phase: "key '\(keys[min(keyIndex, keys.count - 1)].label)'") { (i, reply) throws(KeyboardFailure) in
                guard case .done(let seq, let effects) = reply, seq == first + UInt64(i) else {
                    throw violation("answered call \(first + UInt64(i)) out of turn", phase: "key batch")
                }
                try apply(effects, phase: "key '\(keys[min(keyIndex, keys.count - 1)].label)'")
                while keyIndex < lastMessageOfKey.count && lastMessageOfKey[keyIndex] <= i {
                    keyIndex += 1
                    acknowledged += 1
                }
            }
        } catch {
            throw fail(error)
        }
    }

    /// One auto-repeat of a held key, as a front end's key repeat reports it:
    /// a repeating key's action is called with a repeat event (its `count`th);
    /// any other key gets nothing, as on iOS.
    public func repeatKey(_ key: KeyboardLayout.Key, count: Int) throws(KeyboardFailure) {
        clockNanoseconds += count <= 1 ? Gesture.Timing.firstRepeatNanoseconds : Gesture.Timing.repeatIntervalNanoseconds
        guard key.action(for: .repeat) != nil else { return }
        let event = KeyEvent(kind: .repeat, tapCount: 1, repeatCount: Int32(clamping: count), timestampNanoseconds: clockNanoseconds)
        try deliver(.key(row: Int32(key.row), column: Int32(key.column), event: event), phase: "key '\(key.label)' repeat")
    }

    /// Lets time pass on the session's clock.
    public func pause(milliseconds: Int) {
        clockNanoseconds += Int64(milliseconds) * 1_000_000
    }
}

extension KeyboardLayout.Key {
    /// The gesture plan for this key: the UIControl events a gesture sends it (see
    /// `Gesture.steps`), timed from `start`, only those it has an action for; and how long it lasts.
    func plan(_ gesture: Gesture, from start: Int64) -> (events: [KeyEvent], duration: Int64) {
        let plan = gesture.steps(repeats: repeats, hasLongPress: longPressAction != nil)
        let events = plan.steps.filter { action(for: $0.kind) != nil }.map {
            KeyEvent(kind: $0.kind, tapCount: $0.tapCount, repeatCount: $0.repeatCount,
                     timestampNanoseconds: start + $0.atNanoseconds)
        }
        return (events, plan.duration)
    }
}
