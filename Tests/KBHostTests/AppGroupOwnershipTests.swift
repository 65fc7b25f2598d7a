import KBHost
import Testing

/// An App Group is its organization's: a keyboard gets only groups of its own reverse-DNS domain.
@Suite("App Groups belong to an organization")
struct AppGroupOwnershipTests {
    func manifest(_ id: String, _ groups: [String]) -> KeyboardManifest {
        KeyboardManifest(path: "/x/Info.plist", bundleIdentifier: id, displayName: "K", executable: "libK.so",
                         principalClass: "K", applicationGroups: groups)
    }

    @Test func aKeyboardGetsItsOrganizationsGroupsOnly() {
        let m = manifest("com.example.keyboard", ["group.com.example.keyboard", "group.com.example.shared", "group.com.example",
                                                   "group.org.victim.notes", "group.com.examplex.y", "group.com"])
        #expect(Set(m.ownedApplicationGroups) == ["group.com.example", "group.com.example.keyboard", "group.com.example.shared"])
        let problem = KeyboardManifest.groupOwnershipProblem("group.org.victim.notes", bundleIdentifier: "com.example.keyboard")
        #expect(problem?.contains("'org.victim'") == true, "\(problem ?? "")")
        #expect(KeyboardManifest.organization(of: "dev.kbhost.Hostile") == "dev.kbhost")
    }
}
