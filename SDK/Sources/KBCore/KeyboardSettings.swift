/// What the user chose: the enabled keyboards in order, the current one, and
/// the keyboards granted full access. Stored as JSON under KBHOST_HOME (by KBHost's
/// `SettingsStore`); here, the values and their rules.
public struct KeyboardSettings: Codable, Hashable, Sendable {
    /// The format this build writes; a file with a larger number is refused, never overwritten.
    public static let currentVersion = 1

    public var version: Int
    public var enabled: [String]
    public var current: String
    public var fullAccess: [String]
    /// The device draws its own globe key (as iPhone X and later do): keyboards need not.
    public var deviceDrawsGlobeKey: Bool
    /// The memory budget for every keyboard's process, in bytes (the governor's line).
    public var memoryBudget: Int
    /// Keyboards that failed: how often, why, and whether they are set aside.
    public var failures: [String: FailureRecord]
    /// The user's text replacements, shortcut → phrase (the supplementary lexicon).
    public var textReplacements: [String: String]
    /// Sandbox protections the user allowed a keyboard to run without, on a
    /// kernel that lacks them (keyboard id → mechanism names). Never applied
    /// where the kernel has the mechanism.
    public var allowedMissingProtections: [String: [String]]

    /// A keyboard's recent failures. After `setAsideAfter` in a row it is set
    /// aside until the user enables it again; before that it may restart on
    /// next use after a backoff that doubles with each failure.
    public struct FailureRecord: Codable, Hashable, Sendable {
        public var count: Int
        public var lastReason: String
        /// Seconds since 1970 of the last failure.
        public var lastFailure: Double
        public var setAside: Bool

        public init(count: Int, lastReason: String, lastFailure: Double, setAside: Bool) {
            self.count = count
            self.lastReason = lastReason
            self.lastFailure = lastFailure
            self.setAside = setAside
        }

        /// When the keyboard may be started again (seconds since 1970).
        public var retryAfter: Double { lastFailure + Double(1 << min(count - 1, 10)) }
    }

    public static let setAsideAfter = 3

    /// Records a failure of a keyboard (the system keyboard never fails this way).
    public mutating func recordFailure(of id: String, reason: String, at now: Double) {
        var record = failures[id] ?? FailureRecord(count: 0, lastReason: "", lastFailure: now, setAside: false)
        record.count += 1
        record.lastReason = reason
        record.lastFailure = now
        record.setAside = record.count >= KeyboardSettings.setAsideAfter
        failures[id] = record
    }

    /// Whether a keyboard may be started now (not set aside, past its backoff).
    public func mayStart(_ id: String, at now: Double) -> Bool {
        guard let record = failures[id] else { return true }
        return !record.setAside && now >= record.retryAfter
    }

    public init(version: Int, enabled: [String], current: String, fullAccess: [String], deviceDrawsGlobeKey: Bool = false,
                memoryBudget: Int = MemoryBudget.defaultBudget, failures: [String: FailureRecord] = [:],
                textReplacements: [String: String] = [:], allowedMissingProtections: [String: [String]] = [:]) {
        self.failures = failures
        self.textReplacements = textReplacements
        self.allowedMissingProtections = allowedMissingProtections
        self.version = version
        self.enabled = enabled
        self.current = current
        self.fullAccess = fullAccess
        self.deviceDrawsGlobeKey = deviceDrawsGlobeKey
        self.memoryBudget = memoryBudget
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(Int.self, forKey: .version)
        enabled = try c.decode([String].self, forKey: .enabled)
        current = try c.decode(String.self, forKey: .current)
        fullAccess = try c.decodeIfPresent([String].self, forKey: .fullAccess) ?? []
        deviceDrawsGlobeKey = try c.decodeIfPresent(Bool.self, forKey: .deviceDrawsGlobeKey) ?? false
        memoryBudget = try c.decodeIfPresent(Int.self, forKey: .memoryBudget) ?? MemoryBudget.defaultBudget
        failures = try c.decodeIfPresent([String: FailureRecord].self, forKey: .failures) ?? [:]
        textReplacements = try c.decodeIfPresent([String: String].self, forKey: .textReplacements) ?? [:]
        allowedMissingProtections = try c.decodeIfPresent([String: [String]].self, forKey: .allowedMissingProtections) ?? [:]
    }

    /// Fresh settings: the system keyboard alone, enabled and current.
    public static var fresh: KeyboardSettings {
        KeyboardSettings(version: currentVersion, enabled: [SystemKeyboard.identifier],
                         current: SystemKeyboard.identifier, fullAccess: [])
    }

    /// Settings must always name an enabled current keyboard, and the system
    /// keyboard must be there when nothing else is.
    public mutating func repair() {
        var seen = Set<String>()
        enabled = enabled.filter { seen.insert($0).inserted }
        if enabled.isEmpty { enabled = [SystemKeyboard.identifier] }
        if !enabled.contains(current) { current = enabled[0] }
        fullAccess = Array(Set(fullAccess)).sorted()
    }
}
