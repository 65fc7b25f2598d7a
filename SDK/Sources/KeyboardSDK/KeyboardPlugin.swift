import CKeyboardABI
import Glibc
import Synchronization

/// Makes `InputViewController` subclasses loadable. A plugin's one line:
///
///     @_cdecl("kbhost_keyboard_plugin_v1")
///     public func kbhostKeyboardPlugin() -> UnsafeRawPointer { KeyboardPlugin.export(MyKeyboard.self) }
///
/// Each class is published under its name ("MyKeyboard"); a manifest may
/// also name it with its module ("MyModule.MyKeyboard").
public enum KeyboardPlugin {
    /// The host table for the instance being created (read by `InputViewController.init`).
    /// Only set while `creation` is held.
    nonisolated(unsafe) static var hostForInit: UnsafePointer<kbh_host_v1>?
    /// Serializes instance creation (tests create keyboards on many threads).
    static let creation = Mutex(())
    /// Plugin descriptions already built, by class list; built once each, never freed.
    private static let exported = Mutex<[String: UnsafeMutableRawPointer]>([:])

    /// Builds the plugin description once (it lives as long as the process) and returns it.
    public static func export(_ classes: InputViewController.Type...) -> UnsafeRawPointer {
        export(classes)
    }

    /// The same, for a list of classes (the testing kit describes one class at a time).
    public static func export(_ classes: [InputViewController.Type]) -> UnsafeRawPointer {
        let key = classes.map { String(reflecting: $0) }.joined(separator: ",")
        return exported.withLock { cache in
            if let plugin = cache[key] { return UnsafeRawPointer(plugin) }
            let plugin = describe(classes)
            cache[key] = UnsafeMutableRawPointer(plugin)
            return UnsafeRawPointer(plugin)
        }
    }

    private static func describe(_ classes: [InputViewController.Type]) -> UnsafeMutablePointer<kbh_plugin_v1> {
        let classArray = UnsafeMutablePointer<UnsafePointer<kbh_class_v1>?>.allocate(capacity: classes.count)
        for (i, type) in classes.enumerated() {
            classArray[i] = UnsafePointer(describe(type))
        }
        let plugin = UnsafeMutablePointer<kbh_plugin_v1>.allocate(capacity: 1)
        plugin.initialize(to: kbh_plugin_v1(abi_version: UInt32(KBH_ABI_VERSION),
                                            struct_size: UInt32(MemoryLayout<kbh_plugin_v1>.size),
                                            classes: UnsafePointer(classArray), class_count: UInt32(classes.count)))
        return plugin
    }

    /// The selectors the host calls, with their encodings: the header's kbh_host_selectors_v1.
    static let hostSelectors: [(name: String, types: String)] = withUnsafeBytes(of: kbh_host_selectors_v1) { bytes in
        bytes.bindMemory(to: kbh_host_selector_v1.self).map { (String(cString: $0.name), String(cString: $0.types)) }
    }

