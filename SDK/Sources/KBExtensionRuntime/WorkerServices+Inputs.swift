import CKeyboardABI
import Glibc
import KBWire

// The services of the input models appended to the ABI (kbhost_keyboard_inputs.h): a key's
// extras. Structs the plugin fills carry their own struct_size; no field past it is read.

extension WorkerServices {
    func installInputModels() {
        table.pointee.set_key_extras = { ctx, identifier, extras in services(ctx).setKeyExtras(identifier, extras) }
        table.pointee.key_payload = { ctx, identifier in
            let s = services(ctx)
            // Most layouts carry no extras: then no index of the keys is made (the SDK asks on every action).
            guard !s.keyExtras.isEmpty, let identifier, let place = s.place(ofKey: String(cString: identifier)) else {
                return s.lend(12, nil)
            }
            return s.lend(12, s.keyExtras[place]?.payload)
        }
        table.pointee.play_haptic = { ctx, kind, intensity in services(ctx).playHaptic(kind, intensity) }
        table.pointee.touch = { ctx, out in services(ctx).touch(out) }
    }

    private func touch(_ out: UnsafeMutablePointer<kbh_touch_v1>?) -> Int32 {
        guard let touch = currentTouch else {
            lastError = "touch: no drag action is running"
            return ENOENT
        }
        guard let out else { return EINVAL }
        let raw = UnsafeMutableRawPointer(out), size = Int(out.pointee.struct_size)
        func put<T>(_ path: KeyPath<kbh_touch_v1, T>, _ value: T) {
            guard let offset = MemoryLayout<kbh_touch_v1>.offset(of: path), offset + MemoryLayout<T>.size <= size else { return }
            raw.storeBytes(of: value, toByteOffset: offset, as: T.self)
        }
        put(\.x, touch.x); put(\.y, touch.y); put(\.dx, touch.dx); put(\.dy, touch.dy)
        put(\.key, lend(13, touch.keyUnder))
        return 0
    }

    private func playHaptic(_ kind: Int32, _ intensity: Double) -> Int32 {
        guard let haptic = UInt8(exactly: kind).flatMap(Haptic.init(rawValue:)) else {
            lastError = "play_haptic: \(kind) is no kbh_haptic"
            return EINVAL
        }
        // As on iOS, a keyboard without full access feels nothing; here it is told so.
        guard requireFullAccess("haptic feedback") else { return EPERM }
        record(.haptic(haptic, intensity: intensity.isNaN ? 1 : min(max(intensity, 0), 1)))
        return 0
    }

    /// The place of the current layout's key with this identifier (the first, as `id:NAME` finds it),
    /// or, where no key has that identifier, `r<row>c<column>` (how the Swift SDK names a key's
    /// place, so that keys sharing an identifier keep their own extras).
    func place(ofKey identifier: String) -> KeyNaming.Position? {
        if identifierIndex == nil {
            var index: [String: KeyNaming.Position] = [:]
            for (r, row) in layout.rows.enumerated() {
                for c in row.indices { index["r\(r)c\(c)"] = KeyNaming.Position(row: r, column: c) }
            }
            for (r, row) in layout.rows.enumerated().reversed() {
                for (c, key) in row.enumerated().reversed() { index[key.identifier] = KeyNaming.Position(row: r, column: c) }
            }
            identifierIndex = index
        }
        return identifierIndex?[identifier]
    }

    private func setKeyExtras(_ identifier: UnsafePointer<CChar>?, _ c: UnsafePointer<kbh_key_extras_v1>?) -> Int32 {
        guard let identifier else { lastError = "set_key_extras: no key identifier"; return EINVAL }
        let name = String(cString: identifier)
        guard let place = place(ofKey: name) else {
            lastError = "set_key_extras: the layout has no key '\(name)' (a key given no identifier is r<row>c<column>, from 0)"
            return ENOENT
        }
        var extras = KeyExtras()
        if let c {
            let raw = UnsafeRawPointer(c), size = Int(c.pointee.struct_size)
            /// The field at `offset` when the plugin's struct has it (the plugin's struct_size covers it).
            func field<T>(_ path: KeyPath<kbh_key_extras_v1, T>) -> T? {
                guard let offset = MemoryLayout<kbh_key_extras_v1>.offset(of: path), offset + MemoryLayout<T>.size <= size else {
                    return nil
                }
                return raw.loadUnaligned(fromByteOffset: offset, as: T.self)
            }
            extras.payload = field(\.payload).flatMap { $0 }.map { String(cString: $0) }
            if let list = field(\.alternates).flatMap({ $0 }), let count = field(\.alternate_count) {
                guard count <= UInt32(WireLimits.maximumEffects) else {
                    lastError = "set_key_extras: \(count) alternates for key '\(name)'; at most \(WireLimits.maximumEffects)"
                    return EINVAL
                }
                for i in 0..<Int(count) {
                    guard let alternate = list[i] else {
                        lastError = "set_key_extras: alternate \(i) of key '\(name)' is NULL"
                        return EINVAL
                    }
                    extras.alternates.append(String(cString: alternate))
                }
            }
            extras.dragAction = field(\.drag_action).flatMap { $0 }.map { String(cString: $0) }
        }
        if let action = extras.dragAction, selectors[action] == nil || SelectorRules.known[action] != nil {
            failure = failure ?? WorkerFailure(.badLayout, "class \(className): key '\(name)' names drag action '\(action)', which the class does not implement as a key action")
        }
        if extras == KeyExtras() { keyExtras[place] = nil } else { keyExtras[place] = extras }
        record(.setKeyExtras(KeyExtrasChange(row: Int32(place.row), column: Int32(place.column), extras: extras)))
        return 0
    }
}
