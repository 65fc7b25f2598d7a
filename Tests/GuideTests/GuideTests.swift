import Foundation
import KeyboardSDK
import KeyboardTesting
import Testing

/// docs/writing-a-keyboard.md's code is the files in Samples/, which this
/// target compiles: a sample that stops compiling fails the build, and a
/// guide that drifts from its sample fails here.
@Suite("The guide's samples")
struct GuideTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let guide = repository.appendingPathComponent("docs/writing-a-keyboard.md")
    static let samples = repository.appendingPathComponent("Tests/GuideTests/Samples")

    /// Every `<!-- sample: Samples/NAME.swift -->` and the ```swift block after it.
    static func blocks() throws -> [(file: String, code: String)] {
        let text = try String(contentsOf: guide, encoding: .utf8)
        var result: [(String, String)] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let line = lines.popFirst() {
            guard line.hasPrefix("<!-- sample: "), line.hasSuffix(" -->") else { continue }
            let file = String(line.dropFirst("<!-- sample: ".count).dropLast(" -->".count))
            guard lines.popFirst() == "```swift" else { Issue.record("\(file): no ```swift block after the marker"); continue }
            var code: [Substring] = []
            while let l = lines.popFirst(), l != "```" { code.append(l) }
            result.append((file, code.joined(separator: "\n") + "\n"))
        }
        return result
    }

    @Test func everySampleInTheGuideIsACompiledFileWordForWord() throws {
        let blocks = try GuideTests.blocks()
        #expect(blocks.count >= 4)
        for (file, code) in blocks {
            let path = GuideTests.repository.appendingPathComponent("Tests/GuideTests/" + file)
            let compiled = try String(contentsOf: path, encoding: .utf8)
            #expect(code == compiled, "docs/writing-a-keyboard.md's \(file) differs from the compiled file")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: GuideTests.samples.path).filter { $0.hasSuffix(".swift") }
        #expect(Set(files.map { "Samples/" + $0 }) == Set(blocks.map(\.file)), "every compiled sample is in the guide")
    }

    @Test func theLayoutSampleTypesAndShowsTheGlobeKeyOnlyWhenAsked() throws {
        let k = try KeyboardTestDriver(LayoutKeyboard.self)
        try k.type("h", "i", "space", "delete", "return")
        #expect(k.text == "hi\n")
        #expect(k.labels.last?.first == "🌐")
        // TextInputTraits is the SDK's, unambiguous with both modules imported.
        var traits = TextInputTraits()
        traits.keyboardType = .emailAddress
        let without = try KeyboardTestDriver(LayoutKeyboard.self, traits: traits, needsInputModeSwitchKey: false)
        #expect(without.labels.last?.contains("🌐") == false)
    }

    @Test func theShiftSampleGivesOneCapitalOrLocks() throws {
        let k = try KeyboardTestDriver(ShiftKeyboard.self)
        try k.type("shift", "A", "b")
        #expect(k.text == "Ab")
        try k.perform(.doubleTap, on: "shift")
        try k.type("A", "B")
        #expect(k.text == "AbAB")
        #expect(k.labels[1].first == "⇪")
        try k.type("shift", "a")
        #expect(k.text == "AbABa", "a tap ends the lock")
    }

    @Test func theCandidateSampleComposesMarkedTextAndCommitsACandidate() throws {
        let k = try KeyboardTestDriver(CandidateKeyboard.self)
        try k.type("k", "e")
        #expect(k.markedText == "ke")
        #expect(k.labels[0] == ["keyboard", "key", "kernel"])
        try k.tap("keyboard")
        #expect(k.text == "keyboard")
        #expect(k.markedText == nil)
        try k.type("s", "w", "space")
        #expect(k.text == "keyboardsw ")
    }

    @Test func theSettingsSampleReadsAlwaysAndWritesOnlyWithOpenAccess() throws {
        let group = NSTemporaryDirectory() + "kbhost-guide-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: group + "/Library/Preferences", withIntermediateDirectories: true)
        let closed = try KeyboardTestDriver(SharedSettingsKeyboard.self, text: "Howdy",
                                            appGroups: ["group.com.example.keyboard": group])
        try closed.type("remember", "greet")
        #expect(closed.text == "HowdyHello", "not saved without open access")
        #expect(closed.logMessages.first?.hasPrefix("not saved: writing the defaults of app group") == true)
        #expect(!closed.labels[0].contains("paste"))

        let open = try KeyboardTestDriver(SharedSettingsKeyboard.self, text: "Howdy", hasFullAccess: true, pasteboard: "!",
                                          appGroups: ["group.com.example.keyboard": group])
        try open.type("remember", "greet", "paste")
        #expect(open.text == "HowdyHowdy!")
    }
}

@Suite("The guide's UIKit compatibility sample")
struct SharedLogicSampleTests {
    @Test func theSharedLogicMarksAFractionAndCommitsItAsUIKitWould() throws {
        let k = try KeyboardTestDriver(SharedLogicKeyboard.self)
        try k.tap("½")
        #expect(k.markedText == "1/2" && k.selection == .init(location: 2, length: 1), "NSRange(location: 2, length: 1)")
        try k.tap("✓")
        #expect(k.text == "1/2 " && k.markedText == nil)
        var search = TextInputTraits()
        search.returnKeyType = .search
        let field = try KeyboardTestDriver(SharedLogicKeyboard.self, traits: search)
        try field.type("½", "✓")
        #expect(field.text == "1/2", "a search field: no space after")
    }

    @Test func rotationReachesViewWillTransitionToWith() throws {
        let k = try KeyboardTestDriver(SharedLogicKeyboard.self)
        #expect(k.labels == [["½", "✓", "⌫"]])
        try k.transition(toWidth: 812, height: 375)
        #expect(k.labels == [["½", "✓", "⌫"], ["space"]])
    }
}
