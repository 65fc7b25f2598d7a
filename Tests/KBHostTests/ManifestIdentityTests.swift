import Foundation
import KBHost
import Testing

/// What a manifest says about itself — its identifier, its names, its App Groups —
/// names folders and reaches the user's terminal: it is checked as such.
@Suite("Keyboard manifests: identifiers and names")
struct ManifestIdentityTests {
    /// A binary property list (XML cannot hold most control characters) with these keys replaced.
    func manifest(_ overrides: [String: Any] = [:], attributes: [String: Any] = [:]) throws -> Data {
        var plist: [String: Any] = [
            "CFBundleIdentifier": "dev.example.K", "CFBundleDisplayName": "K", "CFBundleExecutable": "libK.so",
            "NSExtension": ["NSExtensionPointIdentifier": "com.apple.keyboard-service",
                            "NSExtensionPrincipalClass": "KeyboardViewController",
                            "NSExtensionAttributes": attributes],
        ]
        for (key, value) in overrides { plist[key] = value }
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    func error(_ data: Data) -> ManifestError? {
        do { _ = try KeyboardManifest.decode(data, path: "/k/Info.plist"); return nil } catch { return error }
    }

    static let badIdentifiers = ["..", ".", "a..b", "a/b", "", String(repeating: "a", count: 128) + "." + String(repeating: "b", count: 127),
                                 ".dev.example.K", "dev.example.K.", "dev.example\u{1B}[2J.K", "dev.example.K\n", "dev.example.K_1",
                                 "dev.exämple.K", "Calculator", "dev example.K"]

    @Test(arguments: badIdentifiers)
    func identifiersThatAreNotReverseDNSAreRefused(_ id: String) throws {
        let e = try #require(error(try manifest(["CFBundleIdentifier": id])))
        #expect(e.keyPath == "CFBundleIdentifier")
        #expect(e.problem.contains("is not a reverse-DNS bundle identifier"))
        #expect(!e.description.unicodeScalars.contains { TerminalText.isControl($0) }, "the value is escaped")
        #expect(e.description.count < 400, "a long value is cut")
        #expect(!KeyboardManifest.isValidBundleIdentifier(id))
    }

    @Test(arguments: ["dev.kbhost.Calculator", "com.example.acme", "dev.kbhost.fault.spike", "a.b", "dev.example-1.K2",
                      String(repeating: "a", count: 127) + "." + String(repeating: "b", count: 127)])
    func reverseDNSIdentifiersAreAccepted(_ id: String) throws {
        #expect(try KeyboardManifest.decode(try manifest(["CFBundleIdentifier": id]), path: "/k/Info.plist").bundleIdentifier == id)
    }

    @Test func theProblemIsSaid() {
        #expect(KeyboardManifest.bundleIdentifierProblem("..")?.contains("empty component") == true)
        #expect(KeyboardManifest.bundleIdentifierProblem("")?.contains("empty") == true)
        #expect(KeyboardManifest.bundleIdentifierProblem(String(repeating: "a.", count: 128) + "a")?.contains("255") == true)
        #expect(KeyboardManifest.bundleIdentifierProblem("Calculator")?.contains("at least 2 components") == true)
        #expect(KeyboardManifest.bundleIdentifierProblem("a/b")?.contains("letters, digits, '-' and '.'") == true)
    }

    @Test func aDisplayNameThatForgesARowOrClearsTheScreenIsRefused() throws {
        let e = try #require(error(try manifest(["CFBundleDisplayName": "Evil\u{1B}[2J\n* 1 dev.kbhost.System System"])))
        #expect(e.keyPath == "CFBundleDisplayName")
        #expect(e.description == #"/k/Info.plist: CFBundleDisplayName 'Evil\u{1B}[2J\n* 1 dev.kbhost.System System' holds control characters (a newline, a tab, ESC…), line separators or bidi overrides; a name is one line of text"#)
    }

    @Test(arguments: ["a\tb", "a\u{7F}", "a\u{9B}", "a\u{85}", "a\u{202E}b", "a\u{2028}", "\u{0}"])
    func namesHoldNoControlCharacters(_ name: String) throws {
        #expect(error(try manifest(["CFBundleDisplayName": name]))?.keyPath == "CFBundleDisplayName")
        #expect(error(try manifest(["CFBundleName": name]))?.keyPath == "CFBundleName")
    }

    @Test func ordinaryNamesInAnyScriptAreKept() throws {
        for name in ["Number Pad", "かな", "لوحة المفاتيح", "Clavier français 🇫🇷"] {
            #expect(try KeyboardManifest.decode(try manifest(["CFBundleDisplayName": name]), path: "/k/Info.plist").displayName == name)
        }
    }

    @Test func aPrimaryLanguageWithControlCharactersIsRefusedAndShownEscaped() throws {
        let e = try #require(error(try manifest(attributes: ["PrimaryLanguage": "en\u{1B}[2J-US\n"])))
        #expect(e.keyPath == "NSExtension.NSExtensionAttributes.PrimaryLanguage")
        #expect(e.description.contains(#"'en\u{1B}[2J-US\n'"#))
    }

    @Test func thePrincipalClassAndTheExecutableHoldNoControlCharacters() throws {
        let e = try #require(error(try manifest(["CFBundleExecutable": "lib\u{1B}[2J.so"])))
        #expect(e.keyPath == "CFBundleExecutable")
        let p = try #require(error(try manifest(["NSExtension": ["NSExtensionPointIdentifier": "com.apple.keyboard-service",
                                                                 "NSExtensionPrincipalClass": "K\u{9B}2J"]])))
        #expect(p.keyPath == "NSExtension.NSExtensionPrincipalClass")
        #expect(!p.description.unicodeScalars.contains { TerminalText.isControl($0) })
    }

    @Test(arguments: ["group.", "group..", "group.a..b", "group.a.", "group../x", "group.a/b", "group.\u{1B}", "com.example.k",
                      "group." + String(repeating: "a", count: 250)])
    func appGroupsFollowTheSameRules(_ name: String) throws {
        let e = try #require(error(try manifest([KeyboardManifest.applicationGroupsKey: [name]])))
        #expect(e.keyPath == KeyboardManifest.applicationGroupsKey + "[0]")
        #expect(!KeyboardManifest.isValidGroupName(name))
    }

    @Test(arguments: ["group.com.example.keyboard", "group.dev.kbhost.Hostile", "group.k", "group.my_app-2"])
    func appGroupsAreAccepted(_ name: String) throws {
        let m = try KeyboardManifest.decode(try manifest([KeyboardManifest.applicationGroupsKey: [name]]), path: "/k/Info.plist")
        #expect(m.applicationGroups == [name])
    }

    @Test func aManifestMadeInCodeGetsNoContainerOutsideTheContainers() throws {
        let home = NSTemporaryDirectory() + "kbhost-containers-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: home) }
        let containers = Containers(home: home)
        let escaping = KeyboardManifest(path: "/k/Info.plist", bundleIdentifier: "..", displayName: "K",
                                        executable: "libK.so", principalClass: "K")
        #expect(throws: ManifestError.self) { try containers.prepare(for: escaping) }
        var badGroup = escaping
        badGroup.bundleIdentifier = "dev.example.K"
        badGroup.applicationGroups = ["group.."]
        #expect(throws: ManifestError.self) { try containers.prepare(for: badGroup) }
        #expect(!FileManager.default.fileExists(atPath: home), "nothing was made")
        badGroup.applicationGroups = ["group.dev.example"]
        try containers.prepare(for: badGroup)
        #expect(FileManager.default.fileExists(atPath: containers.keyboard("dev.example.K") + "/tmp"))
    }
}
