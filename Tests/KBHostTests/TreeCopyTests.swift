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
}
