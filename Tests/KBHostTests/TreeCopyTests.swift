import Foundation
import Glibc
import KBSystem
import Testing

/// `kbhost install` copies a bundle with TreeCopy: folders, files and links, and a FIFO refused
/// at once (one put in a file's place after the check left the copy blocked in its open for good).
@Suite("A bundle's tree copied")
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
        let root = NSTemporaryDirectory() + "kbhost-treecopy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { TreeCopy.afterCheck(nil); try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/bundle", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/theirs", withIntermediateDirectories: true)
        try Data("plist".utf8).write(to: URL(fileURLWithPath: root + "/bundle/Info.plist"))
        try TreeCopy.copyFolder(from: root + "/bundle", to: root + "/copy")
        #expect(try String(contentsOfFile: root + "/copy/Info.plist", encoding: .utf8) == "plist", "the control")
        let bundle = root + "/bundle", theirs = root + "/theirs"
        TreeCopy.afterCheck { path in
            guard path == bundle else { return }
            try? FileManager.default.moveItem(atPath: bundle, toPath: bundle + "-moved")
            symlink(theirs, bundle)
        }
        #expect(throws: TreeCopy.Changed.self) { try TreeCopy.copyFolder(from: bundle, to: root + "/again") }
        var st = stat()
        #expect(lstat(root + "/again", &st) != 0 || st.st_mode & S_IFMT != S_IFLNK, "no link was made in its place")
        TreeCopy.afterCheck(nil)
        #expect(throws: TreeCopy.Changed.self) { try TreeCopy.copyFolder(from: bundle, to: root + "/third") }
    }
}
