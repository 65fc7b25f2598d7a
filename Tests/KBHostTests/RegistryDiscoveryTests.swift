import Foundation
import KBHost
import Testing

/// Folders of keyboard bundles made for one test, and an installation whose bundled
/// manifests are one of them.
final class KeyboardFolders {
    let root = NSTemporaryDirectory() + "kbhost-registry-" + UUID().uuidString
    var bundled: String { root + "/bundled" }
    var extra: String { root + "/extra" }
    var home: String { root + "/home" }
    var installed: String { home + "/Keyboards" }
    var installation: Installation { Installation(productsDirectory: root + "/products", manifestsDirectory: bundled) }

    init() throws {
        for folder in [bundled, extra, installed, root + "/products"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// A bundle in `folder` named `name` (the identifier by default): its Info.plist and an empty library.
    @discardableResult
    func add(_ id: String, displayName: String, in folder: String, name: String? = nil,
             executable: String = "libK.so", plist: [UInt8]? = nil) throws -> String {
        let bundle = folder + "/" + (name ?? id)
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        let manifest: [String: Any] = [
            "CFBundleIdentifier": id, "CFBundleDisplayName": displayName, "CFBundleExecutable": executable,
            "NSExtension": ["NSExtensionPointIdentifier": "com.apple.keyboard-service", "NSExtensionPrincipalClass": "K"],
        ]
        let bytes = try plist ?? [UInt8](PropertyListSerialization.data(fromPropertyList: manifest, format: .xml, options: 0))
        try Data(bytes).write(to: URL(fileURLWithPath: bundle + "/Info.plist"))
        if !executable.contains("/") { _ = FileManager.default.createFile(atPath: bundle + "/" + executable, contents: Data()) }
        return bundle + "/Info.plist"
    }

    func discover(keyboards: String? = nil) throws -> KeyboardRegistry {
        try KeyboardRegistry.discover(installation: installation, home: home, environment: ["KBHOST_KEYBOARDS": keyboards ?? extra])
    }
}

@Suite("Finding keyboards: nothing in a folder stops the others")
struct RegistryDiscoveryTests {
    /// One duplicated identifier made every command fail (exit 9): now the first found is used.
    @Test func aDuplicatedIdentifierKeepsTheFirstFoundAndNamesBothFiles() throws {
        let f = try KeyboardFolders()
        let bundled = try f.add("dev.example.Twin", displayName: "One", in: f.bundled)
        let extra = try f.add("dev.example.Twin", displayName: "Two", in: f.extra)
        let installed = try f.add("dev.example.Twin", displayName: "Three", in: f.installed)
        try f.add("dev.example.Other", displayName: "Other", in: f.installed)
        let registry = try f.discover()
        #expect(registry.entry("dev.example.Twin")?.manifest.displayName == "One", "bundled, then KBHOST_KEYBOARDS, then installed")
        #expect(registry.entry("dev.example.Twin")?.source == "bundled")
        #expect(registry.entry("dev.example.Other") != nil, "the others are unaffected")
        #expect(registry.problems.count == 2, "\(registry.problems)")
        #expect(registry.problems.allSatisfy { $0.contains("CFBundleIdentifier dev.example.Twin is already the identifier of \(bundled) (bundled)") })
        #expect(registry.problems.contains { $0.hasPrefix(extra + ": ") } && registry.problems.contains { $0.hasPrefix(installed + ": ") })
    }

    @Test func aKeyboardsFolderComesBeforeTheInstalledOnes() throws {
        let f = try KeyboardFolders()
        try f.add("dev.example.Twin", displayName: "Two", in: f.extra)
        try f.add("dev.example.Twin", displayName: "Three", in: f.installed)
        #expect(try f.discover().entry("dev.example.Twin")?.manifest.displayName == "Two")
    }

    @Test func nobodyTakesTheSystemKeyboardsIdentifier() throws {
        let f = try KeyboardFolders()
        let path = try f.add(SystemKeyboard.identifier, displayName: "Impostor", in: f.installed)
        let registry = try f.discover()
        #expect(registry.entry(SystemKeyboard.identifier)?.manifest.displayName == "System")
        #expect(registry.problems == ["\(path): CFBundleIdentifier dev.kbhost.System is already the identifier of the built-in "
                                      + "system keyboard, which is used; this one is skipped (remove or rename one)"])
    }

    /// A manifest nested 10,000 deep crashed every command (SIGSEGV in Foundation's parser).
    @Test func hostileManifestsAreSkippedAndTheRestFound() throws {
        let f = try KeyboardFolders()
        try f.add("dev.example.Good", displayName: "Good", in: f.installed)
        let deep = ManifestStrictnessTests.manifest(identifier: "dev.example.Deep",
                                                    extra: "<key>Z</key>" + String(repeating: "<array>", count: 10_000))
        try f.add("dev.example.Deep", displayName: "Deep", in: f.installed, plist: Array(deep.utf8))
        try f.add("dev.example.Trailing", displayName: "T", in: f.installed,
                  plist: Array((ManifestStrictnessTests.manifest(identifier: "dev.example.Trailing") + "garbage").utf8))
        // A FIFO in place of a manifest would block a reader forever; /dev/zero would never end.
        let fifo = f.installed + "/dev.example.Fifo"
        try FileManager.default.createDirectory(atPath: fifo, withIntermediateDirectories: true)
        #expect(mkfifo(fifo + "/Info.plist", 0o600) == 0)
        try FileManager.default.createDirectory(atPath: f.installed + "/dev.example.Zero", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: f.installed + "/dev.example.Zero/Info.plist", withDestinationPath: "/dev/zero")
        let registry = try f.discover()
        #expect(registry.entry("dev.example.Good") != nil)
        #expect(registry.keyboards.count == 2, "the system keyboard and Good")
        let problems = registry.problems.joined(separator: "\n")
        #expect(problems.contains("dev.example.Deep/Info.plist: Z" + String(repeating: "[0]", count: 31) + " nests dictionaries and arrays more than 32 deep"))
        #expect(problems.contains("dev.example.Trailing/Info.plist: has content after its root element"))
        #expect(problems.contains("dev.example.Fifo/Info.plist: is a FIFO, not a file"))
        #expect(problems.contains("dev.example.Zero/Info.plist: is a device, not a file"))
    }

    /// `bundled` keeps throwing for a duplicate: the installation's own samples must be consistent.
    @Test func theBundledOnesAloneStillRefuseADuplicate() throws {
        let f = try KeyboardFolders()
        try f.add("dev.example.Twin", displayName: "One", in: f.bundled, name: "A")
        try f.add("dev.example.Twin", displayName: "Two", in: f.bundled, name: "B")
        #expect(throws: RegistryError.self) { try KeyboardRegistry.bundled(f.installation) }
        #expect(try f.discover().problems.count == 1)
    }
}
