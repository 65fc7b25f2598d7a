// The input models' values on the wire (kbhost_keyboard_inputs.h): a key's extras, haptic
// feedback, a drag's touch. Their tags and field order are in MessageCoding+InputModels.swift.

/// What a key carries beyond its `WireKey` (kbhost_keyboard_inputs.h's kbh_key_extras_v1),
/// set after the layout: most keys have none, so they travel and live apart from the keys.
package struct KeyExtras: Hashable, Sendable {
    /// A string the key's actions read (KeySpec.payload); nil: none.
    package var payload: String?
    /// What a long press offers in its place (KeySpec.alternates), in order.
    package var alternates: [String]
    /// The selector a drag that begins on the key calls (KeySpec.dragAction); nil: none.
    package var dragAction: String?

    package init(payload: String? = nil, alternates: [String] = [], dragAction: String? = nil) {
        self.payload = payload
        self.alternates = alternates
        self.dragAction = dragAction
    }
}

/// `Effect.setKeyExtras`: the key at a place in the current layout, and its extras.
package struct KeyExtrasChange: Hashable, Sendable {
    package var row: Int32
    package var column: Int32
    package var extras: KeyExtras

    package init(row: Int32, column: Int32, extras: KeyExtras) {
        self.row = row
        self.column = column
        self.extras = extras
    }
}

/// Haptic feedback (UIFeedbackGenerator's kinds). Raw values are kbh_haptic's, written out;
/// KBExtensionRuntimeTests checks them against the header.
package enum Haptic: UInt8, CaseIterable, Sendable {
    case light = 0, medium = 1, heavy = 2, soft = 3, rigid = 4, selection = 5, success = 6, warning = 7, error = 8

    /// Its name in events ("haptic: light"), the case's.
    package var name: String { "\(self)" }
}

/// Where a drag's touch is, in points in the layout's space (kbhost_keyboard_inputs.h's kbh_touch_v1).
package struct DragTouch: Hashable, Sendable {
    /// Raw values: the event kinds' offsets from KBH_EVENT_DRAG_BEGAN.
    package enum Phase: UInt8, CaseIterable, Sendable { case began = 0, moved, ended }

    package var phase: Phase
    package var x: Double
    package var y: Double
    /// From where the drag began.
    package var dx: Double
    package var dy: Double
    /// The identifier of the key under the touch; nil: none.
    package var keyUnder: String?
    package var timestampNanoseconds: Int64

    package init(phase: Phase, x: Double, y: Double, dx: Double, dy: Double, keyUnder: String?, timestampNanoseconds: Int64) {
        self.phase = phase
        self.x = x
        self.y = y
        self.dx = dx
        self.dy = dy
        self.keyUnder = keyUnder
        self.timestampNanoseconds = timestampNanoseconds
    }
}
