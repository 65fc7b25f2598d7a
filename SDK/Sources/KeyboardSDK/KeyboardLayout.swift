import CKeyboardABI

/// What a key is for. The host finds "space", "return", "delete", "shift"
/// and "globe" by role, whatever the key's label says. Each raw value is the
/// kbh_key_role constant of the same name, written out so that reordering the
/// cases changes nothing (KeyboardSDKTests checks each against the header).
public enum KeyRole: UInt32, Sendable {
    /// A key that types something (the default).
    case character = 0
    /// The space bar.
    case space = 1
    /// Return (or a field's Go, Search, Done…).
    case `return` = 2
    /// Delete backward.
    case delete = 3
    /// Shift (or caps lock).
    case shift = 4
    /// The globe key: the next keyboard.
    case globe = 5
    /// A key that switches pages of the layout ("123", "ABC").
    case mode = 6
    /// Any other key: a candidate, a tool, a spacer.
    case function = 7
}

/// One key of a layout. Its actions name methods of the controller, as
/// `addTarget(_:action:for:)` names selectors in UIKit: pass the controller's
/// `KeyAction` constants (typed, checked by the compiler), or selector
/// strings (checked when the layout is set).
public struct KeySpec: Hashable, Sendable {
    /// The key's name in scripts and tests (`id:NAME`), unique in the layout; nil: "r0c0" from its place.
    public var identifier: String?
    /// What the key shows.
    public var label: String
    /// What the key is for.
    public var role: KeyRole
    /// Width relative to a standard key.
    public var width: Double
    /// The selector called on a tap (touch up inside); nil: none.
    public var action: String?
    /// The selector called when a touch begins on the key.
    public var touchDownAction: String?
    /// The selector called on a long press.
    public var longPressAction: String?
    /// The selector called on the second tap of a double tap.
    public var doubleTapAction: String?
    /// While the key is held, its action repeats (after 0.4 s, then every 0.1 s).
    public var repeats: Bool
    /// A string the key carries for its actions (`Key.payload`): keys that share one action
    /// (five mode keys, one `setMode:`) read it instead of parsing their identifier or label.
    public var payload: String?
    /// What a long press offers in the key's place, as iOS's callouts (e: é è ê): the one the
    /// person picks calls the key's `action` with an `.alternate` event, the sender's label being
    /// the alternate (so a key that inserts its label types it). Let go without picking: a tap.
    public var alternates: [String]
    /// The selector a drag that begins on the key calls, with `.dragBegan`, `.dragMoved` and
    /// `.dragEnded` events whose `touch` says where the finger is (a space bar that moves the
    /// cursor, swipe typing); the key then gets no tap for it. nil: a drag is no tap, nothing more.
    public var dragAction: String?

    /// A key whose actions are selectors of the controller's `keyActions`
    /// (or the built-in ones); by default it inserts its label.
    public init(_ label: String, identifier: String? = nil, role: KeyRole = .character, width: Double = 1,
                action: String? = KeyAction.insertKeyLabel.selector, touchDownAction: String? = nil,
                longPressAction: String? = nil, doubleTapAction: String? = nil, repeats: Bool = false,
                payload: String? = nil, alternates: [String] = [], dragAction: String? = nil) {
        self.identifier = identifier
        self.label = label
        self.role = role
        self.width = width
        self.action = action
        self.touchDownAction = touchDownAction
        self.longPressAction = longPressAction
        self.doubleTapAction = doubleTapAction
        self.repeats = repeats
        self.payload = payload
        self.alternates = alternates
        self.dragAction = dragAction
    }

    /// A key whose actions are `KeyAction`s: `KeySpec("A", action: HexViewController.insertDigit)`.
    /// Each must also be in the controller's `keyActions` (the built-in ones always are).
    public init(_ label: String, identifier: String? = nil, role: KeyRole = .character, width: Double = 1,
                action: KeyAction, touchDownAction: KeyAction? = nil, longPressAction: KeyAction? = nil,
                doubleTapAction: KeyAction? = nil, repeats: Bool = false, payload: String? = nil,
                alternates: [String] = [], dragAction: KeyAction? = nil) {
        self.init(label, identifier: identifier, role: role, width: width, action: action.selector,
                  touchDownAction: touchDownAction?.selector, longPressAction: longPressAction?.selector,
                  doubleTapAction: doubleTapAction?.selector, repeats: repeats, payload: payload, alternates: alternates,
                  dragAction: dragAction?.selector)
    }

    /// A key that inserts its label and offers alternates on a long press: `.character("e", alternates: ["é", "è"])`.
    public static func character(_ label: String, width: Double = 1, alternates: [String]) -> KeySpec {
        KeySpec(label, width: width, alternates: alternates)
    }

    /// Whether the key has anything to send beyond its kbh_key_spec_v1 (set_key_extras).
    var hasExtras: Bool { payload != nil || !alternates.isEmpty || dragAction != nil }

