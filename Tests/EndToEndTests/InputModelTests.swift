import Foundation
import KBHost
import KBText
import Testing

/// The input models an author expects, through the real keyboards in their own processes:
/// what a key carries crosses the socket as it does in process.
@Suite("Input models in the extension process")
struct InputModelTests {
    @Test func scienceModeKeysCarryTheirModeAsAPayloadOverTheSocket() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.Science"))
        defer { session.close() }
        for mode in 0..<5 {
            #expect(session.layout.payload(ofKeyNamed: "id:mode.\(mode)") == "\(mode)")
        }
        #expect(session.layout.payload(ofKeyNamed: "q") == nil, "a character key carries none")
        // One action, setMode:, for the five keys: it reads the payload, not the identifier.
        for key in ["id:mode.1", "₂", "id:mode.3", "π", "id:mode.0", "x"] { try session.tap(key) }
        #expect(session.document.text == "₂πx")
        #expect(session.failure == nil)
    }

    /// NumberPad (C, the header alone) plays a light haptic with each deletion where the host has
    /// play_haptic: here under a manifest that requests open access, granted or not.
    func numberPad(fullAccess: Bool) throws -> KeyboardSession {
        let sample = try Fixtures.sample("dev.kbhost.NumberPad")
        let m = sample.manifest
        let manifest = KeyboardManifest(path: m.path, bundleIdentifier: "dev.kbhost.test.HapticNumberPad", displayName: "NumberPad",
                                        executable: m.executable, principalClass: m.principalClass, requestsOpenAccess: true)
        let session = try KeyboardSession(keyboard: LoadableKeyboard(manifest: manifest, libraryPath: sample.libraryPath),
                                          configuration: Fixtures.configuration, hasFullAccess: fullAccess)
        try session.appear()
        return session
    }

    @Test func aCKeyboardsHapticsAreEventsOnlyWithOpenAccess() throws {
        let granted = try numberPad(fullAccess: true)
        defer { granted.close() }
        for key in ["4", "2", "delete", "delete", "delete"] { try granted.tap(key) }
        #expect(granted.document.text == "")
        #expect(granted.events.filter { $0.name == "haptic" }.map(\.description) == ["haptic: light", "haptic: light"],
                "one per deletion, none for digits or a delete with nothing to delete: \(granted.events)")
        let refused = try numberPad(fullAccess: false)
        defer { refused.close() }
        for key in ["4", "2", "delete"] { try refused.tap(key) }
        #expect(refused.document.text == "4", "no haptic, and nothing else changes")
        #expect(!refused.events.contains { $0.name == "haptic" })
        #expect(refused.failure == nil)
    }

    @Test func englishOffersAccentsOnALongPressAndTypesThePick() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.English"))
        defer { session.close() }
        let e = try #require(session.layout.key(named: "e"))
        #expect(session.layout.extras(of: e)?.alternates == ["è", "é", "ê", "ë", "ē", "ė", "ę"], "received over the socket")
        try session.chooseAlternate("é", on: "e")
        try session.perform(.longPress, on: "e")
        #expect(session.document.text == "Ée", "picked (a sentence's first letter: a capital, the pick too), then let go without picking: a tap")
        #expect(session.events.map(\.description).filter { $0.contains("Alternates") || $0.hasPrefix("choose") }
                == ["showAlternates: è é ê ë ē ė ę", "chooseAlternate: é", "showAlternates: è é ê ë ē ė ę"])
        #expect(throws: SessionError.self) { try session.chooseAlternate("é", on: "t") }
        #expect(session.failure == nil)
    }

    @Test func kbhostTypePicksAnAlternateWithLongKeyChoice() throws {
        let (status, out, err) = try Fixtures.runCLI(["type", "--keyboard", "dev.kbhost.English", "long:e:é", "long:n:ñ"])
        #expect(status == 0, "\(err)")
        #expect(out == "Éñ\n", "the sentence's capital applies to the pick, as to the letter")
        let (refused, _, message) = try Fixtures.runCLI(["type", "--keyboard", "dev.kbhost.English", "long:e:x"])
        #expect(refused == 5, "no such key (or alternate): \(message)")
        #expect(message.contains("key 'e' of keyboard dev.kbhost.English offers no alternate 'x'; it offers: è é ê ë ē ė ę"), "\(message)")
    }

    @Test func englishsSpaceBarMovesTheCursorWhenDraggedAndTypesNoSpace() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.English"), text: "hello world")
        defer { session.close() }
        #expect(session.layout.extras(of: try #require(session.layout.key(named: "space")))?.dragAction == "dragCursor:event:")
        try session.drag("space", path: [TapStep.DragOffset(dx: -25), TapStep.DragOffset(dx: -52)])
        #expect(session.document.text == "hello world", "no space typed")
        #expect(session.document.buffer.selection.location == 6, "five characters left, one per 10 points: \(session.document.buffer.selection)")
        try session.drag("space", path: [TapStep.DragOffset(dx: 30, dy: -20)])
        #expect(session.document.buffer.selection.location == 9)
        #expect(session.failure == nil)
    }

    @Test func kbhostTypeDragsTheSpaceBar() throws {
        let (status, out, err) = try Fixtures.runCLI(["type", "--keyboard", "dev.kbhost.English", "--autocapitalization", "none",
                                                      "h", "e", "l", "l", "o", "drag:space:-20/-30", "x"])
        #expect(status == 0, "\(err)")
        #expect(out == "hexllo\n", "three characters left, then x")
        let (bad, _, message) = try Fixtures.runCLI(["type", "--keyboard", "dev.kbhost.English", "drag:space:left"])
        #expect(bad != 0)
        #expect(message.contains("'drag:space:left': drag:KEY:DX[,DY]/"), "\(message)")
    }
}
