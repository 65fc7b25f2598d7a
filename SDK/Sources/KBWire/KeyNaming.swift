/// How people name keys, in `kbhost type` and in tests: "space", "return",
/// "delete", "shift" and "globe" name the key with that role whatever its
/// label; "id:NAME" names a key by identifier; anything else is a label.
package enum KeyNaming {
    package static let roleNames: [String: KeyRole] = [
        "space": .space, "return": .return, "delete": .delete, "shift": .shift, "globe": .globe,
    ]

    /// Every name a layout's keys answer to, for lookups in O(1): the same
    /// answers as `find`, computed once per layout.
    package static func index<Key>(_ rows: [[Key]], label: (Key) -> String, identifier: (Key) -> String,
                                  role: (Key) -> KeyRole) -> [String: Position] {
        var index: [String: Position] = [:]
        for (r, row) in rows.enumerated().reversed() {
            for (c, key) in row.enumerated().reversed() {
                index[label(key)] = Position(row: r, column: c)
                index["id:" + identifier(key)] = Position(row: r, column: c)
            }
        }
        for (name, wanted) in roleNames {
            if let found = find(name, in: rows, label: label, identifier: identifier, role: role), role(rows[found.row][found.column]) == wanted {
                index[name] = Position(row: found.row, column: found.column)
            }
        }
        return index
    }

    package struct Position: Hashable, Sendable {
        package var row: Int
        package var column: Int

        package init(row: Int, column: Int) {
            self.row = row
            self.column = column
        }
    }

    /// The row and column of the key a name refers to, if any.
    package static func find<Key>(_ name: String, in rows: [[Key]], label: (Key) -> String,
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
    package func position(ofKeyNamed name: String) -> (row: Int, column: Int)? {
        KeyNaming.find(name, in: rows, label: \.label, identifier: \.identifier, role: \.role)
    }
}
