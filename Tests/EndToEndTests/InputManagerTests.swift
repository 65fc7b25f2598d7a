import Foundation
import KBHost
import Testing

/// A throwaway world for the CLI: its own KBHOST_HOME, and fixture keyboards
/// in place of the bundled ones.
final class World {
    let root: String
    var home: String { root + "/home" }
    var manifests: String { root + "/manifests" }

    init() throws {
        root = NSTemporaryDirectory() + "kbhost-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/manifests", withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Adds a keyboard bundle (Info.plist and an empty stand-in library).
    func addKeyboard(_ id: String, name: String, language: String = "en-US", ascii: Bool = true, rtl: Bool = false,
                     openAccess: Bool = false, folder: String? = nil) throws {
        let bundle = (folder ?? manifests) + "/" + id
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: bundle + "/libKeyboard.so", contents: Data())
        let plist: [String: Any] = [
            "CFBundleIdentifier": id, "CFBundleDisplayName": name, "CFBundleExecutable": "libKeyboard.so",
            "NSExtension": ["NSExtensionPointIdentifier": "com.apple.keyboard-service",
                            "NSExtensionPrincipalClass": "KeyboardViewController",
                            "NSExtensionAttributes": ["PrimaryLanguage": language, "IsASCIICapable": ascii,
                                                      "PrefersRightToLeft": rtl, "RequestsOpenAccess": openAccess]],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: bundle + "/Info.plist"))
    }

    func kbhost(_ arguments: String...) throws -> (status: Int32, out: String, err: String) {
        try run(arguments)
    }

    /// A real keyboard bundle: a copy of a built plugin and a manifest naming one of its classes.
    @discardableResult
    func makeBundle(id: String, library: String, principal: String, name: String? = nil, at path: String? = nil,
                    extra: [String: Any] = [:]) throws -> String {
        let bundle = path ?? root + "/bundles/" + id
        try? FileManager.default.removeItem(atPath: bundle)
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.installation.productsDirectory + "/" + library,
                                         toPath: bundle + "/" + library)
        var plist: [String: Any] = [
            "CFBundleIdentifier": id, "CFBundleExecutable": library,
            "NSExtension": ["NSExtensionPointIdentifier": "com.apple.keyboard-service",
                            "NSExtensionPrincipalClass": principal,
                            "NSExtensionAttributes": ["IsASCIICapable": true]],
        ]
        if let name { plist["CFBundleDisplayName"] = name }
        plist.merge(extra) { $1 }
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
            .write(to: URL(fileURLWithPath: bundle + "/Info.plist"))
        return bundle
    }

    /// The environment of this world's kbhost processes.
    var environment: [String: String?] { ["KBHOST_HOME": home, "KBHOST_MANIFESTS": manifests, "KBHOST_KEYBOARDS": nil] }

    func run(_ arguments: [String], extraEnvironment: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        try Fixtures.runCLI(arguments, environment: environment.merging(extraEnvironment.mapValues { $0 }) { $1 })
    }

    func standardKeyboards() throws {
        try addKeyboard("dev.example.Alpha", name: "Alpha")
        try addKeyboard("dev.example.Beta", name: "Beta", language: "ja-JP", ascii: false, openAccess: true)
        try addKeyboard("dev.example.Gamma", name: "Gamma", language: "ar-SA", rtl: true)
    }
}

