import Foundation
import KBHost
import KeyboardTesting
import Testing

/// The port in its real, sandboxed extension process under a phone's budget: the built
/// libScienceUIKitKeyboard.so beside a copy of its manifest, as `kbhost new` packages are run.
@Suite("Science (UIKit port), in its real process")
struct ScienceUIKitProcessTests {
    /// A bundle folder: Manifests/ScienceUIKit/Info.plist and the built library, copied (the
    /// worker refuses a library that leads outside its bundle).
    static func bundle() throws -> String {
        let installation = Installation.current()
        let manifests = try #require(installation.manifestsDirectory)
        let library = installation.productsDirectory + "/libScienceUIKitKeyboard.so"
        try #require(FileManager.default.fileExists(atPath: library), "swift build makes \(library)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("science-uikit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: manifests + "/ScienceUIKit/Info.plist", toPath: folder + "/Info.plist")
        try FileManager.default.copyItem(atPath: library, toPath: folder + "/libScienceUIKitKeyboard.so")
        return folder
    }

    @Test func typesTheSeedsBehavioursUnderAnOlderPhonesBudget() throws {
        let folder = try Self.bundle()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let k = try KeyboardProcess(bundle: folder, budget: .profile("older-phone"), text: "👍🏽a👍🏽b")
        try k.run(script: "◀")
        #expect(k.selection.location == 9, "one character, b, not the first emoji's 4 units")
        try k.run(script: "◀ ▶ ⌫")
        #expect(k.text == "👍🏽ab" && k.selection.location == 5, "over the emoji and back, then delete it: \(k.text)")
        try k.run(script: "id:mode.3 shift Ω shift ω id:mode.1 ₂ id:mode.4 ∫ id:mode.0 ÷")
        #expect(k.text == "👍🏽aΩω₂∫÷b")
        try k.run(script: "id:mode.2 ² ⏎")
        #expect(k.text == "👍🏽aΩω₂∫÷²\nb")
        try k.transition(toWidth: 812, height: 375)
        #expect(k.labels[1].first == "ᵃ", "landscape: the superscript page without its NumRow")
        #expect(k.failure == nil)
        let peak = try #require(k.peakFootprintBytes)
        #expect(peak < 48 << 20, "within the older phone's 48 MiB: \(peak >> 10) KiB")
    }

    @Test func deleteWithoutTextAndTheGlobeKeyInTheRealProcess() throws {
        let folder = try Self.bundle()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let k = try KeyboardProcess(bundle: folder)
        try k.run(script: "⌫ ⌫ x ⌫ ⌫ globe")
        #expect(k.text == "")
        #expect(k.events.contains("advanceToNextInputMode"), "\(k.events)")
    }
}
