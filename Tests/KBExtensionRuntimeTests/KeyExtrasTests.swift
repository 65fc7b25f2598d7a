import CKeyboardABI
import Glibc
@testable import KBExtensionRuntime
import KBWire
import Testing

/// set_key_extras and key_payload as a C keyboard calls them: by identifier, reading no field
/// past the struct_size the plugin was built with.
@Suite("Key extras in the services table")
struct KeyExtrasTests {
    /// A services table with a layout of two keys: "a" (identifier "ka") and one without identifier (r0c1).
    func services() -> WorkerServices {
        let services = WorkerServices()
        let keys = [kbh_key_spec_v1(identifier: strdup("ka"), label: strdup("a"), role: KBH_ROLE_CHARACTER, width: 1,
                                    action: nil, touch_down_action: nil, long_press_action: nil, double_tap_action: nil, repeats: false),
                    kbh_key_spec_v1(identifier: nil, label: strdup("b"), role: KBH_ROLE_CHARACTER, width: 1,
                                    action: nil, touch_down_action: nil, long_press_action: nil, double_tap_action: nil, repeats: false)]
        keys.withUnsafeBufferPointer { k in
            var row = kbh_row_spec_v1(keys: k.baseAddress, key_count: 2)
            withUnsafePointer(to: &row) { r in
                var layout = kbh_layout_v1(display: nil, rows: r, row_count: 1)
                services.table.pointee.set_layout(services.table.pointee.ctx, &layout)
            }
        }
        services.effects.removeAll()
        return services
    }

    func set(_ s: WorkerServices, _ id: String, payload: String?, structSize: Int = MemoryLayout<kbh_key_extras_v1>.size) -> Int32 {
        let p = payload.flatMap { strdup($0) }
        defer { free(p) }
        var extras = kbh_key_extras_v1()  // as a C keyboard's designated initializer: the rest zero
        extras.struct_size = UInt32(structSize)
        extras.payload = UnsafePointer(p)
        return s.table.pointee.set_key_extras(s.table.pointee.ctx, id, &extras)
    }

    func payload(_ s: WorkerServices, _ id: String) -> String? {
        s.table.pointee.key_payload(s.table.pointee.ctx, id).map { String(cString: $0) }
    }

    @Test func aPayloadIsSetAndReadByIdentifierAndTravelsAsAnEffect() {
        let s = services()
        #expect(set(s, "ka", payload: "mode.1") == 0)
        #expect(set(s, "r0c1", payload: "b!") == 0)
        #expect(payload(s, "ka") == "mode.1")
        #expect(payload(s, "r0c1") == "b!")
        #expect(s.effects == [.setKeyExtras(KeyExtrasChange(row: 0, column: 0, extras: KeyExtras(payload: "mode.1"))),
                              .setKeyExtras(KeyExtrasChange(row: 0, column: 1, extras: KeyExtras(payload: "b!")))])
        #expect(s.table.pointee.set_key_extras(s.table.pointee.ctx, "ka", nil) == 0, "NULL extras: none")
        #expect(payload(s, "ka") == nil)
    }

    @Test func aPluginBuiltBeforeThePayloadFieldPassesNone() {
        let s = services()
        #expect(set(s, "ka", payload: "never read", structSize: MemoryLayout<UInt32>.size) == 0)
        #expect(payload(s, "ka") == nil, "the payload lies past the plugin's struct_size")
        #expect(s.effects == [.setKeyExtras(KeyExtrasChange(row: 0, column: 0, extras: KeyExtras()))])
    }

    @Test func anUnknownKeyIsENOENTWithASentence() {
        let s = services()
        #expect(set(s, "zz", payload: "x") == ENOENT)
        let error = String(cString: s.table.pointee.last_error(s.table.pointee.ctx)!)
        #expect(error.contains("no key 'zz'"), "\(error)")
        #expect(s.effects.isEmpty)
        #expect(payload(s, "zz") == nil)
    }

    @Test func aNewLayoutDropsEveryKeysExtras() {
        let s = services()
        #expect(set(s, "ka", payload: "old") == 0)
        var layout = kbh_layout_v1(display: nil, rows: nil, row_count: 0)
        s.table.pointee.set_layout(s.table.pointee.ctx, &layout)
        #expect(s.keyExtras.isEmpty)
        #expect(payload(s, "ka") == nil)
    }

    @Test func theHostTableReachesTheAppendedFunctions() {
        let s = WorkerServices()
        let size = Int(s.table.pointee.struct_size)
        #expect(size == MemoryLayout<kbh_host_v1>.size)
        #expect(size >= MemoryLayout<kbh_host_v1>.offset(of: \kbh_host_v1.key_payload)! + MemoryLayout<UnsafeRawPointer>.size)
        #expect(s.table.pointee.set_key_extras != nil && s.table.pointee.key_payload != nil)
    }
}

