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

// The settings rules that cycle, over the registry, now.
extension KeyboardSettings {
    /// `disable(_:at:entry:)` among the registry's keyboards, now.
    public mutating func disable(_ id: String, registry: KeyboardRegistry) {
        disable(id, at: Date().timeIntervalSince1970, entry: registry.entry)
    }

    /// `forget(_:at:entry:)` among the registry's keyboards, now.
    public mutating func forget(_ id: String, registry: KeyboardRegistry) {
        forget(id, at: Date().timeIntervalSince1970, entry: registry.entry)
    }
}