@Suite("Input manager CLI")
struct InputManagerTests {
    @Test func goldenListOfFreshSettings() throws {
        let w = try World()
        try w.standardKeyboards()
        let r = try w.kbhost("list", "--all")
        #expect(r.status == 0)
        #expect(r.out == """
              # IDENTIFIER        NAME   LANGUAGE ASCII RTL OPEN ACCESS FAILURES
            * 1 dev.kbhost.System System en-US    yes   no  -           -
              - dev.example.Alpha Alpha  en-US    yes   no  -           -
              - dev.example.Beta  Beta   ja-JP    no    no  requested   -
              - dev.example.Gamma Gamma  ar-SA    yes   yes -           -

            """)
    }

    @Test func goldenEnableNextCurrent() throws {
        let w = try World()
        try w.standardKeyboards()
        #expect(try w.kbhost("enable", "dev.example.Alpha", "dev.example.Beta").status == 0)
        #expect(try w.kbhost("access", "dev.example.Beta", "on").status == 0)
        #expect(try w.kbhost("next").out == "dev.example.Alpha\n")
        #expect(try w.kbhost("next").out == "dev.example.Beta\n")
        #expect(try w.kbhost("current").out == "dev.example.Beta\n")
        #expect(try w.kbhost("list").out == """
              # IDENTIFIER        NAME   LANGUAGE ASCII RTL OPEN ACCESS FAILURES
              1 dev.kbhost.System System en-US    yes   no  -           -
              2 dev.example.Alpha Alpha  en-US    yes   no  -           -
            * 3 dev.example.Beta  Beta   ja-JP    no    no  granted     -

            """)
        #expect(try w.kbhost("next").out == "dev.kbhost.System\n")
    }

    @Test func bundledSampleKeyboardsCycleAsTheIssueSays() throws {
        let w = try World()
        let r = try w.run(["enable", "dev.kbhost.Calculator", "dev.kbhost.Science"],
                          extraEnvironment: ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!])
        #expect(r.status == 0, "\(r.err)")
        var names: [String] = []
        for _ in 0..<3 {
            names.append(try w.run(["next"], extraEnvironment: ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!]).out)
        }
        #expect(names == ["dev.kbhost.Calculator\n", "dev.kbhost.Science\n", "dev.kbhost.System\n"])
    }

    @Test func eligibilityWithTheRealSampleKeyboards() throws {
        let w = try World()
        let real = ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!]
        _ = try w.run(["enable", "dev.kbhost.Science", "dev.kbhost.Calculator"], extraEnvironment: real)
        // Science is not ASCII-capable: an email field skips it; Calculator is.
        #expect(try w.run(["next", "--keyboard-type", "emailAddress"], extraEnvironment: real).out == "dev.kbhost.Calculator\n")
        #expect(try w.run(["next", "--secure"], extraEnvironment: real).out == "dev.kbhost.System\n")
        #expect(try w.run(["next"], extraEnvironment: real).out == "dev.kbhost.Science\n")
        // And the session really gets it: with the device drawing the globe key, no keyboard shows one.
        #expect(try w.run(["globe-key", "device"], extraEnvironment: real).status == 0)
        let settings = try SettingsStore(directory: w.home).load()
        #expect(!InputModes.needsInputModeSwitchKey(settings, deviceDrawsGlobeKey: settings.deviceDrawsGlobeKey))
        #expect(InputModes.needsInputModeSwitchKey(settings, deviceDrawsGlobeKey: false))
        _ = try w.run(["disable", "dev.kbhost.Science", "dev.kbhost.Calculator"], extraEnvironment: real)
        #expect(!InputModes.needsInputModeSwitchKey(try SettingsStore(directory: w.home).load(), deviceDrawsGlobeKey: false),
                "one keyboard enabled: no globe key needed")
    }

    @Test func eligibilitySkipsKeyboardsThatMayNotServeTheField() throws {
        let w = try World()
        try w.standardKeyboards()
        _ = try w.kbhost("enable", "dev.example.Beta", "dev.example.Alpha")
        // ASCII-only field: Beta (not ASCII-capable) is skipped.
        #expect(try w.kbhost("next", "--keyboard-type", "url").out == "dev.example.Alpha\n")
        #expect(try w.kbhost("next", "--keyboard-type", "emailAddress").out == "dev.kbhost.System\n")
        // Secure fields and phone pads: only the system keyboard.
        #expect(try w.kbhost("next", "--secure").out == "dev.kbhost.System\n")
        #expect(try w.kbhost("next", "--keyboard-type", "phonePad").out == "dev.kbhost.System\n")
        #expect(try w.kbhost("next", "--no-third-party").out == "dev.kbhost.System\n")
        #expect(try w.kbhost("next").out == "dev.example.Beta\n")
    }

    @Test func refusalsAreClearAndChangeNothing() throws {
        let w = try World()
        try w.standardKeyboards()
        let only = try w.kbhost("disable", "dev.kbhost.System")
        #expect(only.status == 7)
        #expect(only.err.contains("only enabled keyboard"))
        let access = try w.kbhost("access", "dev.example.Alpha", "on")
        #expect(access.status == 7)
        #expect(access.err.contains("does not request open access"))
        let unknown = try w.kbhost("enable", "dev.example.Nope")
        #expect(unknown.status == 3)
        #expect(unknown.err.contains("dev.example.Alpha"))
        let notEnabled = try w.kbhost("set", "dev.example.Gamma")
        #expect(notEnabled.status == 6)
        #expect(try w.kbhost("current").out == "dev.kbhost.System\n")
    }

    /// A duplicated identifier made every command fail (exit 9): the first found is used, the other skipped with a warning.
    @Test func duplicateIdentifiersKeepTheFirstAndNameBothPaths() throws {
        let w = try World()
        try w.addKeyboard("dev.example.Twin", name: "One")
        let other = w.root + "/more"
        try w.addKeyboard("dev.example.Twin", name: "Two", folder: other)
        try w.addKeyboard("dev.example.Twin", name: "Three", folder: w.home + "/Keyboards")
        let env = ["KBHOST_KEYBOARDS": other]
        let r = try w.run(["list", "--all"], extraEnvironment: env)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("dev.example.Twin  One"), "\(r.out)")
        for skipped in [other + "/dev.example.Twin/Info.plist", w.home + "/Keyboards/dev.example.Twin/Info.plist"] {
            #expect(r.err.contains("kbhost: warning: skipped \(skipped): CFBundleIdentifier dev.example.Twin is already the identifier of "
                                   + "\(w.manifests)/dev.example.Twin/Info.plist (bundled)"), "\(r.err)")
        }
        #expect(try w.run(["enable", "dev.example.Twin"], extraEnvironment: env).status == 0)
        #expect(try w.run(["next"], extraEnvironment: env).out == "dev.example.Twin\n")
        #expect(try w.run(["current", "--verbose"], extraEnvironment: env).out == "One (dev.example.Twin)\n", "the first found")
    }

    @Test func corruptAndFutureSettingsAreErrorsAndNeverReplaced() throws {
        let w = try World()
        try w.standardKeyboards()
        _ = try w.kbhost("enable", "dev.example.Alpha")
        let path = w.home + "/settings.json"
        try Data("{\"version\": 99, \"enabled\": []}".utf8).write(to: URL(fileURLWithPath: path))
        let future = try w.kbhost("enable", "dev.example.Gamma")
        #expect(future.status == 8)
        #expect(future.err.contains("format version 99"))
        try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
        let corrupt = try w.kbhost("next")
        #expect(corrupt.status == 8)
        #expect(corrupt.err.contains("corrupt"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not json", "left as it was")
        #expect(try w.kbhost("reset").status == 0)
        #expect(try w.kbhost("current").out == "dev.kbhost.System\n")
    }
}

@Suite("validate and install")
struct BundleCommandTests {
    func makeBundle(in w: World, id: String, library: String, principal: String) throws -> String {
        try w.makeBundle(id: id, library: library, principal: principal, name: "Pad Copy")
    }

    @Test func installThenEnableThenTypeThroughIt() throws {
        let w = try World()
        let bundle = try makeBundle(in: w, id: "dev.example.PadCopy", library: "libNumberPadKeyboard.so",
                                    principal: "NumberPadViewController")
        let installed = try w.kbhost("install", bundle)
        #expect(installed.status == 0, "\(installed.err)")
        #expect(FileManager.default.fileExists(atPath: w.home + "/Keyboards/dev.example.PadCopy/Info.plist"))
        #expect(try w.kbhost("list", "--all").out.contains("dev.example.PadCopy"))
        #expect(try w.kbhost("enable", "dev.example.PadCopy").status == 0)
        let typed = try w.kbhost("type", "--keyboard", "dev.example.PadCopy", "4", "2")
        #expect(typed.out == "42\n")
        // Installing again replaces the installed copy.
        #expect(try w.kbhost("install", bundle).status == 0)
    }

    @Test func validateLoadsThePluginAndReportsItsErrors() throws {
        let w = try World()
        let good = try makeBundle(in: w, id: "dev.example.Good", library: "libNumberPadKeyboard.so",
                                  principal: "NumberPadViewController")
        let bad = try makeBundle(in: w, id: "dev.example.Bad", library: "libFaultKeyboards.so", principal: "BadEncoding")
        let ok = try w.kbhost("validate", good)
        #expect(ok.status == 0)
        let r = try w.kbhost("validate", good, bad)
        #expect(r.status == 10)
        #expect(r.out.contains("selector viewDidLoad has type encoding 'v@:i', but kbhost passes 'v@:'"))
    }

    @Test func installRefusesABundleWithoutItsLibrary() throws {
        let w = try World()
        try w.addKeyboard("dev.example.Empty", name: "Empty", folder: w.root + "/b")
        try FileManager.default.removeItem(atPath: w.root + "/b/dev.example.Empty/libKeyboard.so")
        let r = try w.kbhost("install", w.root + "/b/dev.example.Empty")
        #expect(r.status == 10)
        #expect(r.err.contains("libKeyboard.so"))
    }
}

@Suite("Set-aside keyboards")
struct SetAsideTests {
    @Test func listSaysWhyAndNextSkipsItUntilEnabledAgain() throws {
        let w = try World()
        try w.standardKeyboards()
        _ = try w.kbhost("enable", "dev.example.Alpha", "dev.example.Gamma")
        try SettingsStore(directory: w.home).update { s in
            for _ in 0..<3 { s.recordFailure(of: "dev.example.Alpha", reason: "ended by signal SIGSEGV", at: 0) }
        }
        let list = try w.kbhost("list")
        #expect(list.out.contains("dev.example.Alpha is set aside after 3 failures (last: ended by signal SIGSEGV); `kbhost enable dev.example.Alpha` to try it again"))
        #expect(try w.kbhost("next").out == "dev.example.Gamma\n", "Alpha is skipped")
        _ = try w.kbhost("enable", "dev.example.Alpha")
        #expect(!(try w.kbhost("list").out.contains("set aside")))
        #expect(try w.kbhost("next").out == "dev.kbhost.System\n")
        #expect(try w.kbhost("next").out == "dev.example.Alpha\n", "back in the rotation")
    }
}
