/// A device profile: a device class and the memory budget it is measured to enforce.
public struct DeviceProfile: Hashable, Sendable {
    public var name: String
    /// In bytes.
    public var budget: Int

    public init(name: String, budget: Int) {
        self.name = name
        self.budget = budget
    }

    /// The first tap (1-based) after which the footprint was over this profile's budget,
    /// given the footprint before the first tap and then after each; nil when it never was.
    /// Where `kbhost profile` says this profile's jetsam would have ended the keyboard.
    public func overAfterTap(_ footprints: [Int]) -> Int? {
        footprints.indices.dropFirst().first { footprints[$0] > budget }
    }
}

/// The rules of a keyboard's memory budget: the device profiles, the default, the
/// range that means something, and the text a person gives for one.
public enum MemoryBudget {
    /// The budgets phones and tablets are measured to enforce, smallest first.
    public static let profiles: [DeviceProfile] = [
        DeviceProfile(name: "older-phone", budget: 48 << 20), DeviceProfile(name: "recent-phone", budget: 77 << 20),
        DeviceProfile(name: "tablet", budget: 90 << 20),
    ]
    /// Every keyboard's budget until the user sets another (`kbhost budget`).
    public static let defaultBudget = 48 << 20
    /// RLIMIT_DATA of every keyboard's process: the backstop behind the budget.
    public static let backstop = 512 << 20
    /// The budgets that mean something: from 8 MiB (a sample keyboard's process takes about 1 MiB,
    /// a Swift one with its dictionaries a few) to the backstop (over it, RLIMIT_DATA fails the
    /// keyboard's allocations before the governor would see it go over).
    public static let range = (8 << 20)...backstop

    /// The profile of this name, if there is one.
    public static func profile(named name: String) -> DeviceProfile? {
        profiles.first { $0.name == name }
    }

    /// A budget given as MiB ("48") or a profile name ("recent-phone"), in bytes; nil outside `range`.
    public static func parse(_ text: String) -> Int? {
        if let profile = profile(named: text) { return profile.budget }
        guard let mib = Int(text), mib <= range.upperBound >> 20, range.contains(mib << 20) else { return nil }
        return mib << 20
    }

    /// What `parse` takes, for help and errors.
    public static var help: String {
        "\(range.lowerBound >> 20) to \(range.upperBound >> 20) MiB, or a device profile: "
            + profiles.map { "\($0.name) (\($0.budget >> 20) MiB)" }.joined(separator: ", ")
    }
}
