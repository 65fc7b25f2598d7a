import Foundation
import KBHost
import Testing

/// A bundle identifier names folders (the keyboard's container, its installed
/// copy): only reverse-DNS identifiers get that far.
@Suite("Bundle identifiers are reverse DNS")
struct BundleIdentifierTests {
    static let bad: [String] = ["..", ".", "a..b", "a/b", "", String(repeating: "a", count: 256), ".dev.example.K",
                                "dev.example\u{1B}[2J.K"]

    /// A real bundle (a copy of the NumberPad plugin) with this identifier, in its own folder.
    func bundle(_ w: World, _ id: String, _ i: Int) throws -> String {
        try w.makeBundle(id: id, library: "libNumberPadKeyboard.so", principal: "NumberPadViewController", at: w.root + "/bundle\(i)")
    }

    /// Runs `kbhost COMMAND BUNDLE` on a bundle with each bad identifier: exit 10, and the message
    /// (on stdout for validate, stderr for install) names the key, escaped and cut.
    func expectEachRefused(by command: String, in w: World) throws {
        for (i, id) in BundleIdentifierTests.bad.enumerated() {
            let r = try w.kbhost(command, try bundle(w, id, i))
            let message = command == "validate" ? r.out : r.err
            #expect(r.status == 10, "\(id.debugDescription): \(message)")
            #expect(message.contains("CFBundleIdentifier") && message.contains("is not a reverse-DNS bundle identifier"),
                    "\(id.debugDescription): \(message)")
            #expect(!hasTerminalControls(message))
            #expect(message.count < 400, "a long identifier is cut: \(message)")
        }
    }

    @Test func validateRefusesEachNamingTheKey() throws {
        try expectEachRefused(by: "validate", in: try World())
    }

    @Test func installRefusesEachAndCopiesNothing() throws {
        let w = try World()
        try expectEachRefused(by: "install", in: w)
        let keyboards = (try? FileManager.default.contentsOfDirectory(atPath: w.home + "/Keyboards")) ?? []
        #expect(keyboards.isEmpty, "\(keyboards)")
        let containers = (try? FileManager.default.contentsOfDirectory(atPath: w.home + "/Containers")) ?? []
        #expect(containers.isEmpty, "\(containers)")
    }

    @Test func aValidOneStillInstallsIntoItsOwnFolder() throws {
        let w = try World()
        let r = try w.kbhost("install", try bundle(w, "dev.example.Pad-2", 0))
        #expect(r.status == 0, "\(r.err)")
        #expect(FileManager.default.fileExists(atPath: w.home + "/Keyboards/dev.example.Pad-2/Info.plist"))
    }
}
