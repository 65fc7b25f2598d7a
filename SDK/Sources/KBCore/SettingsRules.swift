/// What the user's commands do to the settings (`kbhost enable`, `disable`, `order`, `set`,
/// `access`, `uninstall`), as rules on the values: the caller finds the keyboards, reads the
/// clock and stores the result (KBHost's `SettingsStore.update` repairs and writes it).
extension KeyboardSettings {
    /// Adds a keyboard at the end of the globe key's order, if it is not there, with a fresh
    /// start: enabling a keyboard again forgets its failures (a set-aside one may run again).
    public mutating func enable(_ id: String) {
        if !enabled.contains(id) { enabled.append(id) }
        failures[id] = nil
    }

    /// Why a keyboard may not be disabled (the only enabled one cannot be), or nil.
    public func disableProblem(_ id: String) -> String? {
        enabled == [id] ? "is the only enabled keyboard; enable another one first" : nil
    }

    /// Takes a keyboard out of the globe key's order. When it was current and others are
    /// enabled, the next one (`InputModes.next`, for a plain field, at `now`) becomes current.
    public mutating func disable(_ id: String, at now: Double, entry: (String) -> KeyboardEntry?) {
        if current == id && enabled.count > 1 {
            current = InputModes.next(self, field: FieldContext(), at: now, entry: entry)
        }
        enabled.removeAll { $0 == id }
    }

    /// Everything the settings hold about a keyboard, gone (it is uninstalled): disabled as
    /// `disable` does, without full access, failures or allowed missing protections.
    public mutating func forget(_ id: String, at now: Double, entry: (String) -> KeyboardEntry?) {
        disable(id, at: now, entry: entry)
        fullAccess.removeAll { $0 == id }
        failures[id] = nil
        allowedMissingProtections[id] = nil
    }

    /// Puts `ids` first in the globe key's order, in the order given; the others keep theirs after them.
    public mutating func putFirst(_ ids: [String]) {
        enabled = ids + enabled.filter { !ids.contains($0) }
    }

    /// Grants or revokes full access (the caller checks that the manifest requests it).
    public mutating func setFullAccess(_ granted: Bool, for id: String) {
        fullAccess.removeAll { $0 == id }
        if granted { fullAccess.append(id) }
    }
}