    /// A key that inserts its label.
    public static func character(_ label: String, width: Double = 1) -> KeySpec { KeySpec(label, width: width) }
    /// The space bar.
    public static func space(_ label: String = "space", width: Double = 4) -> KeySpec {
        KeySpec(label, role: .space, width: width, action: .insertSpace)
    }
    /// Return: inserts a newline.
    public static func `return`(_ label: String = "return", width: Double = 2) -> KeySpec {
        KeySpec(label, role: .return, width: width, action: .insertNewline)
    }
    /// Delete: deletes backward, and repeats while held.
    public static func delete(_ label: String = "⌫", width: Double = 1.5) -> KeySpec {
        KeySpec(label, role: .delete, width: width, action: .deleteBackward, repeats: true)
    }
    /// The globe key: the next keyboard on a tap, the input mode list on a long press.
    public static func globe(_ label: String = "🌐") -> KeySpec {
        KeySpec(label, role: .globe, action: .handleInputModeList, longPressAction: .handleInputModeList)
    }
}

/// Rows of keys, and a display line above them (a calculator's expression,
/// a composition). Set it on the controller at any time.
public struct KeyboardLayout: Hashable, Sendable {
    /// The line above the keys; empty: none.
    public var display: String
    /// The keys, top row first.
    public var rows: [[KeySpec]]

    /// A layout of rows, with an optional display line.
    public init(display: String = "", rows: [[KeySpec]]) {
        self.display = display
        self.rows = rows
    }
}

/// The sender of a key action.
public struct Key: Hashable, Sendable {
    /// The key's identifier in the layout ("r0c0" from its place when the layout gave none).
    public var identifier: String
    /// What the key shows.
    public var label: String
    /// What the key is for.
    public var role: KeyRole
    /// Its row in the layout, from 0 at the top.
    public var row: Int
    /// Its place in the row, from 0 at the left.
    public var column: Int
    /// The string its `KeySpec` carries (`KeySpec.payload`); nil: none, or a host too old to keep one.
    public var payload: String?

    init(_ c: UnsafePointer<kbh_key_v1>, host: UnsafePointer<kbh_host_v1>) {
        identifier = c.pointee.identifier.map { String(cString: $0) } ?? ""
        label = c.pointee.label.map { String(cString: $0) } ?? ""
        role = KeyRole(rawValue: c.pointee.role.rawValue) ?? .function
        row = Int(c.pointee.row)
        column = Int(c.pointee.column)
        // By its place, as its extras were given: identifiers may repeat in a layout.
        if hostHas(host, \.key_payload), let p = "r\(row)c\(column)".withCString({ host.pointee.key_payload(host.pointee.ctx, $0) }) {
            payload = String(cString: p)
        }
    }

    /// A sender, for calling an action directly (tests).
    public init(identifier: String, label: String, role: KeyRole = .character, row: Int = 0, column: Int = 0,
                payload: String? = nil) {
        self.identifier = identifier
        self.label = label
        self.role = role
        self.row = row
        self.column = column
        self.payload = payload
    }
}

/// The event of a key action: what happened and when.
public struct KeyEvent: Hashable, Sendable {
    /// What happened, as UIControl.Event names it.
    public enum Kind: UInt32, Sendable {
        /// A tap: the touch ended on the key.
        case touchUpInside = 0
        /// A touch began on the key.
        case touchDown
        /// A touch began on the key again, soon after a tap (a double tap's second touch).
        case touchDownRepeat
        /// The key was held (the long press action).
        case longPress
        /// The key is held and repeats (`repeats: true`).
        case `repeat`
        /// The person picked one of the key's alternates on a long press (`KeySpec.alternates`):
        /// sent to its `action`, the sender's label being the alternate picked.
        case alternate
        /// A drag began on a key with a `dragAction` (`touch`: at the key's centre).
        case dragBegan
        /// The drag moved (`touch`: where to).
        case dragMoved
        /// The drag ended (`touch`: where it let go).
        case dragEnded
    }
    /// What happened.
    public var kind: Kind
    /// 1 for a tap, 2 for a double tap's second.
    public var tapCount: Int
    /// 1, 2, … while a held key repeats.
    public var repeatCount: Int
    /// Nanoseconds on the session's clock (virtual in tests).
    public var timestampNanoseconds: Int64
    /// For a drag's events: where the touch is; nil for the others.
    public var touch: KeyTouch?

    init(_ c: UnsafePointer<kbh_event_v1>, host: UnsafePointer<kbh_host_v1>) {
        kind = Kind(rawValue: c.pointee.kind.rawValue) ?? .touchUpInside
        tapCount = Int(c.pointee.tap_count)
        repeatCount = Int(c.pointee.repeat_count)
        timestampNanoseconds = c.pointee.timestamp_ns
        if [.dragBegan, .dragMoved, .dragEnded].contains(kind) { touch = KeyTouch(host: host) }
    }

    /// An event, for calling an action directly (tests).
    public init(kind: Kind, tapCount: Int = 1, repeatCount: Int = 0, timestampNanoseconds: Int64 = 0, touch: KeyTouch? = nil) {
        self.kind = kind
        self.tapCount = tapCount
        self.repeatCount = repeatCount
        self.timestampNanoseconds = timestampNanoseconds
        self.touch = touch
    }
}
