import CKeyboardABI

/// What a key is for. The host finds "space", "return", "delete", "shift"
/// and "globe" by role, whatever the key's label says.
public enum KeyRole: UInt32, Sendable {
    case character = 0, space, `return`, delete, shift, globe, mode, function
}

/// One key of a layout. Actions name methods of the controller (its
/// `keyActions`), as `addTarget(_:action:for:)` names selectors in UIKit.
public struct KeySpec: Hashable, Sendable {
    public var identifier: String?
    public var label: String
    public var role: KeyRole
    /// Width relative to a standard key.
    public var width: Double
    /// Called on a tap (touch up inside).
    public var action: String?
    public var touchDownAction: String?
    public var longPressAction: String?
    public var doubleTapAction: String?
    /// While the key is held, its action repeats (after 0.4 s, then every 0.1 s).
    public var repeats: Bool

    public init(_ label: String, identifier: String? = nil, role: KeyRole = .character, width: Double = 1,
                action: String? = "insertKeyLabel:", touchDownAction: String? = nil, longPressAction: String? = nil,
                doubleTapAction: String? = nil, repeats: Bool = false) {
        self.identifier = identifier
        self.label = label
        self.role = role
        self.width = width
        self.action = action
        self.touchDownAction = touchDownAction
        self.longPressAction = longPressAction
        self.doubleTapAction = doubleTapAction
        self.repeats = repeats
    }

    /// A key that inserts its label.
    public static func character(_ label: String, width: Double = 1) -> KeySpec { KeySpec(label, width: width) }
    /// The space bar.
    public static func space(_ label: String = "space", width: Double = 4) -> KeySpec {
        KeySpec(label, role: .space, width: width, action: "insertSpace")
    }
    /// Return: inserts a newline.
    public static func `return`(_ label: String = "return", width: Double = 2) -> KeySpec {
        KeySpec(label, role: .return, width: width, action: "insertNewline")
    }
    /// Delete: deletes backward when the document has text, and repeats while held.
    public static func delete(_ label: String = "⌫", width: Double = 1.5) -> KeySpec {
        KeySpec(label, role: .delete, width: width, action: "deleteBackward", repeats: true)
    }
    /// The globe key: the next keyboard on a tap, the input mode list on a long press.
    public static func globe(_ label: String = "🌐") -> KeySpec {
        KeySpec(label, role: .globe, action: "handleInputModeListFrom:with:",
                longPressAction: "handleInputModeListFrom:with:")
    }
}

/// Rows of keys, and a display line above them (a calculator's expression,
/// a composition). Set it on the controller at any time.
public struct KeyboardLayout: Hashable, Sendable {
    public var display: String
    public var rows: [[KeySpec]]

    public init(display: String = "", rows: [[KeySpec]]) {
        self.display = display
        self.rows = rows
    }
}

/// The sender of a key action.
public struct Key: Hashable, Sendable {
    public var identifier: String
    public var label: String
    public var role: KeyRole
    public var row: Int
    public var column: Int

    init(_ c: UnsafePointer<kbh_key_v1>) {
        identifier = c.pointee.identifier.map { String(cString: $0) } ?? ""
        label = c.pointee.label.map { String(cString: $0) } ?? ""
        role = KeyRole(rawValue: c.pointee.role.rawValue) ?? .function
        row = Int(c.pointee.row)
        column = Int(c.pointee.column)
    }

    public init(identifier: String, label: String, role: KeyRole = .character, row: Int = 0, column: Int = 0) {
        self.identifier = identifier
        self.label = label
        self.role = role
        self.row = row
        self.column = column
    }
}

/// The event of a key action: what happened and when.
public struct KeyEvent: Hashable, Sendable {
    public enum Kind: UInt32, Sendable { case touchUpInside = 0, touchDown, touchDownRepeat, longPress, `repeat` }
    public var kind: Kind
    public var tapCount: Int
    public var repeatCount: Int
    /// Nanoseconds on the session's clock (virtual in tests).
    public var timestampNanoseconds: Int64

    init(_ c: UnsafePointer<kbh_event_v1>) {
        kind = Kind(rawValue: c.pointee.kind.rawValue) ?? .touchUpInside
        tapCount = Int(c.pointee.tap_count)
        repeatCount = Int(c.pointee.repeat_count)
        timestampNanoseconds = c.pointee.timestamp_ns
    }

    public init(kind: Kind, tapCount: Int = 1, repeatCount: Int = 0, timestampNanoseconds: Int64 = 0) {
        self.kind = kind
        self.tapCount = tapCount
        self.repeatCount = repeatCount
        self.timestampNanoseconds = timestampNanoseconds
    }
}
