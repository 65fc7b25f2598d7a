import Foundation
import Glibc
import KBSystem
import Synchronization
import Testing

/// `kbhost install` copies a bundle with TreeCopy: folders, files and links, and a FIFO refused
/// at once (one put in a file's place after the check left the copy blocked in its open for good).
@Suite("A bundle's tree copied", .serialized)  // (one afterCheck hook at a time)
struct TreeCopyTests {
    @Test func filesFoldersAndLinksAreCopiedAndAFifoIsRefusedAtOnce() throws {
        let root = NSTemporaryDirectory() + "kbhost-treecopy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let bundle = root + "/bundle"
        try FileManager.default.createDirectory(atPath: bundle + "/sub", withIntermediateDirectories: true)
        try Data("plist".utf8).write(to: URL(fileURLWithPath: bundle + "/Info.plist"))
        try Data("library".utf8).write(to: URL(fileURLWithPath: bundle + "/sub/lib.so"))
        chmod(bundle + "/sub/lib.so", 0o755)
        symlink("sub/lib.so", bundle + "/link.so")
        try TreeCopy.copy(from: bundle, to: root + "/copy")
        #expect(try String(contentsOfFile: root + "/copy/Info.plist", encoding: .utf8) == "plist")
        #expect(try String(contentsOfFile: root + "/copy/sub/lib.so", encoding: .utf8) == "library")
        #expect(FileManager.default.isExecutableFile(atPath: root + "/copy/sub/lib.so"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: root + "/copy/link.so") == "sub/lib.so")
        // A FIFO, as if swapped in after the check: refused, not waited on (no writer ever comes).
        mkfifo(bundle + "/sub/fifo", 0o600)
        #expect(throws: TreeCopy.NotAFile.self) { try TreeCopy.copy(from: bundle, to: root + "/again") }
    }

