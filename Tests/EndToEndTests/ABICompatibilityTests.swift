import Foundation
import KBHost
import KBText
import Testing

/// The ABI stays version 1 and only grows: a C keyboard built against kbhost_keyboard.h as it was
/// before the input models were appended (ABIFixtures/old-header, a copy of it) loads and types in
/// today's host; the same source built against today's header finds the appended functions present
/// (KBH_HOST_HAS) and uses each of them, in its real process. (An older host, without them, is a
/// host table cut short: KeyboardSDKTests and KBExtensionRuntimeTests cut the real one.)
@Suite("ABI compatibility: an old C keyboard in today's host; today's additions from C")
struct ABICompatibilityTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ABIFixtures").path
    static let todaysHeaders = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SDK/Sources/CKeyboardABI/include").path

    /// pad.c built against the headers in `include`, in a bundle folder of its own, loaded and shown.
    func pad(include: String, fullAccess: Bool = false) throws -> KeyboardSession {
        let bundle = NSTemporaryDirectory() + "kbhost-abi-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        cc.arguments = ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared", "-I", include,
                        Self.fixtures + "/pad.c", "-o", bundle + "/libPad.so"]
        try cc.run()
        cc.waitUntilExit()
        try #require(cc.terminationStatus == 0, "cc failed building pad.c against \(include)")
        let manifest = KeyboardManifest(path: bundle + "/Info.plist", bundleIdentifier: "dev.kbhost.test.Pad", displayName: "Pad",
                                        executable: "libPad.so", principalClass: "PadViewController", requestsOpenAccess: true)
        let session = try KeyboardSession(keyboard: LoadableKeyboard(manifest: manifest, libraryPath: bundle + "/libPad.so"),
                                          configuration: Fixtures.configuration, hasFullAccess: fullAccess)
        try session.appear()
        return session
    }

    @Test func aKeyboardBuiltAgainstTheOldHeaderLoadsAndTypes() throws {
        let session = try pad(include: Self.fixtures + "/old-header")
        defer { session.close() }
        for key in ["1", "e", "space"] { try session.tap(key) }
        #expect(session.document.text == "1espace")
        #expect(session.layout.extras(of: try #require(session.layout.key(named: "1"))) == nil, "it gave no extras")
        #expect(!session.events.contains { $0.name == "haptic" })
        #expect(session.failure == nil)
    }

    @Test func builtAgainstTodaysHeaderItUsesEveryAppendedFunction() throws {
        let session = try pad(include: Self.todaysHeaders, fullAccess: true)
        defer { session.close() }
        try session.tap("1")
        #expect(session.document.text == "1=uno", "its payload, read back with key_payload")
        try session.chooseAlternate("è", on: "e")
        #expect(session.document.text == "1=unoè(alt)", "an alternate: the sender's label, KBH_EVENT_ALTERNATE")
        try session.drag("space", path: [TapStep.DragOffset(dx: -150)])
        #expect(session.document.text.hasSuffix("[dx -150 under e]"), "touch(): how far, and the key under it: \(session.document.text)")
        #expect(session.events.filter { $0.name == "haptic" }.count == 2, "one per tap, with open access")
        #expect(session.failure == nil)
    }

    @Test func withoutOpenAccessItsHapticIsRefusedAndItGoesOn() throws {
        let session = try pad(include: Self.todaysHeaders, fullAccess: false)
        defer { session.close() }
        try session.tap("e")
        #expect(session.document.text == "e!", "play_haptic returned EPERM")
        #expect(!session.events.contains { $0.name == "haptic" })
    }
}
