public import KBText
package import KBWire

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

        public init(identifier: String, label: String, role: Role, width: Double, action: String?, touchDownAction: String?,
                    longPressAction: String?, doubleTapAction: String?, repeats: Bool, row: Int, column: Int) {
            self.identifier = identifier
            self.label = label
            self.role = role
            self.width = width
            self.action = action
            self.touchDownAction = touchDownAction
            self.longPressAction = longPressAction
            self.doubleTapAction = doubleTapAction
            self.repeats = repeats
            self.row = row
            self.column = column
        }

        /// The selector this key calls for an event kind, if any (nothing is sent otherwise).
        public func action(for kind: KeyEventKind) -> String? {
            kind.selector(action: action, touchDown: touchDownAction, longPress: longPressAction,
                          doubleTap: doubleTapAction, repeats: repeats)
        }
    }

    /// What a key carries beyond its `Key`, given after the layout (kbh_key_extras_v1):
    /// most keys have none, so they are kept apart from the keys.
    public struct KeyExtras: Hashable, Sendable {
        /// The string the key's actions read (KeySpec.payload); nil: none.
        public var payload: String?
        /// What a long press offers in its place (KeySpec.alternates), in order.
        public var alternates: [String]
        /// The selector a drag that begins on the key calls (KeySpec.dragAction); nil: none.
        public var dragAction: String?

        public init(payload: String? = nil, alternates: [String] = [], dragAction: String? = nil) {
            self.payload = payload
            self.alternates = alternates
            self.dragAction = dragAction
        }

        /// About what holding these takes: the strings' bytes and a string's own cost each.
        var bytes: Int {
            64 + (payload?.utf8.count ?? 0) + (dragAction?.utf8.count ?? 0) + alternates.reduce(0) { $0 + 16 + $1.utf8.count }
        }
    }

    public var display: String
    public private(set) var rows: [[Key]]
    /// Every name a key answers to (see `key(named:)`), computed once per layout.
    private var names: [String: KeyNaming.Position] = [:]
    /// The keys' extras, by place (only keys that have some).
    private var extras: [KeyNaming.Position: KeyExtras] = [:]
    /// About what the extras take to hold, in bytes. Each call's are bounded on the wire; a
    /// keyboard could still pile up a call's worth a key, call after call, in the host's memory,
    /// which no budget sees: the host fails a keyboard whose extras go past its limit.
    public private(set) var extrasBytes = 0

    public init(display: String = "", rows: [[Key]] = []) {
        self.display = display
        self.rows = rows
        names = KeyboardLayout.index(rows)
    }

    public static func == (a: KeyboardLayout, b: KeyboardLayout) -> Bool {
        a.display == b.display && a.rows == b.rows && a.extras == b.extras
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(display)
        hasher.combine(rows)
        hasher.combine(extras)
    }

    /// A key's extras (its payload…), nil when it has none.
    public func extras(of key: Key) -> KeyExtras? { extras(row: key.row, column: key.column) }

    /// The extras of the key at a place, nil when it has none or there is no key there.
    public func extras(row: Int, column: Int) -> KeyExtras? {
        extras[KeyNaming.Position(row: row, column: column)]
    }

    /// The payload of the key a name finds (`key(named:)`), nil when it has none or there is no such key.
    public func payload(ofKeyNamed name: String) -> String? {
        key(named: name).flatMap { extras(of: $0)?.payload }
    }

    /// Gives the key at a place extras (none: `KeyExtras()`); false when the layout has no key there.
    @discardableResult
    public mutating func setExtras(_ value: KeyExtras, row: Int, column: Int) -> Bool {
        guard rows.indices.contains(row), rows[row].indices.contains(column) else { return false }
        let place = KeyNaming.Position(row: row, column: column)
        extrasBytes -= extras[place]?.bytes ?? 0
        extras[place] = value == KeyExtras() ? nil : value
        extrasBytes += extras[place]?.bytes ?? 0
        return true
    }

    private static func index(_ rows: [[Key]]) -> [String: KeyNaming.Position] {
        KeyNaming.index(rows, label: \.label, identifier: \.identifier, role: { KeyRole($0.role) })
    }

    /// Finds a key by what a person would call it (see `KeyNaming`): "space",
    /// "return", "delete", "shift", "globe" name roles; "id:NAME" an identifier;
    /// anything else is a label.
    public func key(named name: String) -> Key? {
        names[name].map { rows[$0.row][$0.column] }
    }

    /// A key of an earlier layout in this one, after the keyboard redrew during a gesture on it:
    /// at the same place if its identifier is still there (keys may share one), else the first
    /// key with its identifier; nil when none has it.
    public func key(following key: Key) -> Key? {
        if rows.indices.contains(key.row), rows[key.row].indices.contains(key.column),
           rows[key.row][key.column].identifier == key.identifier { return rows[key.row][key.column] }
        return self.key(named: "id:" + key.identifier)
    }

    /// What a person can type for labels a keyboard has in place of ASCII: `-`, `*`, `/` for `−`, `×`, `÷`.
    public static let typedAliases = ["-": "−", "*": "×", "/": "÷"]

    /// `name`, or the label it stands for (`typedAliases`) when this layout has no key `name` but has that one.
    public func keyName(typed name: String) -> String {
        guard key(named: name) == nil, let alias = Self.typedAliases[name], key(named: alias) != nil else { return name }
        return alias
    }

    /// Every key's label, row by row (for messages and the terminal view).
    public var labels: [[String]] { rows.map { $0.map(\.label) } }
}

// The host's roles and the wire's, mapped by name: reordering either enum changes nothing.
extension KeyRole {
    package init(_ role: KeyboardLayout.Key.Role) {
        switch role {
        case .character: self = .character
        case .space: self = .space
        case .return: self = .return
        case .delete: self = .delete
        case .shift: self = .shift
        case .globe: self = .globe
        case .mode: self = .mode
        case .function: self = .function
        }
    }
}

extension KeyboardLayout.Key.Role {
    /// The inverse of the switch above, so the pairs are written once.
    package init(_ wire: KeyRole) {
        self = KeyboardLayout.Key.Role.allCases.first { KeyRole($0) == wire }!
    }
}
