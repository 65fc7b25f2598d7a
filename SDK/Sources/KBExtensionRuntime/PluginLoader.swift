import CKeyboardABI
import Glibc
import KBSystem
import KBWire

/// The encodings kbhost passes to the selectors it knows, and to key actions: the
/// header's table (kbh_host_selectors_v1) and its KBH_KEY_ACTION_TYPES_ macros.
enum SelectorRules {
    static let known: [String: String] = {
        withUnsafeBytes(of: kbh_host_selectors_v1) { bytes in
            let table = bytes.bindMemory(to: kbh_host_selector_v1.self)
            return Dictionary(uniqueKeysWithValues: table.map { (String(cString: $0.name), String(cString: $0.types)) })
        }
    }()
    /// Key actions: no argument, the sender key, or the sender and the event.
    static let keyActionEncodings = [KBH_KEY_ACTION_TYPES_V1, KBH_KEY_ACTION_TYPES_KEY_V1, KBH_KEY_ACTION_TYPES_KEY_EVENT_V1]

    /// Nil if kbhost can call `name` with `types`; otherwise what it passes instead.
    static func mismatch(name: String, types: String) -> String? {
        if name == ResolvedClass.deallocSelector {  // appended to version 1, beside the table
            return types == KBH_DEALLOC_TYPES_V1 ? nil : "'\(KBH_DEALLOC_TYPES_V1)'"
        }
        if let expected = known[name] {
            return types == expected ? nil : "'\(expected)'"
        }
        guard keyActionEncodings.contains(types) else {
            return "key actions as 'v@:', 'v@:@' or 'v@:@@'"
        }
        let colons = name.filter { $0 == ":" }.count
        guard colons == types.count - 3 else {
            return "'\(types)' only to a selector with \(types.count - 3) ':' in its name (\(name) has \(colons))"
        }
        return nil
    }
}

/// A resolved principal class: its callable selectors, not yet instantiated.
struct ResolvedClass {
    let className: String
    let cls: UnsafePointer<kbh_class_v1>
    let selectors: [String: PreparedSelector]
    /// The selector called on an instance the host ends (a new presentation): KBH_DEALLOC_SELECTOR_V1.
    static let deallocSelector = KBH_DEALLOC_SELECTOR_V1

    /// Creates the one instance (its initializer may already set a layout).
    func create(host: UnsafePointer<kbh_host_v1>) throws(WorkerFailure) -> UnsafeMutableRawPointer {
        guard let create = cls.pointee.create else {
            throw WorkerFailure(.createFailed, "class \(className) has no create function")
        }
        guard let instance = create(cls, host) else {
            throw WorkerFailure(.createFailed, "class \(className): create returned NULL")
        }
        return instance
    }
}

enum PluginLoader {
    /// dlopen → entry symbol → ABI check → class lookup → selector checks → libffi
    /// preparation. Every failure names what was wrong.
    static func resolve(path: String, className: String) throws(WorkerFailure) -> ResolvedClass {
        let handle: UnsafeMutableRawPointer
        do { handle = try Sys.openLibrary(path, flags: RTLD_NOW | RTLD_LOCAL) } catch {
            throw WorkerFailure(.dlopen, "cannot load plugin \(path): \(error)")
        }
        // Never dlclose: Swift code cannot be unloaded. The process ends instead.
        guard let symbol = Sys.symbol(KBH_ENTRY_SYMBOL_V1, in: handle) else {
            let other = (2...4).first { Sys.symbol("kbhost_keyboard_plugin_v\($0)", in: handle) != nil }
            if let other {
                throw WorkerFailure(.abiMismatch, "plugin \(path) exports kbhost_keyboard_plugin_v\(other) (ABI \(other)); this kbhost speaks ABI \(KBH_ABI_VERSION) and needs \(KBH_ENTRY_SYMBOL_V1)")
            }
            throw WorkerFailure(.missingEntry, "plugin \(path) does not export \(KBH_ENTRY_SYMBOL_V1); a Swift keyboard needs `@_cdecl(\"\(KBH_ENTRY_SYMBOL_V1)\") package func kbhostKeyboardPlugin() -> UnsafeRawPointer { KeyboardPlugin.export(YourViewController.self) }`")
        }
        let entry = unsafeBitCast(symbol, to: (@convention(c) () -> UnsafeRawPointer?).self)
        guard let raw = entry() else {
            throw WorkerFailure(.missingEntry, "\(KBH_ENTRY_SYMBOL_V1) in \(path) returned NULL")
        }
        return try resolve(plugin: raw, origin: "plugin \(path)", className: className)
    }

    /// Checks a plugin description and finds and prepares one of its classes.
    static func resolve(plugin raw: UnsafeRawPointer, origin: String, className: String) throws(WorkerFailure) -> ResolvedClass {
        let plugin = raw.assumingMemoryBound(to: kbh_plugin_v1.self)
        guard plugin.pointee.abi_version == UInt32(KBH_ABI_VERSION) else {
            throw WorkerFailure(.abiMismatch, "\(origin) was built for keyboard ABI \(plugin.pointee.abi_version); this kbhost speaks ABI \(KBH_ABI_VERSION): rebuild it against this kbhost's kbhost_keyboard.h (kbhost sdk --cflags) or SDK")
        }
        guard plugin.pointee.struct_size >= UInt32(MemoryLayout<kbh_plugin_v1>.size) else {
            throw WorkerFailure(.abiMismatch, "\(origin) declares a kbh_plugin_v1 of \(plugin.pointee.struct_size) bytes; ABI \(KBH_ABI_VERSION) needs \(MemoryLayout<kbh_plugin_v1>.size)")
        }

        var names: [String] = []
        var found: UnsafePointer<kbh_class_v1>?
        let shortName = className.split(separator: ".").last.map(String.init) ?? className
        for i in 0 ..< Int(plugin.pointee.class_count) {
            guard let cls = plugin.pointee.classes?[i], let cName = cls.pointee.name else { continue }
            let name = String(cString: cName)
            names.append(name)
            if name == className || name == shortName { found = cls }
        }
        guard let cls = found else {
            let list = names.isEmpty ? "none" : names.joined(separator: ", ")
            throw WorkerFailure(.classNotFound, "\(origin) has no class \(className) (NSExtensionPrincipalClass); it defines: \(list) — set NSExtensionPrincipalClass in Info.plist to one of them")
        }
        let foundName = String(cString: cls.pointee.name)

        var selectors: [String: PreparedSelector] = [:]
        for i in 0 ..< Int(cls.pointee.selector_count) {
            let entry = cls.pointee.selectors + i
            guard let cName = entry.pointee.name, let cTypes = entry.pointee.types else {
                throw WorkerFailure(.encodingMismatch, "class \(foundName): selector #\(i) has no name or no type encoding")
            }
            let name = String(cString: cName), types = String(cString: cTypes)
            guard entry.pointee.imp != nil else {
                throw WorkerFailure(.encodingMismatch, "class \(foundName): selector \(name) has no implementation")
            }
            if let expected = SelectorRules.mismatch(name: name, types: types) {
                throw WorkerFailure(.encodingMismatch, "class \(foundName): selector \(name) has type encoding '\(types)', but kbhost passes \(expected); change the function's signature and its encoding to match (see kbhost_keyboard.h, \"Selectors the host calls\")")
            }
            do {
                selectors[name] = try PreparedSelector(entry: entry, name: name, types: types)
            } catch {
                throw WorkerFailure(.encodingMismatch, "class \(foundName): selector \(name) has an unreadable type encoding '\(types)'")
            }
        }
        return ResolvedClass(className: foundName, cls: cls, selectors: selectors)
    }
}
