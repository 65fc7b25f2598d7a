/// How people name keys, in `kbhost type` and in tests: "space", "return",
/// "delete", "shift" and "globe" name the key with that role whatever its
/// label; "id:NAME" names a key by identifier; anything else is a label.
public enum KeyNaming {
    public static let roleNames: [String: KeyRole] = [
        "space": .space, "return": .return, "delete": .delete, "shift": .shift, "globe": .globe,
    ]

    /// The row and column of the key a name refers to, if any.
    public static func find<Key>(_ name: String, in rows: [[Key]], label: (Key) -> String,
                                 identifier: (Key) -> String, role: (Key) -> KeyRole) -> (row: Int, column: Int)? {
        func first(where match: (Key) -> Bool) -> (row: Int, column: Int)? {
            for (r, row) in rows.enumerated() {
                if let c = row.firstIndex(where: match) { return (r, c) }
            }
            return nil
        }
        if let wanted = roleNames[name], let found = first(where: { role($0) == wanted }) { return found }
        if name.hasPrefix("id:") {
            let id = name.dropFirst(3)
            return first { identifier($0) == id }
        }
        return first { label($0) == name }
    }
}

extension WireLayout {
    public func position(ofKeyNamed name: String) -> (row: Int, column: Int)? {
        KeyNaming.find(name, in: rows, label: \.label, identifier: \.identifier, role: \.role)
    }
}
