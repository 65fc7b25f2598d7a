import Foundation
import Glibc
import KBHost
import Testing

/// A keyboard's library is resolved inside its bundle only: the sandbox grants read access
/// to it, so a symbolic link that leads outside (the library itself, or a folder on its
/// way) would hand the keyboard whatever it points at.
@Suite("Finding a keyboard's library inside its bundle")
struct LibraryResolutionTests {
    let fm = FileManager.default

    /// A bundle whose manifest names `executable`, and a folder outside it holding a library.
    func setUp(_ executable: String) throws -> (KeyboardFolders, KeyboardManifest, outside: String) {
        let f = try KeyboardFolders()
        let plist = try f.add("dev.example.Linked", displayName: "Linked", in: f.extra, executable: executable)
        let outside = f.root + "/outside"
        try fm.createDirectory(atPath: outside, withIntermediateDirectories: true)
        _ = fm.createFile(atPath: outside + "/libK.so", contents: Data("not really a library".utf8))
        return (f, try KeyboardManifest.load(contentsOf: plist), outside)
    }

    func expectOutside(_ f: KeyboardFolders, _ manifest: KeyboardManifest, sourceLocation: SourceLocation = #_sourceLocation) {
        let e = #expect(throws: ManifestError.self, sourceLocation: sourceLocation) {
            try f.installation.library(for: manifest, allowProducts: true)
        }
        #expect(e?.keyPath == "CFBundleExecutable", sourceLocation: sourceLocation)
        #expect(e?.problem.contains("leads outside the bundle") == true, "\(String(describing: e))", sourceLocation: sourceLocation)
        #expect(f.installation.resolveLibrary(for: manifest, allowProducts: true) == nil, sourceLocation: sourceLocation)
    }

    @Test func aLinkedFolderLeadingOutsideIsRefused() throws {
        let (f, manifest, outside) = try setUp("lib/libK.so")
        try fm.createSymbolicLink(atPath: manifest.bundleDirectory + "/lib", withDestinationPath: outside)
        expectOutside(f, manifest)
        let registry = try f.discover()
        #expect(registry.entry("dev.example.Linked") == nil)
        #expect(registry.problems.first?.contains("CFBundleExecutable names 'lib/libK.so', which leads outside the bundle") == true,
                "\(registry.problems)")
    }

    @Test func aLinkedLibraryLeadingOutsideIsRefused() throws {
        let (f, manifest, outside) = try setUp("libK.so")
        try fm.removeItem(atPath: manifest.bundleDirectory + "/libK.so")
        try fm.createSymbolicLink(atPath: manifest.bundleDirectory + "/libK.so", withDestinationPath: outside + "/libK.so")
        expectOutside(f, manifest)
        try fm.removeItem(atPath: manifest.bundleDirectory + "/libK.so")
        try fm.createSymbolicLink(atPath: manifest.bundleDirectory + "/libK.so", withDestinationPath: "../../outside/libK.so")
        expectOutside(f, manifest)
    }

    @Test func linksInsideTheBundleAndALinkedBundleAreFine() throws {
        let (f, manifest, _) = try setUp("lib/libK.so")
        let bundle = manifest.bundleDirectory
        try fm.createDirectory(atPath: bundle + "/real", withIntermediateDirectories: true)
        _ = fm.createFile(atPath: bundle + "/real/libK.so", contents: Data())
        try fm.createSymbolicLink(atPath: bundle + "/lib", withDestinationPath: "real")
        let real = try #require(try f.installation.library(for: manifest, allowProducts: false))
        #expect(real.hasSuffix("/dev.example.Linked/real/libK.so"), "the real path: \(real)")
        // The whole bundle reached through a link (a KBHOST_KEYBOARDS folder of links): inside its real self.
        let links = f.root + "/links"
        try fm.createDirectory(atPath: links, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: links + "/dev.example.Linked", withDestinationPath: bundle)
        #expect(try f.discover(keyboards: links).entry("dev.example.Linked")?.libraryPath == real)
    }

    @Test func aFolderIsNotALibraryAndAMissingOneIsNil() throws {
        let (f, manifest, _) = try setUp("lib/libK.so")
        #expect(try f.installation.library(for: manifest, allowProducts: false) == nil)
        try fm.createDirectory(atPath: manifest.bundleDirectory + "/lib/libK.so", withIntermediateDirectories: true)
        let e = #expect(throws: ManifestError.self) { try f.installation.library(for: manifest, allowProducts: false) }
        #expect(e?.problem.contains("which is not a file") == true)
    }

    /// The bundled samples keep their libraries among the build products.
    @Test func bundledSamplesStillFindTheirProducts() throws {
        let f = try KeyboardFolders()
        let plist = try f.add("dev.example.Sample", displayName: "Sample", in: f.bundled, executable: "lib/libSample.so")
        let manifest = try KeyboardManifest.load(contentsOf: plist)
        try fm.createDirectory(atPath: f.root + "/products/lib", withIntermediateDirectories: true)
        _ = fm.createFile(atPath: f.root + "/products/lib/libSample.so", contents: Data())
        #expect(try f.installation.library(for: manifest, allowProducts: true) == f.root + "/products/lib/libSample.so")
        #expect(try f.installation.library(for: manifest, allowProducts: false) == nil)
        #expect(try f.discover().entry("dev.example.Sample")?.source == "bundled")
    }

    /// A package's build (`.build/CONFIGURATION/EXE`, what `kbhost new` makes) is its only if it is a
    /// regular file of the package's owner in a folder of theirs no one else may write in: `.build` is
    /// the package owner's, and a link there to the installing user's key was copied by `install` into
    /// the bundle the keyboard reads, and one to a copy in /tmp made all of /tmp readable in its sandbox
    /// (twenty-fourth red team, G and K). The control: SwiftPM's own link (`.build/debug` to
    /// `.build/x86_64…/debug`) is followed. (Run as root, a file of another user stands for the key.)
    @Test func aPackageBuildLinkedOutsideThePackageIsNotItsLibrary() throws {
        let (f, manifest, outside) = try setUp("libK.so")
        let package = manifest.bundleDirectory
        try fm.createDirectory(atPath: package + "/.build/x86_64-unknown-linux-gnu/debug", withIntermediateDirectories: true)
        _ = fm.createFile(atPath: package + "/.build/x86_64-unknown-linux-gnu/debug/libK.so", contents: Data("built".utf8))
        try fm.createSymbolicLink(atPath: package + "/.build/debug", withDestinationPath: "x86_64-unknown-linux-gnu/debug")
        let real = try #require(Installation.packageLibrary(for: manifest), "the control: SwiftPM's layout")
        #expect(real.hasSuffix("/.build/x86_64-unknown-linux-gnu/debug/libK.so"))
        // Another user's file (the installing user's key, as the package's owner sees it).
        #expect(chown(outside + "/libK.so", 65534, 65534) == 0 || getuid() != 0)
        try fm.removeItem(atPath: package + "/.build/x86_64-unknown-linux-gnu/debug/libK.so")
        try fm.createSymbolicLink(atPath: package + "/.build/x86_64-unknown-linux-gnu/debug/libK.so", withDestinationPath: outside + "/libK.so")
        if getuid() == 0 { #expect(Installation.packageLibrary(for: manifest) == nil, "a link to another user's file") }
        // A folder everyone may write in (/tmp): whatever is put there is no one's build.
        #expect(chown(outside + "/libK.so", getuid(), getgid()) == 0 && chmod(outside, 0o1777) == 0)
        try fm.removeItem(atPath: package + "/.build/debug")
        try fm.createSymbolicLink(atPath: package + "/.build/debug", withDestinationPath: outside)
        #expect(Installation.packageLibrary(for: manifest) == nil, "a folder on the way linked to a folder anyone may write in")
        withExtendedLifetime(f) {}
    }
}
