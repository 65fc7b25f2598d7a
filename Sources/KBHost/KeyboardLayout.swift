import KBWire

/// The layout a keyboard shows: rows of keys and a display line. Read-only
/// for the host; the keyboard sets it.
public struct KeyboardLayout: Hashable, Sendable {
    public struct Key: Hashable, Sendable {
        public enum Role: String, Hashable, Sendable, CaseIterable {
            case character, space, `return`, delete, shift, globe, mode, function
        }
        public var identifier: String
        public var label: String
        public var role: Role
        public var width: Double
        public var action: String?
        public var touchDownAction: String?
        public var longPressAction: String?
        public var doubleTapAction: String?
        public var repeats: Bool
        public var row: Int
        public var column: Int
    }

    public var display: String
    public var rows: [[Key]]

    public init(display: String = "", rows: [[Key]] = []) {
        self.display = display
        self.rows = rows
    }

    init(_ wire: WireLayout) {
        display = wire.display
        rows = wire.rows.enumerated().map { r, row in
            row.enumerated().map { c, k in
                Key(identifier: k.identifier, label: k.label, role: Key.Role(k.role), width: k.width, action: k.action,
                    touchDownAction: k.touchDownAction, longPressAction: k.longPressAction,
                    doubleTapAction: k.doubleTapAction, repeats: k.repeats, row: r, column: c)
            }
        }
    }

    /// Finds a key by what a person would call it: "space", "return",
    /// "delete", "shift" and "globe" name the key with that role; "id:NAME"
    /// names a key by identifier; anything else is a label.
    public func key(named name: String) -> Key? {
        let all = rows.joined()
        if let role = Key.Role(rawValue: name), role != .character, role != .mode, role != .function,
           let key = all.first(where: { $0.role == role }) {
            return key
        }
        if name.hasPrefix("id:") {
            let id = name.dropFirst(3)
            return all.first { $0.identifier == id }
        }
        return all.first { $0.label == name }
    }

    /// Every key's label, row by row (for messages and the terminal view).
    public var labels: [[String]] { rows.map { $0.map(\.label) } }
}

extension KeyboardLayout.Key.Role {
    init(_ wire: KeyRole) {
        self = switch wire {
        case .character: .character
        case .space: .space
        case .return: .return
        case .delete: .delete
        case .shift: .shift
        case .globe: .globe
        case .mode: .mode
        case .function: .function
        }
    }
}
