import CKeyboardABI
import Glibc

/// A service call the host refused: `code` is the errno value (EPERM: the
/// keyboard needs open access; ENOENT: no such group; EACCES: the kernel's
/// sandbox refused), `message` says what happened and what to change.
public struct KeyboardServiceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The errno value (Glibc's EPERM, ENOENT, EACCES, ENOSYS…).
    public let code: Int32
    /// What happened and what to change, as the host said it.
    public let message: String

    /// An error with an errno value and a message.
    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// The keyboard lacks open access (EPERM).
    public var needsOpenAccess: Bool { code == EPERM }
}

/// One of the user's text replacements (UILexiconEntry).
public struct LexiconEntry: Hashable, Sendable {
    /// What the user types ("omw").
    public let userInput: String
    /// What it stands for ("On my way!").
    public let documentText: String

    /// An entry, as the host's lexicon holds it.
    public init(userInput: String, documentText: String) {
        self.userInput = userInput
        self.documentText = documentText
    }
}

/// A value in a group's defaults.
public enum DefaultsValue: Hashable, Sendable {
    /// A boolean.
    case bool(Bool)
    /// An integer (64-bit).
    case integer(Int)
    /// A floating-point number.
    case double(Double)
    /// UTF-8 text.
    case string(String)
    /// Bytes.
    case data([UInt8])
}

/// A host service newer than the oldest host: whether this host has it.
func hostHas<T>(_ host: UnsafePointer<kbh_host_v1>, _ field: KeyPath<kbh_host_v1, T?>) -> Bool {
    guard let offset = MemoryLayout<kbh_host_v1>.offset(of: field),
          Int(host.pointee.struct_size) >= offset + MemoryLayout<T?>.size else { return false }
    // The field alone is read: a host older than this header has a shorter table, and reading
    // the whole struct (as a key path on `pointee` may) would read past its end.
    guard MemoryLayout<T?>.size == MemoryLayout<UInt>.size else { return host.pointee[keyPath: field] != nil }  // (no such field)
    return UnsafeRawPointer(host).advanced(by: offset).loadUnaligned(as: UInt.self) != 0
}

func serviceError(_ host: UnsafePointer<kbh_host_v1>, _ code: Int32, _ fallback: String) -> KeyboardServiceError {
    var message = fallback
    if hostHas(host, \.last_error), let p = host.pointee.last_error(host.pointee.ctx) {
        let text = String(cString: p)
        if !text.isEmpty { message = text }
    }
    return KeyboardServiceError(code: code, message: message)
}

/// UserDefaults(suiteName:) for an App Group the keyboard's manifest declares
/// (com.apple.security.application-groups): the keyboard and its containing
/// app (`kbhost defaults GROUP …`) share it. Reads always work; writes need
/// open access and are atomic on both sides.
public final class GroupDefaults {
    /// The App Group's identifier ("group.com.example.keyboard").
    public let suiteName: String
    let host: UnsafePointer<kbh_host_v1>
    private var registered: [String: DefaultsValue] = [:]

    init(suiteName: String, host: UnsafePointer<kbh_host_v1>) {
        self.suiteName = suiteName
        self.host = host
    }

    /// Values returned for keys that are not set (kept in memory, never stored).
    public func register(defaults: [String: DefaultsValue]) {
        registered.merge(defaults) { _, new in new }
    }

    /// The stored value, else the registered one, else nil.
    public func object(forKey key: String) -> DefaultsValue? {
        guard hostHas(host, \.defaults_get) else { return registered[key] }
        var out = kbh_value_v1()
        let rc = suiteName.withCString { g in key.withCString { k in host.pointee.defaults_get(host.pointee.ctx, g, k, &out) } }
        guard rc == 0 else { return registered[key] }
        func bytes() -> [UInt8] { out.bytes.map { Array(UnsafeBufferPointer(start: $0, count: out.length)) } ?? [] }
        switch out.type {
        case KBH_VALUE_BOOL: return .bool(out.boolean)
        case KBH_VALUE_INT: return .integer(Int(out.integer))
        case KBH_VALUE_DOUBLE: return .double(out.real)
        case KBH_VALUE_STRING: return .string(String(decoding: bytes(), as: UTF8.self))
        case KBH_VALUE_DATA: return .data(bytes())
        default: return registered[key]
        }
    }

