import Foundation
import Glibc
import KBSystem
import Testing

/// A manifest is read only if it is a regular file: what is there is looked at before it is opened, so
/// a device put in its place (a link to /dev/ptmx in someone else's keyboards folder made every `kbhost
/// list` open a terminal; /dev/watchdog would be armed: twenty-sixth red team) is never opened.
@Suite("A small file someone else wrote")
struct SmallFileTests {
    @Test(.enabled(if: getuid() == 0, "makes a device node (root only)"))
    func aDeviceInAManifestsPlaceIsNeverOpened() throws {
        let folder = try #require(Sys.realPath(NSTemporaryDirectory())) + "/kbhost-small-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A device of our own (as /dev/null: 1, 3), so that no one else's opens are seen, and a link to it.
        let device = folder + "/null", plist = folder + "/Info.plist"
        guard mknod(device, S_IFCHR | 0o600, dev_t((1 << 8) | 3)) == 0 else {
            Issue.record("mknod: \(String(cString: strerror(errno)))")
            return
        }
        #expect(symlink(device, plist) == 0)
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        #expect(watch >= 0)
        defer { close(watch) }
        #expect(inotify_add_watch(watch, device, UInt32(IN_OPEN)) >= 0)
        func opened() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 4096)
            return read(watch, &buffer, buffer.count) > 0
        }
        // The control: opening it is seen.
        let fd = open(device, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        close(fd)
        #expect(opened(), "the control: an open of the device is seen")
        #expect(throws: SmallFile.Failure.notARegularFile(kind: "a device")) { try SmallFile.read(plist, limit: 1 << 20) }
        #expect(!opened(), "refused without opening it")
        // A regular file reads.
        try Data("hello".utf8).write(to: URL(fileURLWithPath: folder + "/file"))
        #expect(try SmallFile.read(folder + "/file", limit: 16) == Array("hello".utf8))
        #expect(throws: SmallFile.Failure.tooLarge(bytes: 5, limit: 4)) { try SmallFile.read(folder + "/file", limit: 4) }
    }
}
