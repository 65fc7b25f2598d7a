import Foundation
import KBHost
import Testing

/// A keyboard's text and a manifest's names reach the terminal through the real
/// CLI as data: sequences in them are shown escaped, never obeyed.
@Suite("Text from a keyboard or a manifest is data")
struct TextIsDataTests {
    var env: [String: String] { ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""] }
    /// What the hostile keyboard's escape key types (and writes to its stderr), as kbhost shows it.
    static let shown = #"\u{1B}[2J\u{1B}]52;c;aGk=\u{7}\u{9B}"#

    /// A binary manifest (XML cannot hold ESC) for a bundle with a stand-in library.
    func writeBundle(_ folder: String, id: String, name: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/libKeyboard.so", contents: Data())
        let plist: [String: Any] = [
            "CFBundleIdentifier": id, "CFBundleDisplayName": name, "CFBundleExecutable": "libKeyboard.so",
            "NSExtension": ["NSExtensionPointIdentifier": "com.apple.keyboard-service",
                            "NSExtensionPrincipalClass": "KeyboardViewController"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
            .write(to: URL(fileURLWithPath: folder + "/Info.plist"))
    }

    static let forgedName = "Evil\u{1B}[2J\n* 1 dev.kbhost.System System en-US    yes   no  -"

    @Test func validateRefusesADisplayNameThatClearsTheScreenAndForgesARow() throws {
        let w = try World()
        try writeBundle(w.root + "/evil", id: "dev.example.Evil", name: TextIsDataTests.forgedName)
        let r = try w.kbhost("validate", w.root + "/evil")
        #expect(r.status == 10)
        #expect(r.out.contains(#"CFBundleDisplayName 'Evil\u{1B}[2J\n* 1 dev.kbhost.System"#), "\(r.out)")
        #expect(!hasTerminalControls(r.out))
        #expect(r.out.split(separator: "\n").count == 1, "no forged line")
    }

    @Test func listSkipsSuchAKeyboardAndSaysSoOnOneEscapedLine() throws {
        let w = try World()
        try w.standardKeyboards()
        try writeBundle(w.manifests + "/evil", id: "dev.example.Evil", name: TextIsDataTests.forgedName)
        let r = try w.kbhost("list", "--all")
        #expect(r.status == 0)
        #expect(r.out.split(separator: "\n").count == 5, "the header, System, Alpha, Beta, Gamma: \(r.out)")
        #expect(!r.out.contains("Evil"))
        #expect(r.err.contains("kbhost: warning: skipped") && r.err.contains("CFBundleDisplayName"))
        #expect(!hasTerminalControls(r.err))
        #expect(r.err.split(separator: "\n").count == 1)
    }

    @Test func typePrintsTheDocumentsControlCharactersEscaped() throws {
        let w = try World()
        let r = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "own", "escape"], extraEnvironment: env)
        #expect(r.status == 0, "\(r.err)")
        #expect(!hasTerminalControls(r.out))
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3, "the document's own newline stays: \(r.out)")
        #expect(lines.first?.hasPrefix("own: allowed: wrote 6 bytes to ") == true)
        #expect(lines[1] == TextIsDataTests.shown[...])
    }

    @Test func typeJSONEscapesC0DelAndC1() throws {
        let w = try World()
        let r = try w.run(["type", "--json", "--keyboard", "dev.kbhost.Hostile", "escape"], extraEnvironment: env)
        #expect(r.status == 0, "\(r.err)")
        #expect(!hasTerminalControls(r.out))
        #expect(r.out.contains(#""text" : "\u001b[2J\u001b]52;c;aGk=\u0007\u009b""#), "\(r.out)")
        // And it is still JSON that says what the keyboard typed.
        let decoded = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any]
        #expect(decoded?["text"] as? String == "\u{1B}[2J\u{1B}]52;c;aGk=\u{7}\u{9B}")
    }

    @Test func attachDrawsTheDocumentsControlCharactersEscaped() throws {
        let w = try World()
        let env = ["KBHOST_HOME": w.home, "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!,
                   "KBHOST_RUNTIME_DIR": w.root + "/run"]
        let t = try PseudoTerminalSession(arguments: ["attach", "--text", "a\u{1B}]52;c;aGk=\u{7}\u{9B}2Jb"], environment: env)
        defer { t.press([27]) }
        #expect(t.waitFor(#"a\u{1B}]52;c;aGk=\u{7}\u{9B}2Jb"# + AttachTests.caret), "\(t.screen.debugDescription)")
        #expect(!t.screen.contains("\u{1B}]52"), "no clipboard write reached the terminal")
        #expect(!t.screen.unicodeScalars.contains("\u{9B}"))
    }

    #if arch(x86_64)
    /// The hostile keyboard's escape key also writes the sequences to its stderr; x32 then ends it (SIGSYS).
    @Test func aFailurePrintsTheKeyboardsOutputEscaped() throws {
        let w = try World()
        let r = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "escape", "x32"], extraEnvironment: env)
        #expect(r.status == 4)
        #expect(r.out == TextIsDataTests.shown + "\n", "what it typed stays, escaped")
        #expect(r.err.contains("failed during key 'x32': ended by signal SIGSYS\n  its output ended with:\n    " + TextIsDataTests.shown + "\n"),
                "\(r.err)")
        #expect(!hasTerminalControls(r.err))
    }
    #endif
}

/// IBus reads `kbhost ibus engines --xml` as XML 1.0: a display name holding a character XML
/// cannot carry (U+FFFF, found by the third red team) must not make the whole list unreadable.
@Suite struct EngineListXMLTests {
    /// The long names a strict XML 1.0 parser (Python's expat) reads from `xml`; nil if it refuses it.
    func longNames(_ xml: String) throws -> [String]? {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", """
            import sys, xml.dom.minidom as m
            d = m.parseString(sys.stdin.buffer.read())
            print("\\n".join(e.firstChild.data if e.firstChild else "" for e in d.getElementsByTagName("longname")))
            """]
        let input = Pipe(), output = Pipe()
        python.standardInput = input
        python.standardOutput = output
        python.standardError = FileHandle.nullDevice
        try python.run()
        input.fileHandleForWriting.write(Data(xml.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        guard python.terminationStatus == 0 else { return nil }
        return String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
    func aNameWithCharactersXMLCannotHoldStillGivesAListIBusCanRead() throws {
        let w = try World()
        try w.standardKeyboards()
        try TextIsDataTests().writeBundle(w.manifests + "/odd", id: "dev.example.Odd", name: "Odd\u{FFFF}\u{FFFE}Name")
        #expect(try w.kbhost("enable", "dev.example.Odd").status == 0)
        let r = try w.kbhost("ibus", "engines", "--xml")
        #expect(r.status == 0)
        let names = try #require(try longNames(r.out), "the list is not XML: \(r.out)")
        #expect(names.contains("Odd\u{FFFD}\u{FFFD}Name (kbhost)"), "\(names)")
        // The positive control: the name as it is cannot be carried (the parser refuses it).
        #expect(try longNames("<engines><engine><longname>Odd\u{FFFF}</longname></engine></engines>") == nil)
        #expect(try longNames("<engines><engine><longname>Odd</longname></engine></engines>") == ["Odd"])
    }
}
