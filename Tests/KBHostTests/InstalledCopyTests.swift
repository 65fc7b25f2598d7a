import Foundation
@testable import KBHost
import Testing

/// An installed keyboard against the folder it came from: after an edit and a build there, the
/// installed copy is stale. Files only; nothing is loaded.
@Suite("A stale installed copy")
struct InstalledCopyTests {
    let root = NSTemporaryDirectory() + "kbhost-installed-" + UUID().uuidString
    let installation = Installation(productsDirectory: "/nonexistent", manifestsDirectory: nil)

    func manifest(_ identifier: String) -> Data {
        Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>CFBundleIdentifier</key><string>\(identifier)</string>
        <key>CFBundleExecutable</key><string>libK.so</string>
        <key>NSExtension</key><dict>
          <key>NSExtensionPointIdentifier</key><string>com.apple.keyboard-service</string>
          <key>NSExtensionPrincipalClass</key><string>K</string>
        </dict>
        </dict></plist>
        """.utf8)
    }

    func write(_ data: Data, _ path: String, modified: Date? = nil) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
        if let modified { try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path) }
    }

    /// A package built in `package` (.build/debug/libK.so holding `built`) and its copy installed
    /// from it holding `installed` (an hour older), noting its source when `recorded`.
    func world(built: String, installed: String, recorded: Bool = true, packageIdentifier: String = "dev.example.K") throws -> KeyboardEntry {
        let package = root + "/package", bundle = root + "/home/Keyboards/dev.example.K"
        try write(manifest(packageIdentifier), package + "/Info.plist")
        try write(Data(built.utf8), package + "/.build/debug/libK.so")
        try write(manifest("dev.example.K"), bundle + "/Info.plist")
        try write(Data(installed.utf8), bundle + "/libK.so", modified: Date().addingTimeInterval(-3600))
        if recorded { try InstalledCopy.record(source: package, in: bundle) }
        let m = try KeyboardManifest.load(contentsOf: bundle + "/Info.plist")
        return KeyboardEntry(manifest: m, libraryPath: bundle + "/libK.so", source: "installed")
    }

    @Test func aNewerBuildIsReportedWithTheCommandThatInstallsIt() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let entry = try world(built: "new code", installed: "old code")
        let stale = try #require(InstalledCopy.staleness(of: entry, installation: installation, currentDirectory: "/"))
        #expect(stale.newer && !stale.manifestOnly && stale.source == root + "/package")
        #expect(stale.built == root + "/package/.build/debug/libK.so")
        #expect(stale.description.contains("is older than the library built in \(root)/package"))
        #expect(stale.description.contains("run `kbhost install .` in \(root)/package"))
    }

    @Test func theSameLibraryIsNotStale() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let entry = try world(built: "same", installed: "same")
        #expect(InstalledCopy.staleness(of: entry, installation: installation, currentDirectory: "/") == nil)
    }

    @Test func aCopyWithoutItsNoteIsComparedWithTheCurrentFolder() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let entry = try world(built: "new", installed: "old", recorded: false)
        #expect(InstalledCopy.staleness(of: entry, installation: installation, currentDirectory: "/") == nil)
        #expect(InstalledCopy.staleness(of: entry, installation: installation, currentDirectory: root + "/package")?.newer == true)
    }

    @Test func aFolderThatNowHoldsAnotherKeyboardIsNotItsSource() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let entry = try world(built: "new", installed: "old", packageIdentifier: "dev.example.Other")
        #expect(InstalledCopy.staleness(of: entry, installation: installation, currentDirectory: root + "/package") == nil)
    }

    @Test func onlyInstalledKeyboardsAreCompared() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        var entry = try world(built: "new", installed: "old")
        entry.source = "bundled"
        #expect(InstalledCopy.staleness(of: entry, installation: installation, currentDirectory: "/") == nil)
    }

    /// The folder an installed copy came from belongs to whoever gave the bundle. A FIFO put in its
    /// library's place (the same size as the installed one: both empty here) left `kbhost type` and
    /// `attach` blocked for good in its open while they checked whether the copy was stale
    /// (twenty-third red team, D). It is opened without waiting now, and is no library. The control:
    /// the same comparison with a regular file answers too.
    @Test func aFifoInTheSourceFolderDoesNotHangTheCheck() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let entry = try world(built: "", installed: "")
        #expect(InstalledCopy.staleness(of: entry, installation: installation, currentDirectory: "/") == nil, "the control: same bytes")
        // Both a FIFO, so that no check of their kinds tells them apart first (the race that put one in
        // place between such a check and the open is the red team's; here it is in place from the start).
        for library in [root + "/package/.build/debug/libK.so", root + "/home/Keyboards/dev.example.K/libK.so"] {
            try FileManager.default.removeItem(atPath: library)
            #expect(mkfifo(library, 0o600) == 0)
        }
        let answered = DispatchSemaphore(value: 0)
        let installation = installation
        Thread.detachNewThread {
            _ = InstalledCopy.staleness(of: entry, installation: installation, currentDirectory: "/")
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 20) == .success, "the check answered (a FIFO's open never would)")
    }

    /// The warning names only a folder of the user's own: one another user took over since it was
    /// installed from (a /tmp folder removed and made again) is not offered as the place to install
    /// from (twenty-fourth red team). Run as root, a folder given to `nobody` stands for it.
    @Test(.enabled(if: getuid() == 0, "needs root to give a folder to another user"))
    func aSourceFolderOfAnotherUserIsNotNamed() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let entry = try world(built: "new code", installed: "old code")
        #expect(InstalledCopy.staleness(of: entry, installation: installation, currentDirectory: "/") != nil, "the control")
        // The whole package theirs (so that its build is its own, `Installation.packageLibrary`).
        for path in ["", "/Info.plist", "/.build", "/.build/debug", "/.build/debug/libK.so"] {
            #expect(chown(root + "/package" + path, 65534, 65534) == 0)
        }
        #expect(Installation.packageLibrary(for: try KeyboardManifest.load(contentsOf: root + "/package/Info.plist")) != nil)
        #expect(InstalledCopy.staleness(of: entry, installation: installation, currentDirectory: "/") == nil)
    }
}
