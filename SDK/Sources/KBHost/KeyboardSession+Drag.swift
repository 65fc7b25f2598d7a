public import KBCore
import KBText
import KBWire

// MARK: Drags: a touch that moves, in the layout's space

extension KeyboardSession {
    /// How long each point of a drag takes on the session's clock (a touch moves at 60 Hz or so).
    public static let dragStepNanoseconds: Int64 = 16_000_000

    /// A drag from the centre of a key through `path` (points from there, in points; the last is
    /// where it ends), in the layout's space: the keyboard's picture in its orientation
    /// (`KeyboardPicture`, as `kbhost preview --json` prints it). A key with a drag action
    /// (KeySpec.dragAction) gets it with drag began, moved at each point, then ended at the last,
    /// each with where the touch is and the key under it. Any other key gets its touch-down
    /// action only: the touch left it, which is no tap.
    public func drag(_ name: String, path: [TapStep.DragOffset]) throws(SessionError) {
        guard let key = layout.key(named: name) else {
            throw .noSuchKey(name: name, keyboardID: keyboard.identifier, labels: Array(layout.labels.joined()))
        }
        do { try drag(key, path: path) } catch { throw .keyboardFailed(error) }
    }

    /// The same, on a key of the layout.
    public func drag(_ key: KeyboardLayout.Key, path: [TapStep.DragOffset]) throws(KeyboardFailure) {
        let start = clockNanoseconds
        let picture = KeyboardPicture(keyboard: keyboard.identifier, layout: layout, orientation: orientation)
        guard layout.extras(of: key)?.dragAction != nil,
              let frame = picture.keys.first(where: { $0.row == key.row && $0.column == key.column })?.frame else {
            if key.touchDownAction != nil {
                try deliver(.key(row: Int32(key.row), column: Int32(key.column), event: KeyEvent(kind: .touchDown, timestampNanoseconds: start)),
                            phase: "key '\(key.label)' drag")
            }
            clockNanoseconds = start + Int64(path.count + 1) * Self.dragStepNanoseconds
            return
        }
        let (x0, y0) = (frame.x + frame.width / 2, frame.y + frame.height / 2)
        func touch(_ phase: DragTouch.Phase, _ offset: TapStep.DragOffset) -> DragTouch {
            let (x, y) = (x0 + offset.dx, y0 + offset.dy)
            let under = picture.keys.first { k in
                k.style != .gap && x >= k.frame.x && x < k.frame.x + k.frame.width && y >= k.frame.y && y < k.frame.y + k.frame.height
            }
            return DragTouch(phase: phase, x: x, y: y, dx: offset.dx, dy: offset.dy, keyUnder: under?.identifier,
                             timestampNanoseconds: clockNanoseconds)
        }
        let steps = [(DragTouch.Phase.began, TapStep.DragOffset(dx: 0))] + path.map { (.moved, $0) }
            + [(.ended, path.last ?? TapStep.DragOffset(dx: 0))]
        var held = key
        for (phase, offset) in steps {
            // The keyboard may redraw during the drag (swipe typing shows suggestions): the touch
            // follows its key (`key(following:)`), and ends quietly if the key or its drag action is gone.
            if phase != .began {
                guard let now = layout.key(following: held), layout.extras(of: now)?.dragAction != nil else { break }
                held = now
            }
            try deliver(.drag(row: Int32(held.row), column: Int32(held.column), touch: touch(phase, offset)),
                        phase: "key '\(key.label)' drag")
            clockNanoseconds += Self.dragStepNanoseconds
        }
    }
}
