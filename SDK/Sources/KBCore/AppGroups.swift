/// Whose an App Group is. On iOS an App Group belongs to one developer team:
/// only that team's apps and extensions get it, whatever a manifest says. kbhost
/// has no teams, so a group belongs to the organization its name spells: the
/// reverse-DNS domain after `group.`. A keyboard is given a group only if its
/// own identifier is of that domain (`com.example.keyboard` gets
/// `group.com.example.keyboard` and `group.com.example.shared`, never
/// `group.org.victim.notes`); any other group it names is not mounted, so a
/// keyboard cannot read or write another vendor's shared data by naming it.
extension KeyboardManifest {
    /// The organization of a bundle identifier: its first two reverse-DNS
    /// components (`com.example` for `com.example.keyboard`), or the whole
    /// identifier when it has fewer.
    public static func organization(of bundleIdentifier: String) -> String {
        let parts = bundleIdentifier.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 ? parts.prefix(2).joined(separator: ".") : bundleIdentifier
    }

    /// Why a keyboard may not use an App Group it names; nil when the group is its organization's.
    public static func groupOwnershipProblem(_ group: String, bundleIdentifier: String) -> String? {
        let organization = organization(of: bundleIdentifier)
        let domain = group.hasPrefix("group.") ? String(group.dropFirst("group.".count)) : group
        if domain == organization || domain.hasPrefix(organization + ".") { return nil }
        return "belongs to \(TerminalText.quoted(Self.organization(of: domain))), not to this keyboard's organization "
            + "\(TerminalText.quoted(organization)); it is not given (an App Group is shared only within one organization)"
    }

    /// The App Groups this keyboard is given: those of its own organization.
    public var ownedApplicationGroups: [String] {
        applicationGroups.filter { Self.groupOwnershipProblem($0, bundleIdentifier: bundleIdentifier) == nil }
    }
}
