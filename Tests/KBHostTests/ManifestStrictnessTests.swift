import Foundation
import KBHost
import Testing

/// XML manifests are read as a conforming parser reads them, within bounds: what libxml2
/// rejects is rejected, a key appears once per dictionary, and no depth or length stops
/// the reader. Each error names the file and the key path, as plutil writes it.
@Suite("Keyboard manifests: strict XML within bounds")
struct ManifestStrictnessTests {
    static let head = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">

        """

    /// A valid manifest's root dictionary with `extra` inside it, after the keys kbhost reads.
    static func manifest(identifier: String = "dev.example.K", extra: String = "", reads: String = "") -> String {
        head + """
        <plist version="1.0"><dict>
          <key>CFBundleIdentifier</key><string>\(identifier)</string>
          <key>CFBundleExecutable</key><string>libK.so</string>
          <key>KBHostReadOnlyPaths</key><array><string>/usr/share/k</string>\(reads)</array>
          <key>NSExtension</key><dict>
            <key>NSExtensionPointIdentifier</key><string>com.apple.keyboard-service</string>
            <key>NSExtensionPrincipalClass</key><string>K</string>
            <key>NSExtensionAttributes</key><dict><key>PrimaryLanguage</key><string>en-US</string></dict>
          </dict>\(extra)
        </dict></plist>