    /// The selectors a class publishes: life cycle, text input, and its key actions.
    static func selectors(of type: InputViewController.Type) -> [(name: String, types: String, imp: UnsafeMutableRawPointer, info: UnsafeMutableRawPointer?)] {
        // The header's table says which selectors the host calls and their encodings;
        // here only which Swift method (function and tag) serves each name.
        let methods: [String: (UnsafeMutableRawPointer, UnsafeMutableRawPointer?)] = [
            "viewDidLoad": (unsafeBitCast(lifecycle0, to: UnsafeMutableRawPointer.self), tag(0)),
            "didReceiveMemoryWarning": (unsafeBitCast(lifecycle0, to: UnsafeMutableRawPointer.self), tag(1)),
            "viewWillAppear:": (unsafeBitCast(lifecycleBool, to: UnsafeMutableRawPointer.self), tag(0)),
            "viewDidAppear:": (unsafeBitCast(lifecycleBool, to: UnsafeMutableRawPointer.self), tag(1)),
            "viewWillDisappear:": (unsafeBitCast(lifecycleBool, to: UnsafeMutableRawPointer.self), tag(2)),
            "viewDidDisappear:": (unsafeBitCast(lifecycleBool, to: UnsafeMutableRawPointer.self), tag(3)),
            "textWillChange:": (unsafeBitCast(textInput, to: UnsafeMutableRawPointer.self), tag(0)),
            "textDidChange:": (unsafeBitCast(textInput, to: UnsafeMutableRawPointer.self), tag(1)),
            "selectionWillChange:": (unsafeBitCast(textInput, to: UnsafeMutableRawPointer.self), tag(2)),
            "selectionDidChange:": (unsafeBitCast(textInput, to: UnsafeMutableRawPointer.self), tag(3)),
            "viewWillTransitionToWidth:height:": (unsafeBitCast(transition, to: UnsafeMutableRawPointer.self), nil),
        ]
        var list: [(String, String, UnsafeMutableRawPointer, UnsafeMutableRawPointer?)] = hostSelectors.compactMap { s in
            methods[s.name].map { (s.name, s.types, $0.0, $0.1) }
        }
        // The host ends a controller before a new presentation's (KBH_DEALLOC_SELECTOR_V1): release it.
        list.append((KBH_DEALLOC_SELECTOR_V1, KBH_DEALLOC_TYPES_V1, unsafeBitCast(dealloc, to: UnsafeMutableRawPointer.self), nil))
        var actions: [String: KeyAction] = [:]
        var order: [String] = []
        for action in KeyAction.builtIn + type.keyActions {
            if actions[action.selector] == nil { order.append(action.selector) }
            actions[action.selector] = action
        }
        for name in order {
            let action = actions[name]!
            let imp: UnsafeMutableRawPointer = switch action.types {
            case KBH_KEY_ACTION_TYPES_V1: unsafeBitCast(action0, to: UnsafeMutableRawPointer.self)
            case KBH_KEY_ACTION_TYPES_KEY_V1: unsafeBitCast(action1, to: UnsafeMutableRawPointer.self)
            default: unsafeBitCast(action2, to: UnsafeMutableRawPointer.self)
            }
            list.append((name, action.types, imp, Unmanaged.passRetained(ActionBox(action)).toOpaque()))
        }
        return list
    }

    private static func describe(_ type: InputViewController.Type) -> UnsafeMutablePointer<kbh_class_v1> {
        let list = selectors(of: type)
        let selectors = UnsafeMutablePointer<kbh_selector_v1>.allocate(capacity: list.count)
        for (i, s) in list.enumerated() {
            selectors[i] = kbh_selector_v1(name: strdup(s.name), types: strdup(s.types), imp: s.imp, info: s.info)
        }
        let cls = UnsafeMutablePointer<kbh_class_v1>.allocate(capacity: 1)
        cls.initialize(to: kbh_class_v1(name: strdup(String(describing: type)), create: create,
                                        selectors: UnsafePointer(selectors), selector_count: UInt32(list.count),
                                        info: Unmanaged.passRetained(ClassBox(type)).toOpaque()))
        return cls
    }

    private static func tag(_ n: Int) -> UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: n + 1) }

    /// Sends a layout to the host as the ABI's C structs (valid only during the call).
    static func send(_ layout: KeyboardLayout, to host: UnsafePointer<kbh_host_v1>) {
        var strings: [UnsafeMutablePointer<CChar>] = []
        func c(_ s: String?) -> UnsafePointer<CChar>? {
            guard let s, let p = strdup(s) else { return nil }
            strings.append(p)
            return UnsafePointer(p)
        }
        let rows = UnsafeMutablePointer<kbh_row_spec_v1>.allocate(capacity: max(layout.rows.count, 1))
        var keyArrays: [UnsafeMutablePointer<kbh_key_spec_v1>] = []
        for (r, row) in layout.rows.enumerated() {
            let keys = UnsafeMutablePointer<kbh_key_spec_v1>.allocate(capacity: max(row.count, 1))
            keyArrays.append(keys)
            for (k, key) in row.enumerated() {
                keys[k] = kbh_key_spec_v1(identifier: c(key.identifier), label: c(key.label),
                                          role: kbh_key_role(rawValue: key.role.rawValue), width: key.width,
                                          action: c(key.action), touch_down_action: c(key.touchDownAction),
                                          long_press_action: c(key.longPressAction),
                                          double_tap_action: c(key.doubleTapAction), repeats: key.repeats)
            }
            rows[r] = kbh_row_spec_v1(keys: UnsafePointer(keys), key_count: UInt32(row.count))
        }
        var spec = kbh_layout_v1(display: c(layout.display), rows: UnsafePointer(rows), row_count: UInt32(layout.rows.count))
        host.pointee.set_layout(host.pointee.ctx, &spec)
        sendExtras(of: layout, to: host)
        strings.forEach { free($0) }
        keyArrays.forEach { $0.deallocate() }
        rows.deallocate()
    }
}