    /// As UserDefaults: false, 0, 0.0 or nil when unset or of another type
    /// (numbers and booleans convert to each other).
    public func bool(forKey key: String) -> Bool {
        switch object(forKey: key) {
        case .bool(let b)?: b
        case .integer(let i)?: i != 0
        case .double(let d)?: d != 0
        default: false
        }
    }

    /// As UserDefaults: the integer, a boolean as 0 or 1, a double truncated; else 0.
    public func integer(forKey key: String) -> Int {
        switch object(forKey: key) {
        case .integer(let i)?: i
        case .bool(let b)?: b ? 1 : 0
        case .double(let d)? where d.isFinite && d.magnitude < 9.2e18: Int(d)
        default: 0
        }
    }

    /// As UserDefaults: the number, a boolean as 0 or 1; else 0.
    public func double(forKey key: String) -> Double {
        switch object(forKey: key) {
        case .double(let d)?: d
        case .integer(let i)?: Double(i)
        case .bool(let b)?: b ? 1 : 0
        default: 0
        }
    }

    /// The string, or nil when unset or of another type.
    public func string(forKey key: String) -> String? {
        if case .string(let s)? = object(forKey: key) { return s }
        return nil
    }

    /// The bytes, or nil when unset or of another type.
    public func data(forKey key: String) -> [UInt8]? {
        if case .data(let d)? = object(forKey: key) { return d }
        return nil
    }

    /// Stores a value. Throws when the keyboard has no open access (code EPERM),
    /// when the group is not declared (ENOENT), when the host has no group
    /// defaults (ENOSYS), or when the write failed.
    public func set(_ value: DefaultsValue, forKey key: String) throws(KeyboardServiceError) {
        try store(value, forKey: key)
    }

    /// Stores a boolean; throws as `set(_:forKey:)`.
    public func set(_ value: Bool, forKey key: String) throws(KeyboardServiceError) { try store(.bool(value), forKey: key) }
    /// Stores an integer; throws as `set(_:forKey:)`.
    public func set(_ value: Int, forKey key: String) throws(KeyboardServiceError) { try store(.integer(value), forKey: key) }
    /// Stores a double; throws as `set(_:forKey:)`.
    public func set(_ value: Double, forKey key: String) throws(KeyboardServiceError) { try store(.double(value), forKey: key) }
    /// Stores a string; throws as `set(_:forKey:)`.
    public func set(_ value: String, forKey key: String) throws(KeyboardServiceError) { try store(.string(value), forKey: key) }
    /// Stores bytes; throws as `set(_:forKey:)`.
    public func set(_ value: [UInt8], forKey key: String) throws(KeyboardServiceError) { try store(.data(value), forKey: key) }

    /// Removes the stored value (the registered one shows again); throws as `set(_:forKey:)`.
    public func removeObject(forKey key: String) throws(KeyboardServiceError) { try store(nil, forKey: key) }