        """
    }

    func error(_ text: String) -> ManifestError? { error(Array(text.utf8)) }

    func error(_ bytes: [UInt8]) -> ManifestError? {
        do { _ = try KeyboardManifest.decode(bytes, path: "/k/Info.plist"); return nil } catch { return error }
    }

    @Test func theValidOneIsAccepted() throws {
        let m = try KeyboardManifest.decode(Array(Self.manifest().utf8), path: "/k/Info.plist")
        #expect(m.bundleIdentifier == "dev.example.K" && m.readOnlyPaths == ["/usr/share/k"])
    }

    /// 10,000 levels under a key kbhost does not read crashed Foundation's parser (SIGSEGV).
    @Test(arguments: ["<array>", "<dict><key>k</key>"])
    func tenThousandLevelsAreAnErrorNotACrash(open: String) throws {
        let close = open == "<array>" ? "</array>" : "</dict>"
        let deep = String(repeating: open, count: 10_000) + String(repeating: close, count: 10_000)
        let e = try #require(error(Self.manifest(extra: "<key>Z</key>" + deep)))
        #expect(e.problem == "nests dictionaries and arrays more than 32 deep")
        #expect(e.keyPath?.hasPrefix("Z") == true)
    }

    @Test func thirtyTwoLevelsAreTheLimit() throws {
        func nested(_ n: Int) -> String { "<key>Z</key>" + String(repeating: "<array>", count: n) + String(repeating: "</array>", count: n) }
        #expect(error(Self.manifest(extra: nested(KeyboardManifest.depthLimit - 1))) == nil, "the root dictionary and 31 arrays")
        #expect(error(Self.manifest(extra: nested(KeyboardManifest.depthLimit)))?.problem.contains("more than 32 deep") == true)
    }

    /// What Foundation's XML reader accepted and a conforming parser rejects.
    @Test(arguments: [
        ("trailing garbage", ManifestStrictnessTests.manifest() + "garbage", "has content after its root element"),
        ("a trailing element", ManifestStrictnessTests.manifest() + "<string>x</string>", "has content after its root element"),
        ("two roots", ManifestStrictnessTests.manifest() + "<plist><dict/></plist>", "has content after its root element"),
        ("no </plist>", String(ManifestStrictnessTests.manifest().dropLast("</plist>\n".count)), "root element"),
        ("no </dict>", ManifestStrictnessTests.manifest().replacingOccurrences(of: "</dict></plist>", with: "</plist>"), "not closed"),
        ("&#0;", ManifestStrictnessTests.manifest(identifier: "dev.example&#0;.K"), "a character XML does not allow"),
        ("an undeclared entity", ManifestStrictnessTests.manifest(identifier: "dev.example.&k;"), "refers to an entity"),
    ] as [(String, String, String)])
    func notWellFormedIsRefused(what: String, text: String, expected: String) throws {
        let e = try #require(error(text), "\(what)")
        #expect(e.keyPath == nil, "\(what): the file as a whole")
        #expect(e.problem.contains(expected), "\(what): \(e)")
        #expect(e.problem.contains("(line "), "\(what): says where: \(e)")
    }

    @Test func aKeyTwiceIsRefusedNamingIt() throws {
        let top = try #require(error(Self.manifest(extra: "<key>CFBundleIdentifier</key><string>dev.example.Other</string>")))
        #expect(top.description == "/k/Info.plist: CFBundleIdentifier appears twice in one dictionary; a key may appear once")
        let nested = try #require(error(Self.manifest().replacingOccurrences(
            of: "<key>PrimaryLanguage</key>", with: "<key>PrimaryLanguage</key><string>ja-JP</string><key>PrimaryLanguage</key>")))
        #expect(nested.keyPath == "NSExtension.NSExtensionAttributes.PrimaryLanguage")
        let inArray = try #require(error(Self.manifest(extra: "<key>Z</key><array><true/><dict><key>a</key><true/><key>a</key><true/></dict></array>")))
        #expect(inArray.keyPath == "Z[1].a")
    }

    @Test func declarationsOfItsOwnAreRefusedBeforeLibxml2SeesThem() throws {
        let bomb = "<?xml version=\"1.0\"?><!DOCTYPE plist [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>"
        let e = try #require(error(bomb + Self.manifest(identifier: "&b;").dropFirst(Self.head.count)))
        #expect(e.problem.contains("declares entities or elements of its own"))
        let external = "<?xml version=\"1.0\"?><!DOCTYPE plist [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
        #expect(error(external + Self.manifest(identifier: "&x;").dropFirst(Self.head.count)) != nil)
    }

    /// NULs are refused before libxml2 sees them: XML allows none, and they would let it take the bytes for UTF-16.
    @Test func nulBytesAreRefused() throws {
        let e = try #require(error(Self.manifest(identifier: "dev.example\u{0}.K")))
        #expect(e.description == "/k/Info.plist: holds a NUL byte, a character XML does not allow")
        let utf16 = Array(Self.manifest().utf16).flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        #expect(try #require(error(utf16)).problem.contains("NUL"), "UTF-16 without a byte order mark")
    }

    /// libxml2 switches encodings while it reads the declaration, and crashed on this one
    /// (found by scripts/fuzz-manifests; kept in Fixtures/manifests/regressions).
    @Test func theDeclarationEndsAndNamesOnlyUTF8() throws {
        let body = Self.manifest().dropFirst("<?xml version=\"1.0\" encoding=\"UTF-8\"?>".count)
        let unterminated = try #require(error("<?xml version=\"1.0\" encoding=\"UTF-7\"\u{7F}>" + body))
        #expect(unterminated.problem == "has an XML declaration (<?xml …) that does not end with ?>")
        let utf7 = try #require(error("<?xml version=\"1.0\" encoding='UTF-7'?>" + body))
        #expect(utf7.problem.contains("declares the encoding 'UTF-7'"))
        #expect(error("<?xml version=\"1.0\" encoding=\"utf-8\"?>" + body) == nil)
        #expect(try #require(error("<?xml-stylesheet href=\"x\"?>" + body)).problem.contains("processing instruction"))
        #expect(try #require(error(Self.manifest(extra: "<key>Z</key><string>a<?x?>b</string>"))).problem.contains("processing instruction"),
                "FoundationXML dereferences NULL on an empty one")
    }

    @Test func onlyUTF8IsRead() throws {
        let latin1 = Self.manifest().replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"ISO-8859-1\"")
        #expect(try #require(error(latin1)).problem.contains("'ISO-8859-1'"))
        var bytes = Array(Self.manifest().utf8)
        bytes[bytes.firstIndex(of: UInt8(ascii: "K"))!] = 0xE9
        #expect(try #require(error(bytes)).problem.contains("not UTF-8"))
    }

    /// A 1 MB identifier gave a 1 MB error: a string is at most 64 KiB, and quoted values are cut.
    @Test func hugeStringsAndKeysAreRefusedWithShortMessages() throws {
        let identifier = try #require(error(Self.manifest(identifier: "dev.example." + String(repeating: "a", count: 1_000_000))))
        #expect(identifier.description == "/k/Info.plist: CFBundleIdentifier has a <string> longer than 65536 bytes")
        let key = try #require(error(Self.manifest(extra: "<key>" + String(repeating: "k", count: 70_000) + "</key><true/>")))
        #expect(key.description.count < 300, "\(key.description.count) characters")
        let quoted = try #require(error(Self.manifest(identifier: "dev.example." + String(repeating: "b", count: 60_000))))
        #expect(quoted.problem.contains("longer than 255 characters") && quoted.description.count < 300)
    }

    @Test func aFileOverOneMiBIsNotRead() throws {
        let big = Self.manifest(extra: "<!--" + String(repeating: " ", count: 1 << 20) + "-->")
        #expect(try #require(error(big)).problem.contains("a manifest is at most 1048576 bytes"))
    }

    /// Errors name key paths as plutil does: `KBHostReadOnlyPaths[1]`, not `KBHostReadOnlyPaths.Index 1`.
    @Test func keyPathsUseBracketsForIndexes() throws {
        let notAString = try #require(error(Self.manifest(reads: "<integer>7</integer>")))
        #expect(notAString.description == "/k/Info.plist: KBHostReadOnlyPaths[1] expected a string, found an integer")
        let refused = try #require(error(Self.manifest(reads: "<string>/home/me</string>")))
        #expect(refused.keyPath == "KBHostReadOnlyPaths[1]")
        let type = try #require(error(Self.manifest().replacingOccurrences(
            of: "<string>en-US</string>", with: "<array><string>en-US</string></array>")))
        #expect(type.description == "/k/Info.plist: NSExtension.NSExtensionAttributes.PrimaryLanguage expected a string, found an array")
    }

    @Test(arguments: [
        ("<key>Z</key><script>x</script>", "is not part of a property list", "Z"),
        ("stray<key>Z</key><true/>", "outside a value", nil),
        ("<key>Z</key>", "has no value for the key 'Z'", "Z"),
        ("<string>lonely</string>", "where a <key> belongs", nil),
        ("<key>Z</key><array><key>a</key></array>", "outside a dictionary", "Z[0]"),
        ("<key>Z</key><string>a<b/>c</string>", "inside <string>", "Z"),
        ("<key>Z</key><integer>12abc</integer>", "not a 64-bit integer", "Z"),
        ("<key>Z</key><real>one</real>", "not a number", "Z"),
        ("<key>Z</key><date>yesterday</date>", "not a date", "Z"),
        ("<key>Z</key><data>!!!</data>", "not base64", "Z"),
    ] as [(String, String, String?)])
    func whatAPropertyListCannotHoldIsRefused(extra: String, expected: String, keyPath: String?) throws {
        let e = try #require(error(Self.manifest(extra: extra)), "\(extra)")
        #expect(e.problem.contains(expected), "\(e)")
        #expect(e.keyPath == keyPath, "\(e)")
    }

    @Test func valuesKbhostDoesNotReadAreCheckedAndAccepted() throws {
        let extra = "<key>I</key><integer>-42</integer><key>H</key><integer>0x2A</integer><key>R</key><real>2.5e3</real>"
            + "<key>D</key><date>2001-01-01T00:00:00Z</date><key>B</key><data>AAH/\n</data>"
            + "<!-- a comment --><key>C</key><string><![CDATA[a <b> & c]]></string>"
        #expect(error(Self.manifest(extra: extra)) == nil)
        #expect(error([0xEF, 0xBB, 0xBF] + Array(Self.manifest().utf8)) == nil, "a UTF-8 byte order mark")
    }

    @Test(arguments: ["", "  \n", "{\"CFBundleIdentifier\": \"x\"}", "root:x:0:0:root:/root:/bin/bash\n", "{ A = B; }"])
    func whatIsNotAPropertyListSaysSo(text: String) throws {
        let e = try #require(error(text))
        #expect(e.keyPath == nil)
        #expect(e.problem == (text.isEmpty ? "is empty" : "is neither an XML nor a binary property list"), "\(e)")
    }

    @Test func theRootIsADictionary() throws {
        let e = try #require(error(Self.head + "<plist version=\"1.0\"><array><true/></array></plist>"))
        #expect(e.description == "/k/Info.plist: holds an array at its root; a manifest is a dictionary")
        #expect(try #require(error(Self.head + "<dict/>")).problem.contains("not <plist>"))
        #expect(try #require(error(Self.head + "<plist version=\"1.0\"></plist>")).problem.contains("empty <plist>"))
    }
}
