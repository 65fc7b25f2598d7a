import KBCore
import KBWire

extension KeyboardLayout {
    /// The layout a keyboard sent, as the host keeps it: each key with its row and column.
    init(_ wire: WireLayout) {
        self.init(display: wire.display, rows: wire.rows.enumerated().map { r, row in
            row.enumerated().map { c, k in
                Key(identifier: k.identifier, label: k.label, role: Key.Role(k.role), width: k.width, action: k.action,
                    touchDownAction: k.touchDownAction, longPressAction: k.longPressAction,
                    doubleTapAction: k.doubleTapAction, repeats: k.repeats, row: r, column: c)
            }
        })
    }
}

extension KeyboardLayout.KeyExtras {
    /// A key's extras as the keyboard sent them.
    init(_ wire: KBWire.KeyExtras) {
        self.init(payload: wire.payload, alternates: wire.alternates, dragAction: wire.dragAction)
    }
}