    private func store(_ value: DefaultsValue?, forKey key: String) throws(KeyboardServiceError) {
        guard hostHas(host, \.defaults_set) else {
            throw KeyboardServiceError(code: ENOSYS, message: "this host has no group defaults")
        }
        func call(_ v: UnsafePointer<kbh_value_v1>?) -> Int32 {
            suiteName.withCString { g in key.withCString { k in host.pointee.defaults_set(host.pointee.ctx, g, k, v) } }
        }
        var rc: Int32
        switch value {
        case nil: rc = call(nil)
        case .bool(let b)?: rc = withUnsafePointer(to: kbh_value_v1(type: KBH_VALUE_BOOL, boolean: b, integer: 0, real: 0, bytes: nil, length: 0)) { call($0) }
        case .integer(let i)?: rc = withUnsafePointer(to: kbh_value_v1(type: KBH_VALUE_INT, boolean: false, integer: Int64(i), real: 0, bytes: nil, length: 0)) { call($0) }
        case .double(let d)?: rc = withUnsafePointer(to: kbh_value_v1(type: KBH_VALUE_DOUBLE, boolean: false, integer: 0, real: d, bytes: nil, length: 0)) { call($0) }
        case .string(let s)?:
            rc = Array(s.utf8).withUnsafeBufferPointer { b in
                withUnsafePointer(to: kbh_value_v1(type: KBH_VALUE_STRING, boolean: false, integer: 0, real: 0, bytes: b.baseAddress, length: b.count)) { call($0) }
            }
        case .data(let d)?:
            rc = d.withUnsafeBufferPointer { b in
                withUnsafePointer(to: kbh_value_v1(type: KBH_VALUE_DATA, boolean: false, integer: 0, real: 0, bytes: b.baseAddress, length: b.count)) { call($0) }
            }
        }
        guard rc == 0 else { throw serviceError(host, rc, "writing '\(key)' in \(suiteName) failed (errno \(rc))") }
    }
}

extension InputViewController {
    /// requestSupplementaryLexicon: the user's text replacements (`kbhost replacements`).
    public func requestSupplementaryLexicon(completion: ([LexiconEntry]) -> Void) {
        completion(supplementaryLexicon)
    }

    /// The user's text replacements, at once.
    public var supplementaryLexicon: [LexiconEntry] {
        guard hostHas(host, \.supplementary_lexicon), let p = host.pointee.supplementary_lexicon(host.pointee.ctx) else { return [] }
        return String(cString: p).split(separator: "\n").compactMap { line -> LexiconEntry? in
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            return LexiconEntry(userInput: String(parts[0]), documentText: String(parts[1]))
        }
    }

    /// The keyboard's own container folder (read/write), if the host gives it one.
    public var containerPath: String? {
        guard hostHas(host, \.container_path), let p = host.pointee.container_path(host.pointee.ctx) else { return nil }
        return String(cString: p)
    }

    /// The folder of an App Group the manifest declares (readable; writable with open access).
    public func groupContainerPath(_ group: String) -> String? {
        guard hostHas(host, \.group_container_path) else { return nil }
        return group.withCString { g in host.pointee.group_container_path(host.pointee.ctx, g).map { String(cString: $0) } }
    }

    /// UserDefaults(suiteName:) of an App Group the manifest declares.
    public func groupDefaults(suiteName: String) -> GroupDefaults {
        GroupDefaults(suiteName: suiteName, host: host)
    }

    /// UIPasteboard.general.string: needs open access.
    public func pasteboardString() throws(KeyboardServiceError) -> String? {
        guard hostHas(host, \.pasteboard_get) else { return nil }
        var out: UnsafePointer<CChar>?
        let rc = host.pointee.pasteboard_get(host.pointee.ctx, &out)
        guard rc == 0 else { throw serviceError(host, rc, "reading the pasteboard needs open access") }
        return out.map { String(cString: $0) }
    }

    /// Sets UIPasteboard.general.string: needs open access.
    public func setPasteboardString(_ text: String) throws(KeyboardServiceError) {
        guard hostHas(host, \.pasteboard_set) else { return }
        let rc = text.withCString { host.pointee.pasteboard_set(host.pointee.ctx, $0) }
        guard rc == 0 else { throw serviceError(host, rc, "writing the pasteboard needs open access") }
    }

    /// Plays a sound other than the input click (AudioServicesPlaySystemSound): needs open access.
    public func playSound(_ name: String) throws(KeyboardServiceError) {
        guard hostHas(host, \.play_sound) else { return }
        let rc = name.withCString { host.pointee.play_sound(host.pointee.ctx, $0) }
        guard rc == 0 else { throw serviceError(host, rc, "playing sounds needs open access") }
    }
}
