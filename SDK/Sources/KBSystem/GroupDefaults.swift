import Glibc

/// A value of a group's defaults: the property list types UserDefaults stores.
public enum DefaultValue: Hashable, Sendable {
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case data([UInt8])

    public var typeName: String {
        switch self {
        case .bool: "bool"
        case .integer: "int"
        case .double: "double"
        case .string: "string"
        case .data: "data"
        }
    }
}

/// The defaults of one App Group (UserDefaults(suiteName:)), shared by a
/// keyboard and its containing app (`kbhost defaults`). One file per group in
/// the group's container, Library/Preferences/GROUP.kbdefaults. Every write is
/// a read-modify-write under an exclusive flock, replaced atomically: writers
/// on both sides never lose each other's updates, and readers (who take no
/// lock) see the old file or the new one, never a mix.
///
/// A keyboard with open access can write the container, so everything in it
/// is reached through `Directory`: from `root`, which kbhost trusts, never
/// through a symbolic link and never out of it. A link planted for
/// `Library`, `Preferences`, the file or its lock is refused (`PathRefusal`).
public struct GroupDefaultsStore: Sendable {
    public let group: String
    /// A folder kbhost owns: KBHOST_HOME/Containers on the host's side, the
    /// group's container itself in the worker.
    public let root: String
    /// The group's container, relative to `root` ("" when `root` is the container).
    public let container: String

    /// How long this side waits for the group's lock (`lockWait` unless told).
    public let waitForLock: Double

    public init(group: String, root: String, container: String, waitForLock: Double = GroupDefaultsStore.lockWait) {
        self.group = group
        self.root = root
        self.container = container
        self.waitForLock = waitForLock
    }

    /// The store of a group whose container is `containerPath` (trusted as the root).
    public init(group: String, containerPath: String, waitForLock: Double = GroupDefaultsStore.lockWait) {
        self.init(group: group, root: containerPath, container: "", waitForLock: waitForLock)
    }

    /// Library/Preferences, relative to `root`.
    var folder: String { container.isEmpty ? "Library/Preferences" : container + "/Library/Preferences" }
    var fileName: String { group + ".kbdefaults" }
    var lockName: String { "." + group + ".lock" }
    /// How long a writer waits for the group's lock: a keyboard with open access
    /// can hold it, and must not freeze the app's side (or another keyboard) for good.
    public static let lockWait = 5.0
    /// How long a keyboard's process waits for it: less than the host waits for any call to
    /// return (2.5 s), so a lock another keyboard holds is an error (EWOULDBLOCK), not a hang.
    public static let keyboardLockWait = 1.0
    /// The most a group's defaults file may hold. Both sides read it whole, and a keyboard with
    /// open access can write the file itself: a sparse file of 4 GB it made was read whole by
    /// `kbhost defaults … read` (4.2 GB resident, 37 s; fourth red team). A larger file is
    /// corrupt, never read, and a write that would make one is refused (EFBIG).
    public static let maxFileBytes = 16 << 20

    public var containerPath: String { container.isEmpty ? root : root + "/" + container }
    public var directory: String { root + "/" + folder }
    public var path: String { directory + "/" + fileName }

    /// The Preferences folder, created (beneath the root) where missing.
    @discardableResult
    public func makeDirectory() throws -> Directory {
        guard let root = try Directory.open(trusted: root) else { throw SystemError("open \(self.root)", errno: ENOENT) }
        return try root.makeFolder(folder)
    }

    /// Everything stored (empty when nothing is).
    public func load() throws -> [String: DefaultValue] {
        guard let preferences = try Directory.open(trusted: root)?.folder(folder) else { return [:] }
        return try load(from: preferences)
    }

    /// Sets (or, with nil, removes) one key under the lock.
    public func set(_ value: DefaultValue?, forKey key: String) throws {
        try update { $0[key] = value }
    }

    /// Reads, changes and writes the whole group under the lock.
    public func update(_ change: (inout [String: DefaultValue]) throws -> Void) throws {
        let preferences = try makeDirectory()
        try preferences.withLock(lockName, waitingAtMost: waitForLock) {
            var values = try load(from: preferences)
            try change(&values)
            let bytes = DefaultsCoding.encode(values)
            guard bytes.count <= GroupDefaultsStore.maxFileBytes else {
                throw SystemError("write \(path): the group's defaults would take \(bytes.count) bytes, more than the "
                                  + "\(GroupDefaultsStore.maxFileBytes >> 20) MiB they may", errno: EFBIG)
            }
            try preferences.write(fileName, bytes, mode: 0o600)
        }
    }

