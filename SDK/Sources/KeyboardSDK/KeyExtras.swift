import CKeyboardABI
import Glibc

// A key's extras (kbhost_keyboard_inputs.h's kbh_key_extras_v1): what a KeySpec carries beyond
// the fixed kbh_key_spec_v1, sent after the layout with set_key_extras.

extension KeyboardPlugin {
    /// Gives each key of `layout` that has extras its kbh_key_extras_v1, right after set_layout.
    /// A host older than set_key_extras keeps none: the keys work, their `Key.payload` is nil
    /// and a long press shows no alternates.
    static func sendExtras(of layout: KeyboardLayout, to host: UnsafePointer<kbh_host_v1>) {
        guard hostHas(host, \.set_key_extras) else { return }
        for (r, row) in layout.rows.enumerated() {
            for (k, key) in row.enumerated() where key.hasExtras {
                let identifier = "r\(r)c\(k)"  // its place: identifiers may repeat in a layout
                let alternates = key.alternates.map { strdup($0).map { UnsafePointer($0) } }
                defer { alternates.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
                withCString(key.payload) { payload in
                    withCString(key.dragAction) { dragAction in
                        alternates.withUnsafeBufferPointer { list in
                            var extras = kbh_key_extras_v1()
                            extras.struct_size = UInt32(MemoryLayout<kbh_key_extras_v1>.size)
                            extras.payload = payload
                            extras.alternates = list.baseAddress
                            extras.alternate_count = UInt32(list.count)
                            extras.drag_action = dragAction
                            _ = identifier.withCString { host.pointee.set_key_extras(host.pointee.ctx, $0, &extras) }
                        }
                    }
                }
            }
        }
    }
}

/// `body` with a C string of `text`, or NULL when there is none.
func withCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

/// Where a drag's touch is, in points in the layout's space: the keyboard's picture in its current
/// orientation, as `kbhost preview --json` lays it out (origin at its top left).
public struct KeyTouch: Hashable, Sendable {
    /// The touch now.
    public var x: Double
    /// The touch now.
    public var y: Double
    /// How far it has moved, right, since the drag began (at the key's centre).
    public var dx: Double
    /// How far it has moved, down, since the drag began.
    public var dy: Double
    /// The identifier of the key under the touch (swipe typing); nil: none.
    public var key: String?

    /// A touch, for calling a drag action directly (tests).
    public init(x: Double, y: Double, dx: Double = 0, dy: Double = 0, key: String? = nil) {
        (self.x, self.y, self.dx, self.dy, self.key) = (x, y, dx, dy, key)
    }

    /// The host's answer while a drag action runs; nil outside one, or from a host without touch().
    init?(host: UnsafePointer<kbh_host_v1>) {
        guard hostHas(host, \.touch) else { return nil }
        var c = kbh_touch_v1()
        c.struct_size = UInt32(MemoryLayout<kbh_touch_v1>.size)
        guard host.pointee.touch(host.pointee.ctx, &c) == 0 else { return nil }
        self.init(x: c.x, y: c.y, dx: c.dx, dy: c.dy, key: c.key.map { String(cString: $0) })
    }
}