final class ClassBox {
    let type: InputViewController.Type
    init(_ type: InputViewController.Type) { self.type = type }
}

final class ActionBox {
    let action: KeyAction
    init(_ action: KeyAction) { self.action = action }
}

// MARK: C entry points (capture-free, as the ABI requires)

private typealias Sel = UnsafePointer<kbh_selector_v1>?

private func controller(_ p: UnsafeMutableRawPointer?) -> InputViewController {
    Unmanaged<InputViewController>.fromOpaque(p!).takeUnretainedValue()
}

private func tagOf(_ sel: Sel) -> Int { Int(bitPattern: sel?.pointee.info) - 1 }

private let create: @convention(c) (UnsafePointer<kbh_class_v1>?, UnsafePointer<kbh_host_v1>?) -> UnsafeMutableRawPointer? = { cls, host in
    guard let cls, let host, let info = cls.pointee.info else { return nil }
    let box = Unmanaged<ClassBox>.fromOpaque(info).takeUnretainedValue()
    return KeyboardPlugin.creation.withLock { _ in
        KeyboardPlugin.hostForInit = host
        defer { KeyboardPlugin.hostForInit = nil }
        return Unmanaged.passRetained(box.type.init()).toOpaque()
    }
}

private let lifecycle0: @convention(c) (UnsafeMutableRawPointer?, Sel) -> Void = { obj, sel in
    let vc = controller(obj)
    CurrentController.with(vc) { if tagOf(sel) == 0 { vc.viewDidLoad() } else { vc.didReceiveMemoryWarning() } }
}

/// The host let go of the controller: the reference `create` returned is released, so
/// the controller is freed unless something else (a cycle, a global) still holds it.
private let dealloc: @convention(c) (UnsafeMutableRawPointer?, Sel) -> Void = { obj, _ in
    Unmanaged<InputViewController>.fromOpaque(obj!).release()
}

private let lifecycleBool: @convention(c) (UnsafeMutableRawPointer?, Sel, Bool) -> Void = { obj, sel, animated in
    let vc = controller(obj)
    CurrentController.with(vc) {
        switch tagOf(sel) {
        case 0: vc.viewWillAppear(animated)
        case 1: vc.viewDidAppear(animated)
        case 2: vc.viewWillDisappear(animated)
        default: vc.viewDidDisappear(animated)
        }
    }
}

private let textInput: @convention(c) (UnsafeMutableRawPointer?, Sel, OpaquePointer?) -> Void = { obj, sel, input in
    let vc = controller(obj)
    let arg = input.map { TextInput(raw: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer($0)))) }
    CurrentController.with(vc) {
        switch tagOf(sel) {
        case 0: vc.textWillChange(arg)
        case 1: vc.textDidChange(arg)
        case 2: vc.selectionWillChange(arg)
        default: vc.selectionDidChange(arg)
        }
    }
}

private let transition: @convention(c) (UnsafeMutableRawPointer?, Sel, Double, Double) -> Void = { obj, _, w, h in
    let vc = controller(obj)
    CurrentController.with(vc) { vc.viewWillTransition(toWidth: w, height: h) }
}

private func actionOf(_ sel: Sel) -> KeyAction {
    Unmanaged<ActionBox>.fromOpaque(sel!.pointee.info!).takeUnretainedValue().action
}

private let action0: @convention(c) (UnsafeMutableRawPointer?, Sel) -> Void = { obj, sel in
    let vc = controller(obj)
    CurrentController.with(vc) { actionOf(sel).invoke(vc, nil, nil) }
}

private let action1: @convention(c) (UnsafeMutableRawPointer?, Sel, UnsafePointer<kbh_key_v1>?) -> Void = { obj, sel, key in
    let vc = controller(obj)
    CurrentController.with(vc) { actionOf(sel).invoke(vc, key.map { Key($0, host: vc.host) }, nil) }
}

private let action2: @convention(c) (UnsafeMutableRawPointer?, Sel, UnsafePointer<kbh_key_v1>?, UnsafePointer<kbh_event_v1>?) -> Void = { obj, sel, key, event in
    let vc = controller(obj)
    CurrentController.with(vc) { actionOf(sel).invoke(vc, key.map { Key($0, host: vc.host) }, event.map { KeyEvent($0, host: vc.host) }) }
}
