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
                let identifier = key.identifier ?? "r\(r)c\(k)"
                let alternates = key.alternates.map { strdup($0).map { UnsafePointer($0) } }
                defer { alternates.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
                withCString(key.payload) { payload in
                    alternates.withUnsafeBufferPointer { list in
                        var extras = kbh_key_extras_v1(struct_size: UInt32(MemoryLayout<kbh_key_extras_v1>.size), payload: payload,
                                                       alternates: list.baseAddress, alternate_count: UInt32(list.count))
                        _ = identifier.withCString { host.pointee.set_key_extras(host.pointee.ctx, $0, &extras) }
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
