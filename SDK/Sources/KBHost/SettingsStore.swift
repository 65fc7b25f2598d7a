public import Foundation
import KBCore
import KBSystem

/// Everything that can be wrong with the settings file. Each says what and where.
public enum SettingsError: Error, Hashable, Sendable, CustomStringConvertible {
    case corrupt(path: String, reason: String)
    case futureVersion(path: String, found: Int, supported: Int)
    case io(String)

    public var description: String {
        switch self {
        case .corrupt(let path, let reason):
            "settings file \(path) is corrupt (\(reason)); it was left as it is — move it aside or run `kbhost reset` to start over"
        case .futureVersion(let path, let found, let supported):
            "settings file \(path) has format version \(found), newer than this kbhost understands (\(supported)); it was left as it is"
        case .io(let s): "settings: \(s)"
        }
    }
}

/// The settings file and its lock. Every change is a read-modify-write under
/// an exclusive lock, written atomically: concurrent commands never lose an
/// update and a kill -9 at any moment leaves a valid file.
public struct SettingsStore: Sendable {
    public let directory: String
    public var path: String { directory + "/settings.json" }
    var lockPath: String { directory + "/settings.lock" }

    public init(directory: String) { self.directory = directory }

    /// KBHOST_HOME, else $XDG_STATE_HOME/kbhost, else ~/.local/state/kbhost.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let home = environment["KBHOST_HOME"], !home.isEmpty { return home }
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/kbhost" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/kbhost"
    }

    /// The settings as stored (fresh settings if there is no file yet).
    public func load() throws(SettingsError) -> KeyboardSettings {
        let bytes: [UInt8]?
        do { bytes = try AtomicFile.read(path) } catch { throw .io("\(error)") }
        guard let bytes else { return .fresh }
        return try decode(bytes)
    }

    /// Reads, changes and writes the settings under the lock; returns what was written.
    @discardableResult
    public func update(_ change: (inout KeyboardSettings) throws -> Void) throws -> KeyboardSettings {
        do { try AtomicFile.makeDirectory(directory) } catch { throw SettingsError.io("\(error)") }
        return try AtomicFile.withLock(lockPath) {
            var settings = try load()
            try change(&settings)
            settings.repair()
            try write(settings)
            return settings
        }
    }

    /// Replaces whatever is stored (even a corrupt file) with `settings`: for `kbhost reset` only.
    public func replace(with settings: KeyboardSettings) throws {
        try AtomicFile.makeDirectory(directory)
        try AtomicFile.withLock(lockPath) { try write(settings) }
    }

    private func write(_ settings: KeyboardSettings) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(settings) + Data("\n".utf8)
        try AtomicFile.write(path, Array(data))
    }

    private func decode(_ bytes: [UInt8]) throws(SettingsError) -> KeyboardSettings {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(bytes)) } catch {
            throw .corrupt(path: path, reason: "not JSON")
        }
        guard let dict = object as? [String: Any], let version = dict["version"] as? Int else {
            throw .corrupt(path: path, reason: "no version number")
        }
        guard version <= KeyboardSettings.currentVersion else {
            throw .futureVersion(path: path, found: version, supported: KeyboardSettings.currentVersion)
        }
        do {
            var settings = try JSONDecoder().decode(KeyboardSettings.self, from: Data(bytes))
            settings.repair()
            return settings
        } catch {
            throw .corrupt(path: path, reason: "\(error)")
        }
    }
}
