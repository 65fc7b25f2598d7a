import Foundation
import KBHost
import Testing

@Suite("Keyboard manifests")
struct ManifestTests {
    func plist(_ body: String) -> Data {
        Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>\(body)</dict></plist>
        """.utf8)
    }

    func manifest(attributes: String = "", principal: String = "<key>NSExtensionPrincipalClass</key><string>KeyboardViewController</string>",
                  point: String = "com.apple.keyboard-service", executable: String = "libK.so", identifier: String = "dev.example.K") -> Data {
        plist("""
        <key>CFBundleIdentifier</key><string>\(identifier)</string>
        <key>CFBundleDisplayName</key><string>K</string>
        <key>CFBundleExecutable</key><string>\(executable)</string>
        <key>NSExtension</key><dict>
          <key>NSExtensionPointIdentifier</key><string>\(point)</string>
          \(principal)
          \(attributes)
        </dict>
        """)
    }

    func error(_ data: Data) -> ManifestError? {
        do { _ = try KeyboardManifest.decode(data, path: "/k/Info.plist"); return nil } catch { return error }
    }

    @Test func absentAttributesTakeIOSDefaults() throws {
        let m = try KeyboardManifest.decode(manifest(), path: "/k/Info.plist")
        #expect(m.bundleIdentifier == "dev.example.K")
        #expect(m.principalClass == "KeyboardViewController")
        #expect(m.primaryLanguage == "en-US")
        #expect(!m.isASCIICapable && !m.prefersRightToLeft && !m.requestsOpenAccess)
        #expect(m.bundleDirectory == "/k")
    }

    @Test func attributesAreRead() throws {
        let m = try KeyboardManifest.decode(manifest(attributes: """
            <key>NSExtensionAttributes</key><dict>
              <key>IsASCIICapable</key><true/><key>PrefersRightToLeft</key><true/>
              <key>PrimaryLanguage</key><string>ar-SA</string><key>RequestsOpenAccess</key><true/>
            </dict>
            """), path: "/k/Info.plist")
        #expect(m.isASCIICapable && m.prefersRightToLeft && m.requestsOpenAccess)
        #expect(m.primaryLanguage == "ar-SA")
    }

    @Test func binaryPropertyListsWork() throws {
        let object: [String: Any] = [
            "CFBundleIdentifier": "dev.example.Bin", "CFBundleExecutable": "libBin.so",
            "NSExtension": ["NSExtensionPointIdentifier": "com.apple.keyboard-service",
                            "NSExtensionPrincipalClass": "Bin",
                            "NSExtensionAttributes": ["PrimaryLanguage": "ja-JP"]],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let m = try KeyboardManifest.decode(data, path: "/b/Info.plist")
        #expect(m.primaryLanguage == "ja-JP")
        #expect(m.displayName == "dev.example.Bin", "without a display name, the identifier")
    }

    @Test func missingPrincipalClassNamesTheKeyPath() throws {
        let e = try #require(error(manifest(principal: "")))
        #expect(e.description == "/k/Info.plist: NSExtension.NSExtensionPrincipalClass is missing")
    }

    @Test func wrongTypeSaysWhatWasExpected() throws {
        let e = try #require(error(manifest(attributes: "<key>NSExtensionAttributes</key><dict><key>IsASCIICapable</key><string>yes</string></dict>")))
        #expect(e.keyPath == "NSExtension.NSExtensionAttributes.IsASCIICapable")
        #expect(e.problem.contains("a boolean"))
    }

    @Test func wrongExtensionPointIsRefused() throws {
        let e = try #require(error(manifest(point: "com.apple.share-services")))
        #expect(e.description.contains("expected 'com.apple.keyboard-service', found 'com.apple.share-services'"))
    }

    @Test(arguments: ["../evil.so", "/usr/lib/libevil.so", "a/../../evil.so"])
    func libraryPathsThatLeaveTheBundleAreRefused(path: String) throws {
        let e = try #require(error(manifest(executable: path)))
        #expect(e.keyPath == "CFBundleExecutable")
        #expect(e.problem.contains("leaves the bundle"))
    }

    @Test(arguments: ["en US", "e", "en_US", "en-", "12-US", ""])
    func primaryLanguageMustBeBCP47(tag: String) throws {
        let e = try #require(error(manifest(attributes: "<key>NSExtensionAttributes</key><dict><key>PrimaryLanguage</key><string>\(tag)</string></dict>")))
        #expect(e.keyPath == "NSExtension.NSExtensionAttributes.PrimaryLanguage")
    }

    @Test func notAPropertyListAtAll() throws {
        let e = try #require(error(Data("{ this is json }".utf8)))
        #expect(e.description.hasPrefix("/k/Info.plist: "))
        #expect(e.problem.contains("property list"))
    }

    @Test func missingFileSaysSo() {
        #expect(throws: ManifestError(file: "/nonexistent/Info.plist", keyPath: nil, problem: "does not exist")) {
            try KeyboardManifest.load(contentsOf: "/nonexistent/Info.plist")
        }
    }

    @Test func bundledManifestsAllLoad() throws {
        let installation = Installation.current()
        let dir = try #require(installation.manifestsDirectory)
        for entry in try FileManager.default.contentsOfDirectory(atPath: dir) {
            let m = try KeyboardManifest.load(contentsOf: "\(dir)/\(entry)/Info.plist")
            #expect(m.bundleIdentifier == "dev.kbhost.\(entry)")
        }
    }
}
