import Foundation
import KBHost
import Testing

/// The daemon's registry: read once, and again only when a keyboard's files change.
@Suite struct RegistryCacheTests {
    @Test func theManifestsAreReadOnceWhileNothingChanges() throws {
        let folders = try KeyboardFolders()
        let plist = try folders.add("com.example.one", displayName: "One", in: folders.installed)
        try ageing([plist, (plist as NSString).deletingLastPathComponent, folders.installed, folders.extra, folders.bundled])
        let cache = RegistryCache(installation: folders.installation, home: folders.home, environment: ["KBHOST_KEYBOARDS": folders.extra])
        for _ in 0..<5 { #expect(try cache.registry().entry("com.example.one")?.manifest.displayName == "One") }
        #expect(cache.discoveries == 1)
    }

    @Test func aManifestJustWrittenIsReadAgainUntilItIsOldEnoughToTrust() throws {
        // Written twice within the file system's time granularity with the same size, a file looks
        // unchanged by its stamp: a fresh stamp is therefore not trusted.
        let folders = try KeyboardFolders()
        try folders.add("com.example.one", displayName: "One", in: folders.installed)
        let cache = RegistryCache(installation: folders.installation, home: folders.home, environment: [:])
        _ = try cache.registry()
        _ = try cache.registry()
        #expect(cache.discoveries == 2)
    }

    @Test func aKeyboardInstalledRenamedOrRemovedIsSeenOnTheNextCall() throws {
        let folders = try KeyboardFolders()
        let plist = try folders.add("com.example.one", displayName: "One", in: folders.installed)
        let cache = RegistryCache(installation: folders.installation, home: folders.home, environment: ["KBHOST_KEYBOARDS": folders.extra])
        #expect(try cache.registry().entry("com.example.two") == nil)

        try folders.add("com.example.two", displayName: "Two", in: folders.extra)
        #expect(try cache.registry().entry("com.example.two")?.manifest.displayName == "Two")

        // The same file rewritten in place, a name of the same length: seen by its times.
        try folders.add("com.example.one", displayName: "Uno", in: folders.installed)
        #expect(try cache.registry().entry("com.example.one")?.manifest.displayName == "Uno")

        try FileManager.default.removeItem(atPath: (plist as NSString).deletingLastPathComponent)
        #expect(try cache.registry().entry("com.example.one") == nil)
        #expect(cache.discoveries == 4)
    }

    @Test func aBrokenManifestFixedIsSeen() throws {
        let folders = try KeyboardFolders()
        try folders.add("com.example.one", displayName: "One", in: folders.installed, plist: Array("<plist>".utf8))
        let cache = RegistryCache(installation: folders.installation, home: folders.home, environment: [:])
        let broken = try cache.registry()
        #expect(broken.entry("com.example.one") == nil)
        #expect(broken.problems.count == 1)
        try folders.add("com.example.one", displayName: "One", in: folders.installed)
        let fixed = try cache.registry()
        #expect(fixed.entry("com.example.one") != nil)
        #expect(fixed.problems.isEmpty)
    }

    /// Sets the files' modification times an hour back, as files written long before.
    private func ageing(_ paths: [String]) throws {
        for path in paths {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: path)
        }
    }
}
