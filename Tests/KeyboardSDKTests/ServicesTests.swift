import Foundation
import KeyboardSDK
import KeyboardTesting
import Testing

/// A keyboard that uses the open-access services the way the seeds do:
/// settings shared with its containing app, the pasteboard, sounds, and the
/// user's text replacements.
final class SettingsKeyboard: InputViewController {
    static let group = "group.dev.kbhost.test"
    lazy var defaults: GroupDefaults = {
        let d = groupDefaults(suiteName: SettingsKeyboard.group)
        d.register(defaults: ["theme": .string("light"), "fontSize": .integer(17)])
        return d
    }()

    override class var keyActions: [KeyAction] {[
        .action("showSettings", SettingsKeyboard.showSettings),
        .action("saveDark", SettingsKeyboard.saveDark),
        .action("copyAll", SettingsKeyboard.copyAll),
        .action("paste", SettingsKeyboard.paste),
        .action("beep", SettingsKeyboard.beep),
        .action("expand", SettingsKeyboard.expand),
    ]}

    override func viewDidLoad() {
        keyboardLayout = KeyboardLayout(rows: [[
            KeySpec("show", action: "showSettings"), KeySpec("dark", action: "saveDark"),
            KeySpec("copy", action: "copyAll"), KeySpec("paste", action: "paste"),
            KeySpec("beep", action: "beep"), KeySpec("expand", action: "expand"), .space(),
        ]])
    }

    func showSettings() {
        textDocumentProxy.insertText("\(defaults.string(forKey: "theme") ?? "nil")/\(defaults.integer(forKey: "fontSize"))/\(defaults.bool(forKey: "sound"))")
    }

    func saveDark() {
        do {
            try defaults.set("dark", forKey: "theme")
            try defaults.set(true, forKey: "sound")
            try defaults.set(2.5, forKey: "scale")
            try defaults.set([0, 1, 255], forKey: "blob")
            textDocumentProxy.insertText("saved")
        } catch {
            textDocumentProxy.insertText("refused(\(error.code)): \(error.message)")
        }
    }

    func copyAll() {
        do { try setPasteboardString(textDocumentProxy.documentContextBeforeInput ?? "") } catch {
            textDocumentProxy.insertText("refused: \(error.message)")
        }
    }

    func paste() {
        do { textDocumentProxy.insertText(try pasteboardString() ?? "(empty)") } catch {
            textDocumentProxy.insertText("refused: \(error.message)")
        }
    }

    func beep() {
        do { try playSound("Tink") } catch { textDocumentProxy.insertText("refused: \(error.message)") }
    }

    /// Replaces the word before the insertion point with its text replacement, if it has one.
    func expand() {
        let word = String((textDocumentProxy.documentContextBeforeInput ?? "").split(separator: " ").last ?? "")
        requestSupplementaryLexicon { entries in
            guard let entry = entries.first(where: { $0.userInput == word }) else { return }
            for _ in word { textDocumentProxy.deleteBackward() }
            textDocumentProxy.insertText(entry.documentText)
        }
    }
}

@Suite("Open-access services: group defaults, pasteboard, sounds, lexicon")
struct ServicesTests {
    func groupFolder() throws -> String {
        let dir = NSTemporaryDirectory() + "kbhost-group-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir + "/Library/Preferences", withIntermediateDirectories: true)
        return dir
    }

    @Test func registeredDefaultsAnswerUntilAValueIsStored() throws {
        let dir = try groupFolder()
        let k = try KeyboardTestDriver(SettingsKeyboard.self, hasFullAccess: true, appGroups: [SettingsKeyboard.group: dir])
        try k.tap("show")
        #expect(k.text == "light/17/false")
        try k.tap("dark")
        try k.tap("show")
        #expect(k.text == "light/17/falsesaveddark/17/true")
        // The containing app's side reads the same file.
        let again = try KeyboardTestDriver(SettingsKeyboard.self, appGroups: [SettingsKeyboard.group: dir])
        try again.tap("show")
        #expect(again.text == "dark/17/true", "stored values outlive the keyboard; reads need no open access")
    }

    @Test func writingWithoutOpenAccessIsAClearError() throws {
        let dir = try groupFolder()
        let k = try KeyboardTestDriver(SettingsKeyboard.self, hasFullAccess: false, appGroups: [SettingsKeyboard.group: dir])
        try k.tap("dark")
        #expect(k.text.hasPrefix("refused(1): writing the defaults of app group 'group.dev.kbhost.test' needs open access"))
        #expect(k.text.contains("kbhost access ID on"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/Library/Preferences/group.dev.kbhost.test.kbdefaults"))
    }

    @Test func anUndeclaredGroupIsNamedInTheError() throws {
        let k = try KeyboardTestDriver(SettingsKeyboard.self, hasFullAccess: true, appGroups: ["group.other": try groupFolder()])
        try k.tap("dark")
        #expect(k.text.hasPrefix("refused(2): app group 'group.dev.kbhost.test' is not declared in the keyboard's manifest"))
        #expect(k.text.contains("it declares group.other"))
    }

    @Test func thePasteboardAndSoundsNeedOpenAccessTheClickDoesNot() throws {
        let closed = try KeyboardTestDriver(SettingsKeyboard.self, text: "abc", pasteboard: "secret")
        try closed.type("paste", "beep")
        #expect(closed.text == "abcrefused: reading the pasteboard needs open access: the manifest must request it (RequestsOpenAccess) and the user must grant it (kbhost access ID on)refused: playing a sound other than the input click needs open access: the manifest must request it (RequestsOpenAccess) and the user must grant it (kbhost access ID on)")
        #expect(closed.soundsPlayed.isEmpty)

        let open = try KeyboardTestDriver(SettingsKeyboard.self, text: "abc", hasFullAccess: true, pasteboard: "pasted")
        try open.type("paste", "copy", "beep")
        #expect(open.text == "abcpasted")
        #expect(open.pasteboard == "abcpasted")
        #expect(open.soundsPlayed == ["Tink"])
    }

    @Test func textReplacementsReachTheKeyboard() throws {
        let k = try KeyboardTestDriver(SettingsKeyboard.self, text: "see you omw",
                                       lexicon: [LexiconEntry(userInput: "omw", documentText: "On my way!")])
        try k.tap("expand")
        #expect(k.text == "see you On my way!")
        k.setLexicon([])
        try k.type("space", "expand")
        #expect(k.text == "see you On my way! ")
    }
}
