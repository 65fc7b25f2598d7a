import Foundation
import Glibc
import KBHost
import KBText
import Testing

/// App Groups end to end: a keyboard whose manifest names another
/// organization's group (`group.com.victim.shared`, holding a real secret)
/// gets nothing, with and without open access, because that group is not in
/// its root. The positive controls: a keyboard of com.victim naming the same
/// group reads the secret, and the attacker's own attempt without the sandbox
/// reaches the file by the path it tried.
@Suite("App Groups: another organization's group, attacked", .serialized)
struct AppGroupAttackTests {
    static let group = "group.com.victim.shared"
    static let secret = "the victim's secret"
    static let attacker = "com.attacker.keyboard", victim = "com.victim.keyboard"

    /// Both keyboards are the hostile one under another identifier, naming the victim's group.
    func world() throws -> World {
        let w = try World()
        let folder = w.home + "/Containers/Groups/" + Self.group
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(Self.secret.utf8).write(to: URL(fileURLWithPath: folder + "/secret.txt"))
        for id in [Self.attacker, Self.victim] {
            let attributes: [String: Any] = ["IsASCIICapable": true, "RequestsOpenAccess": true]
            let principal = "HostileViewController"
            try w.makeBundle(id: id, library: "libHostileKeyboard.so", principal: principal,
                             extra: [KeyboardManifest.applicationGroupsKey: [Self.group],
                                     "NSExtension": ["NSExtensionPointIdentifier": "com.apple.keyboard-service",
                                                     "NSExtensionPrincipalClass": principal,
                                                     "NSExtensionAttributes": attributes]])
        }
        return w
    }

    func env(_ w: World) -> [String: String] {
        ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? "", "KBHOST_KEYBOARDS": w.root + "/bundles"]
    }

    /// What the keyboard typed for its attempt on the group ("group NAME" tells it which).
    func attempt(_ w: World, _ id: String) throws -> String {
        let r = try w.run(["type", "--keyboard", id, "--text", "group \(Self.group) ", "named-group"], extraEnvironment: env(w))
        #expect(r.status == 0, "\(r.err)")
        return Scene.outcomes(r.out)["named-group"] ?? "nothing: \(r.out)"
    }

    @Test(arguments: [false, true])
    func anotherOrganizationsGroupIsNotInTheKeyboardsRoot(openAccess: Bool) throws {
        let w = try world()
        if openAccess {
            for id in [Self.attacker, Self.victim] {
                #expect(try w.run(["access", id, "on"], extraEnvironment: env(w)).status == 0)
            }
        }
        // The positive control: the group's own organization reads it, given by the host.
        #expect(try attempt(w, Self.victim) == "allowed: read \"\(Self.secret)\" (given by the host)")
        // The attack: the host gives no path, and where the group would be there is nothing.
        #expect(try attempt(w, Self.attacker) == SandboxTests.notHere)
        #expect(FileManager.default.contents(atPath: w.home + "/Containers/Groups/\(Self.group)/secret.txt") == Data(Self.secret.utf8),
                "the target exists outside the attacker's root, untouched")
    }

    /// Without the sandbox the attacker's own path leads to the secret: the
    /// refusal above is the sandbox's, not a wrong path.
    @Test func withoutTheSandboxTheAttackersPathReachesTheSecret() throws {
        let w = try world()
        let manifest = KeyboardManifest(path: w.root + "/bundles/\(Self.attacker)/Info.plist", bundleIdentifier: Self.attacker,
                                        displayName: "Attacker", executable: "libHostileKeyboard.so",
                                        principalClass: "HostileViewController", applicationGroups: [Self.group])
        let keyboard = LoadableKeyboard(manifest: manifest, libraryPath: w.root + "/bundles/\(Self.attacker)/libHostileKeyboard.so")
        let session = try KeyboardSession(keyboard: keyboard, document: TextDocument(text: "group \(Self.group) "),
                                          configuration: Fixtures.configuration, access: KeyboardAccess(home: w.home, sandboxed: false))
        defer { session.close() }
        try session.appear()
        try session.tap("named-group")
        #expect(Scene.outcomes(session.document.text)["named-group"] == "allowed: read \"\(Self.secret)\" (not given by the host)")
    }
}
