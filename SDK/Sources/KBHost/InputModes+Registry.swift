import Foundation
import KBCore

// The cycling rules over the registry, now.
extension InputModes {
    /// The keyboard to use for a field (see `active(_:field:at:entry:)`), among the registry's, now.
    public static func active(_ settings: KeyboardSettings, registry: KeyboardRegistry, field: FieldContext) -> String {
        active(settings, field: field, at: Date().timeIntervalSince1970, entry: registry.entry)
    }

    /// advanceToNextInputMode (see `next(_:field:at:entry:)`), among the registry's keyboards, now.
    public static func next(_ settings: KeyboardSettings, registry: KeyboardRegistry, field: FieldContext) -> String {
        next(settings, field: field, at: Date().timeIntervalSince1970, entry: registry.entry)
    }
}