    private func load(from preferences: Directory) throws -> [String: DefaultValue] {
        let bytes: [UInt8]
        switch try preferences.read(fileName, limit: GroupDefaultsStore.maxFileBytes) {
        case nil: return [:]
        case .bytes(let read): bytes = read
        case .tooLarge(let size):
            throw CorruptDefaults(path: path, reason: "\(size) bytes, more than the \(GroupDefaultsStore.maxFileBytes >> 20) MiB "
                                  + "a group's defaults may take")
        }
        do { return try DefaultsCoding.decode(bytes) } catch {
            throw CorruptDefaults(path: path, reason: "\(error)")
        }
    }
}

/// A group's defaults file that cannot be decoded. It is never replaced: a write is refused too.
/// To a keyboard it is EINVAL; to a person, the file, why, and what to do (no errno appended).
public struct CorruptDefaults: Error, Hashable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var errno: Int32 { EINVAL }

    public var description: String {
        "defaults file \(path) is corrupt (\(reason)); it was left as it is — move it aside to start the group's defaults over"
    }
}

/// The file's bytes: "KBDEFS1\n", a count, then per key (sorted) its UTF-8
/// name, a type tag and the value; little-endian lengths. Decoding checks
/// every length against what remains.
public enum DefaultsCoding {
    static let magic = Array("KBDEFS1\n".utf8)

    public struct Corrupt: Error, CustomStringConvertible {
        public let description: String
    }

    public static func encode(_ values: [String: DefaultValue]) -> [UInt8] {
        var out = magic
        func u64(_ v: UInt64) { for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
        func bytes(_ b: some Collection<UInt8>) { u64(UInt64(b.count)); out.append(contentsOf: b) }
        u64(UInt64(values.count))
        for key in values.keys.sorted() {
            bytes(Array(key.utf8))
            switch values[key]! {
            case .bool(let b): out.append(1); out.append(b ? 1 : 0)
            case .integer(let i): out.append(2); u64(UInt64(bitPattern: i))
            case .double(let d): out.append(3); u64(d.bitPattern)
            case .string(let s): out.append(4); bytes(Array(s.utf8))
            case .data(let d): out.append(5); bytes(d)
            }
        }
        return out
    }

    public static func decode(_ input: [UInt8]) throws -> [String: DefaultValue] {
        var at = 0
        func take(_ n: Int) throws -> ArraySlice<UInt8> {
            guard n >= 0, input.count - at >= n else { throw Corrupt(description: "truncated at byte \(at)") }
            defer { at += n }
            return input[at..<at + n]
        }
        func u64() throws -> UInt64 {
            var v: UInt64 = 0
            for (i, b) in try take(8).enumerated() { v |= UInt64(b) << (8 * UInt64(i)) }
            return v
        }
        func bytes() throws -> [UInt8] {
            let n = try u64()
            guard n <= UInt64(input.count - at) else { throw Corrupt(description: "length \(n) at byte \(at) exceeds the file") }
            return Array(try take(Int(n)))
        }
        func utf8(_ b: [UInt8]) throws -> String {
            guard let s = String(validating: b, as: UTF8.self) else { throw Corrupt(description: "invalid UTF-8 at byte \(at)") }
            return s
        }
        guard Array(try take(magic.count)) == magic else { throw Corrupt(description: "not a kbhost defaults file") }
        let count = try u64()
        guard count <= UInt64(input.count) else { throw Corrupt(description: "impossible key count \(count)") }
        var values: [String: DefaultValue] = [:]
        for _ in 0..<count {
            let key = try utf8(try bytes())
            switch try take(1).first! {
            case 1: values[key] = .bool(try take(1).first! != 0)
            case 2: values[key] = .integer(Int64(bitPattern: try u64()))
            case 3: values[key] = .double(Double(bitPattern: try u64()))
            case 4: values[key] = .string(try utf8(try bytes()))
            case 5: values[key] = .data(try bytes())
            case let tag: throw Corrupt(description: "unknown value type \(tag) for key '\(key)'")
            }
        }
        guard at == input.count else { throw Corrupt(description: "\(input.count - at) stray bytes at the end") }
        return values
    }
}