/// play_haptic as a C keyboard calls it.
@Suite("Haptic feedback in the services table")
struct HapticServiceTests {
    @Test("The wire's haptic kinds are kbh_haptic's values")
    func rawValuesMatchTheHeader() {
        let abi: [(Haptic, kbh_haptic)] = [(.light, KBH_HAPTIC_LIGHT), (.medium, KBH_HAPTIC_MEDIUM), (.heavy, KBH_HAPTIC_HEAVY),
                                           (.soft, KBH_HAPTIC_SOFT), (.rigid, KBH_HAPTIC_RIGID), (.selection, KBH_HAPTIC_SELECTION),
                                           (.success, KBH_HAPTIC_SUCCESS), (.warning, KBH_HAPTIC_WARNING), (.error, KBH_HAPTIC_ERROR)]
        #expect(abi.count == Haptic.allCases.count)
        for (wire, header) in abi { #expect(UInt32(wire.rawValue) == header.rawValue, "\(wire)") }
    }

    @Test func recordedWithOpenAccessClampedAndUnknownKindsRefused() {
        let s = WorkerServices()
        s.facts.hasFullAccess = true
        let play = s.table.pointee.play_haptic!
        #expect(play(s.table.pointee.ctx, Int32(KBH_HAPTIC_HEAVY.rawValue), 0.25) == 0)
        #expect(play(s.table.pointee.ctx, Int32(KBH_HAPTIC_LIGHT.rawValue), 7) == 0)
        #expect(play(s.table.pointee.ctx, Int32(KBH_HAPTIC_LIGHT.rawValue), .nan) == 0)
        #expect(play(s.table.pointee.ctx, 9, 1) == EINVAL)
        #expect(play(s.table.pointee.ctx, -1, 1) == EINVAL)
        #expect(s.effects == [.haptic(.heavy, intensity: 0.25), .haptic(.light, intensity: 1), .haptic(.light, intensity: 1)])
    }

    @Test func withoutOpenAccessItIsEPERMAndNothingIsRecorded() {
        let s = WorkerServices()
        #expect(s.table.pointee.play_haptic(s.table.pointee.ctx, Int32(KBH_HAPTIC_LIGHT.rawValue), 1) == EPERM)
        #expect(s.effects.isEmpty)
        let error = String(cString: s.table.pointee.last_error(s.table.pointee.ctx)!)
        #expect(error.hasPrefix("haptic feedback needs open access"), "\(error)")
    }
}

/// A key's alternates, as a C keyboard gives them.
@Suite("Key alternates in the services table")
struct KeyAlternatesTests {
    func set(_ s: WorkerServices, _ id: String, _ alternates: [String?], structSize: Int = MemoryLayout<kbh_key_extras_v1>.size) -> Int32 {
        let copies = alternates.map { $0.flatMap { UnsafePointer(strdup($0)) } }
        defer { copies.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        return copies.withUnsafeBufferPointer { list in
            var extras = kbh_key_extras_v1()
            extras.struct_size = UInt32(structSize)
            extras.alternates = list.baseAddress
            extras.alternate_count = UInt32(list.count)
            return s.table.pointee.set_key_extras(s.table.pointee.ctx, id, &extras)
        }
    }

    @Test func alternatesAreKeptInOrderAndTravel() {
        let s = KeyExtrasTests().services()
        #expect(set(s, "ka", ["à", "á", "â"]) == 0)
        #expect(s.effects == [.setKeyExtras(KeyExtrasChange(row: 0, column: 0, extras: KeyExtras(alternates: ["à", "á", "â"])))])
    }

    @Test func aPluginBuiltWithPayloadsOnlyGivesNoAlternates() {
        let s = KeyExtrasTests().services()
        let payloadOnly = MemoryLayout<kbh_key_extras_v1>.offset(of: \kbh_key_extras_v1.alternates)!
        #expect(set(s, "ka", ["à"], structSize: payloadOnly) == 0)
        #expect(s.keyExtras.isEmpty, "nothing past the plugin's struct_size is read")
    }

    @Test func aNullAlternateIsEINVAL() {
        let s = KeyExtrasTests().services()
        #expect(set(s, "ka", ["à", nil]) == EINVAL)
        #expect(s.effects.isEmpty)
    }
}

/// touch() as a C keyboard calls it during a drag action.
@Suite("A drag's touch in the services table")
struct TouchServiceTests {
    @Test func outsideADragActionItIsENOENT() {
        let s = WorkerServices()
        var out = kbh_touch_v1()
        out.struct_size = UInt32(MemoryLayout<kbh_touch_v1>.size)
        #expect(s.table.pointee.touch(s.table.pointee.ctx, &out) == ENOENT)
    }

    @Test func itFillsNoFieldPastThePluginsStructSize() {
        let s = WorkerServices()
        s.currentTouch = DragTouch(phase: .moved, x: 10, y: 20, dx: -5, dy: 1, keyUnder: "space", timestampNanoseconds: 0)
        var whole = kbh_touch_v1()
        whole.struct_size = UInt32(MemoryLayout<kbh_touch_v1>.size)
        #expect(s.table.pointee.touch(s.table.pointee.ctx, &whole) == 0)
        #expect(whole.x == 10 && whole.y == 20 && whole.dx == -5 && whole.dy == 1)
        #expect(whole.key.map { String(cString: $0) } == "space")
        var older = kbh_touch_v1()
        older.struct_size = UInt32(MemoryLayout<kbh_touch_v1>.offset(of: \kbh_touch_v1.dx)!)
        older.dx = 99
        #expect(s.table.pointee.touch(s.table.pointee.ctx, &older) == 0)
        #expect(older.x == 10 && older.y == 20 && older.dx == 99 && older.key == nil, "x and y only")
    }
}

/// What the worker refuses of the new input models, as it refuses a layout's unknown action.
@Suite("Drag actions and drags the worker refuses")
struct DragRefusalTests {
    @Test func aDragActionTheClassDoesNotImplementFailsTheCallNamingIt() throws {
        let s = KeyExtrasTests().services()
        s.className = "Pad"
        var extras = kbh_key_extras_v1()
        extras.struct_size = UInt32(MemoryLayout<kbh_key_extras_v1>.size)
        let action = strdup("noSuchMethod:event:")
        defer { free(action) }
        extras.drag_action = UnsafePointer(action)
        #expect(s.table.pointee.set_key_extras(s.table.pointee.ctx, "ka", &extras) == 0)
        let failure = try #require(s.failure)
        #expect(failure.kind == .badLayout)
        #expect(failure.message == "class Pad: key 'ka' names drag action 'noSuchMethod:event:', which the class does not implement as a key action")
    }
}
