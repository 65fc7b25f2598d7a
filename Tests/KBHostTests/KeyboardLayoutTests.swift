@testable import KBHost
import KBWire
import Testing

@Suite("Finding keys by name")
struct KeyboardLayoutTests {
    func key(_ label: String, _ role: KeyboardLayout.Key.Role = .character, id: String? = nil, column: Int) -> KeyboardLayout.Key {
        KeyboardLayout.Key(identifier: id ?? label, label: label, role: role, width: 1, action: "a", touchDownAction: nil,
                           longPressAction: nil, doubleTapAction: nil, repeats: false, row: 0, column: column)
    }

    @Test func roleNamesWinOverLabels() {
        let layout = KeyboardLayout(rows: [[key("delete", column: 0), key("⌫", .delete, column: 1), key("␣", .space, id: "sp", column: 2)]])
        #expect(layout.key(named: "delete")?.column == 1, "'delete' is the key whose role is delete")
        #expect(layout.key(named: "space")?.label == "␣")
        #expect(layout.key(named: "id:sp")?.column == 2)
        #expect(layout.key(named: "⌫")?.column == 1)
        #expect(layout.key(named: "globe") == nil)
    }
}

@Suite("Key roles")
struct KeyRoleTests {
    @Test func hostAndWireRolesMapByName() {
        #expect(KeyboardLayout.Key.Role.allCases.count == KeyRole.allCases.count)
        for role in KeyboardLayout.Key.Role.allCases {
            #expect(String(describing: KeyRole(role)) == role.rawValue)
            #expect(KeyboardLayout.Key.Role(KeyRole(role)) == role)
        }
    }
}

@Suite("The host's key roles and the wire's")
struct KeyRoleMappingTests {
    @Test("Each host role maps to the wire role of the same name and back", arguments: KeyboardLayout.Key.Role.allCases)
    func mappedByName(role: KeyboardLayout.Key.Role) {
        let wire = KeyRole(role)
        #expect("\(wire)" == role.rawValue, "KeyboardLayout.Key.Role.\(role) goes on the wire as .\(wire)")
        #expect(KeyboardLayout.Key.Role(wire) == role)
    }

    @Test func everyWireRoleHasAHostRole() {
        #expect(Set(KeyRole.allCases.map { KeyboardLayout.Key.Role($0).rawValue }) == Set(KeyRole.allCases.map { "\($0)" }))
    }

    /// WireLimits charges a key its wire struct decoded, then the host's own key and its two
    /// index entries (label, "id:" identifier): those must fit in what it charges.
    @Test func theHostsCopyOfAKeyFitsWhatTheWireLimitsCharge() {
        // A dictionary entry: its key and value, in a table half full on average (3/8 to 3/4).
        let entry = (MemoryLayout<String>.stride + MemoryLayout<KeyNaming.Position>.stride) * 2
        let host = MemoryLayout<WireKey>.stride + MemoryLayout<KeyboardLayout.Key>.stride + 2 * entry
        #expect(host <= WireLimits.keyCost, "WireKey \(MemoryLayout<WireKey>.stride) B, Key \(MemoryLayout<KeyboardLayout.Key>.stride) B, 2 entries of \(entry) B")
    }
}