    /// A folder of the bundle swapped for a link to a folder of the user's after its check and before
    /// its copy (a keyboard that can write the bundle being installed could race so): refused, and
    /// nothing of the user's folder copied; the same for a file swapped so. The control: the same swap
    /// before the check is copied as a link (what a bundle may hold), never as the folder's contents.
    @Test func aFolderOrFileSwappedForALinkMidCopyIsRefusedNotFollowed() throws {
        let root = NSTemporaryDirectory() + "kbhost-treecopy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let bundle = root + "/bundle", secret = root + "/secret"
        try FileManager.default.createDirectory(atPath: bundle + "/res", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: secret, withIntermediateDirectories: true)
        try Data("key".utf8).write(to: URL(fileURLWithPath: secret + "/id_ed25519"))
        try Data("label".utf8).write(to: URL(fileURLWithPath: bundle + "/res/strings"))
        try Data("plist".utf8).write(to: URL(fileURLWithPath: bundle + "/Info.plist"))
        defer { TreeCopy.afterCheck(nil) }
        let swapped = bundle + "/res", secretPath = secret
        TreeCopy.afterCheck { path in
            guard path == swapped else { return }
            try? FileManager.default.removeItem(atPath: swapped)
            symlink(secretPath, swapped)
        }
        #expect(throws: TreeCopy.Changed.self) { try TreeCopy.copy(from: bundle, to: root + "/copy") }
        #expect(!FileManager.default.fileExists(atPath: root + "/copy/res/id_ed25519"), "nothing of the user's folder was copied")
        // A file swapped so: refused too.
        try FileManager.default.removeItem(atPath: swapped)
        let file = bundle + "/Info.plist"
        TreeCopy.afterCheck { path in
            guard path == file else { return }
            unlink(file)
            symlink(secretPath + "/id_ed25519", file)
        }
        #expect(throws: TreeCopy.Changed.self) { try TreeCopy.copy(from: bundle, to: root + "/again") }
        let copied = try? String(contentsOfFile: root + "/again/Info.plist", encoding: .utf8)
        #expect(copied != "key", "the user's file was not copied")
        // The control: a link there before the check is copied as a link.
        TreeCopy.afterCheck(nil)
        symlink(secretPath, swapped)
        try TreeCopy.copy(from: bundle, to: root + "/linked")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: root + "/linked/res") == secret)
    }

    /// A bundle holding a sparse file of 100 GiB (100 KB on disk) had `install` write it out in full,
    /// filling the disk or a tmpfs home's memory (twenty-fourth red team). More than 512 MiB in all is
    /// refused before a byte of that file is written; the control: a sparse file of 1 MiB is copied.
    @Test func aBundleOverTheLimitIsRefused() throws {
        let root = NSTemporaryDirectory() + "kbhost-treecopy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/bundle", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/bundle/small", contents: nil)
        #expect(truncate(root + "/bundle/small", 1 << 20) == 0)
        try TreeCopy.copy(from: root + "/bundle", to: root + "/copy")
        #expect((try? FileManager.default.attributesOfItem(atPath: root + "/copy/small"))?[.size] as? Int == 1 << 20)
        _ = FileManager.default.createFile(atPath: root + "/bundle/huge", contents: nil)
        #expect(truncate(root + "/bundle/huge", 100 << 30) == 0)
        #expect(throws: TreeCopy.TooLarge.self) { try TreeCopy.copy(from: root + "/bundle", to: root + "/again") }
        let written = (try? FileManager.default.attributesOfItem(atPath: root + "/again/huge"))?[.size] as? Int ?? 0
        #expect(written == 0, "nothing of it was written: \(written) bytes")
    }

    /// A package's build is copied from its real path without following a link put on the way since
    /// (a folder of `.build` swapped for a link to the installing user's files), and only when it is the
    /// package owner's. The control: the same path, unchanged, is copied.
    @Test func aPackageBuildIsCopiedFromItsRealPathOnly() throws {
        let root = try #require(realpath(NSTemporaryDirectory(), nil).map { p in defer { free(p) }; return String(cString: p) })
            + "/kbhost-treecopy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/pkg/.build/debug", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/secret", withIntermediateDirectories: true)
        try Data("built".utf8).write(to: URL(fileURLWithPath: root + "/pkg/.build/debug/libK.so"))
        try Data("key".utf8).write(to: URL(fileURLWithPath: root + "/secret/libK.so"))
        let real = root + "/pkg/.build/debug/libK.so"
        try TreeCopy.copyRealFile(real, owner: getuid(), to: root + "/copy")
        #expect(try String(contentsOfFile: root + "/copy", encoding: .utf8) == "built", "the control")
        #expect(throws: TreeCopy.Changed.self) { try TreeCopy.copyRealFile(real, owner: getuid() + 1, to: root + "/other") }
        try FileManager.default.removeItem(atPath: root + "/pkg/.build/debug")
        try FileManager.default.createSymbolicLink(atPath: root + "/pkg/.build/debug", withDestinationPath: root + "/secret")
        #expect(throws: TreeCopy.Changed.self) { try TreeCopy.copyRealFile(real, owner: getuid(), to: root + "/again") }
        #expect(!FileManager.default.fileExists(atPath: root + "/again"))
    }

    /// A bundle's own folder swapped for a link after install checked it was copied as a link, and the
    /// installed keyboard was then a link to a folder its owner could change at will (twenty-fourth red
    /// team, M). `copyFolder` refuses a top that is not a folder, or that became a link after its check.
    @Test func aBundleFolderSwappedForALinkIsRefused() throws {
        let root = try Self.realRoot()
        defer { TreeCopy.afterCheck(nil); try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/bundle", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/theirs", withIntermediateDirectories: true)
        try Data("plist".utf8).write(to: URL(fileURLWithPath: root + "/bundle/Info.plist"))
        try TreeCopy.copyFolder(fromReal: root + "/bundle", to: root + "/copy")
        #expect(try String(contentsOfFile: root + "/copy/Info.plist", encoding: .utf8) == "plist", "the control")
        let bundle = root + "/bundle", theirs = root + "/theirs"
        TreeCopy.afterCheck { path in
            guard path == bundle else { return }
            try? FileManager.default.moveItem(atPath: bundle, toPath: bundle + "-moved")
            symlink(theirs, bundle)
        }
        #expect(throws: TreeCopy.Changed.self) { try TreeCopy.copyFolder(fromReal: bundle, to: root + "/again") }
        var st = stat()
        #expect(lstat(root + "/again", &st) != 0 || st.st_mode & S_IFMT != S_IFLNK, "no link was made in its place")
        TreeCopy.afterCheck(nil)
        #expect(throws: TreeCopy.Changed.self) { try TreeCopy.copyFolder(fromReal: bundle, to: root + "/third") }
    }

    /// A fresh folder for one test, by its real path (what `copyFolder(fromReal:)` takes).
    static func realRoot() throws -> String {
        let root = NSTemporaryDirectory() + "kbhost-treecopy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return try #require(Sys.realPath(root))
    }

    /// A folder ABOVE the bundle swapped for a link after the bundle's real path was taken: the copy
    /// followed it and took the installing user's home (twenty-fifth red team, C). Refused; nothing of
    /// where the link leads is copied. The control: through the link, the path is the victim's folder.
    @Test func aFolderAboveTheBundleSwappedForALinkIsRefused() throws {
        let root = try Self.realRoot()
        defer { TreeCopy.afterCheck(nil); try? FileManager.default.removeItem(atPath: root) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/theirs/bundle", withIntermediateDirectories: true)
        try Data("plist".utf8).write(to: URL(fileURLWithPath: root + "/theirs/bundle/Info.plist"))
        try fm.createDirectory(atPath: root + "/victim/bundle/.ssh", withIntermediateDirectories: true)
        try Data("key".utf8).write(to: URL(fileURLWithPath: root + "/victim/bundle/.ssh/id"))
        let bundle = root + "/theirs/bundle"
        TreeCopy.afterCheck { path in
            guard path == bundle else { return }
            try? fm.moveItem(atPath: root + "/theirs", toPath: root + "/theirs-moved")
            symlink(root + "/victim", root + "/theirs")
        }
        #expect(throws: TreeCopy.Changed.self) { try TreeCopy.copyFolder(fromReal: bundle, to: root + "/copy") }
        #expect(!fm.fileExists(atPath: root + "/copy/.ssh/id"), "nothing of the victim's was copied")
        #expect((try? String(contentsOfFile: bundle + "/.ssh/id", encoding: .utf8)) == "key", "the control: through the link it is the victim's")
    }

    /// Until it is complete the copy is in a folder only the user may enter (another user opened the
    /// files as they appeared: twenty-fifth red team, C), and a folder only its owner may enter stays so.
    @Test func theCopyIsPrivateUntilCompleteAndFoldersKeepTheirModes() throws {
        let root = try Self.realRoot()
        defer { TreeCopy.afterCheck(nil); try? FileManager.default.removeItem(atPath: root) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/bundle/private", withIntermediateDirectories: true)
        try Data("plan".utf8).write(to: URL(fileURLWithPath: root + "/bundle/private/plan.txt"))
        #expect(chmod(root + "/bundle", 0o755) == 0 && chmod(root + "/bundle/private", 0o700) == 0)
        let seen = Mutex<mode_t?>(nil)
        TreeCopy.afterCheck { path in
            guard path == root + "/bundle/private/plan.txt" else { return }
            var st = stat()
            if stat(root + "/copy", &st) == 0 { seen.withLock { $0 = st.st_mode & 0o777 } }
        }
        try TreeCopy.copyFolder(fromReal: root + "/bundle", to: root + "/copy")
        #expect(seen.withLock { $0 } == 0o700, "private while files were copied")
        var st = stat()
        #expect(stat(root + "/copy", &st) == 0 && st.st_mode & 0o777 == 0o755, "then the bundle's own mode")
        #expect(stat(root + "/copy/private", &st) == 0 && st.st_mode & 0o777 == 0o700, "a private folder stays private")
    }

    /// 60,000 hard links to one byte (1.4 MB on disk) became 60,000 files, 234 MiB of a tmpfs home
    /// (twenty-fifth red team, B): a copy makes at most `entryLimit` entries. The control: that many is fine.
    @Test func aBundleOfTooManyEntriesIsRefused() throws {
        let root = try Self.realRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/bundle", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/bundle/one"))
        for i in 1..<TreeCopy.entryLimit { #expect(link(root + "/bundle/one", root + "/bundle/l\(i)") == 0) }
        try TreeCopy.copyFolder(fromReal: root + "/bundle", to: root + "/copy")
        #expect((try FileManager.default.contentsOfDirectory(atPath: root + "/copy")).count == TreeCopy.entryLimit, "the control")
        #expect(link(root + "/bundle/one", root + "/bundle/over") == 0)
        #expect(throws: TreeCopy.TooManyEntries.self) { try TreeCopy.copyFolder(fromReal: root + "/bundle", to: root + "/again") }
    }
}
