import Foundation
import Glibc
@testable import KBSystem
import Testing

/// Files on a tmpfs a process holds with no name (red team 6, R6-1), which the governor
/// adds to a footprint as it adds the files a container's walk finds.
@Suite("Unnamed files on a tmpfs")
struct UnnamedFilesTests {
    @Test func anUnlinkedFileHeldOpenOrMappedIsCountedOnceAndANamedOneNot() throws {
        guard TmpfsUsage.isTmpfs("/dev/shm") else {
            print("skipped: /dev/shm is not a tmpfs on this machine, and this test needs one")
            return
        }
        let root = "/dev/shm/kbhost-unnamed-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let devices = UnnamedFiles.devices(of: [root])
        #expect(devices.count == 1)
        let before = try #require(UnnamedFiles.held(by: getpid(), on: devices))

        func file(_ name: String, mib: Int) throws -> Int32 {
            let fd = open(root + "/" + name, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            #expect(fd >= 0)
            let chunk = [UInt8](repeating: 1, count: 1 << 20)
            for _ in 0..<mib { #expect(write(fd, chunk, chunk.count) == chunk.count) }
            return fd
        }
        // Control: a named file, open, is the walk's to count, not this.
        let named = try file("named", mib: 2)
        defer { close(named) }
        let withNamed = try #require(UnnamedFiles.held(by: getpid(), on: devices))
        #expect(withNamed.bytes == before.bytes && withNamed.files == before.files, "\(withNamed)")

        // Unlinked, held by a descriptor: counted.
        let open1 = try file("open", mib: 3)
        defer { close(open1) }
        unlink(root + "/open")
        let held = try #require(UnnamedFiles.held(by: getpid(), on: devices))
        #expect(held.files == before.files + 1 && held.bytes - before.bytes >= 3 << 20, "\(held)")

        // Unlinked and closed, held by a mapping of one page: counted once, or unreadable
        // to an ordinary user.
        let mapped = try file("mapped", mib: 4)
        let page = mmap(nil, 4096, PROT_READ, MAP_SHARED, mapped, 0)
        #expect(page != MAP_FAILED)
        defer { munmap(page, 4096) }
        close(mapped)
        unlink(root + "/mapped")
        let both = try #require(UnnamedFiles.held(by: getpid(), on: devices))
        if both.unreadable == before.unreadable {
            #expect(both.files == before.files + 2 && both.bytes - before.bytes >= 7 << 20, "\(both)")
        } else {
            #expect(both.unreadable == before.unreadable + 1 && both.files == before.files + 1, "\(both)")
        }
        // Another device (the disk, or none of these) sees none of them.
        #expect(UnnamedFiles.held(by: getpid(), on: [UInt64.max])?.files == 0)
    }

    /// /proc files are read piece by piece: every line whatever the file's length, and a line longer
    /// than the buffer as its head and tail (a keyboard padded /proc/PID/maps past the 64 MiB once
    /// read, twenty-first red team). Here on a file of lines short, at the buffer's size, and long.
    @Test func everyLineIsSeenWhateverItsLength() throws {
        let path = NSTemporaryDirectory() + "kbhost-lines-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(path) }
        let lines = ["a", "", String(repeating: "b", count: 63), String(repeating: "c", count: 64), "start-" + String(repeating: "x", count: 500) + " (deleted)",
                     String(repeating: "d", count: 129), "last"]
        try Data((lines.joined(separator: "\n")).utf8).write(to: URL(fileURLWithPath: path))
        var seen: [String] = []
        #expect(nil != UnnamedFiles.forEachLine(of: path, bufferBytes: 64, headBytes: 8, tailBytes: 12) { seen.append(String(decoding: $0, as: UTF8.self)); return true })
        let expected = lines.map { $0.count < 64 ? $0 : String($0.prefix(8)) + String($0.suffix(12)) }
        #expect(seen == expected)
        #expect(UnnamedFiles.forEachLine(of: path + "-missing") { _ in true } == nil)
        var first: [String] = []  // and stops where it is told to
        #expect(nil != UnnamedFiles.forEachLine(of: path, bufferBytes: 64, headBytes: 8, tailBytes: 12) { first.append(String(decoding: $0, as: UTF8.self)); return first.count < 2 })
        #expect(first == ["a", ""])
        var before: [String] = []  // and goes no further than its byte limit
        let read = UnnamedFiles.forEachLine(of: path, bufferBytes: 64, headBytes: 8, tailBytes: 12, byteLimit: 10) { before.append(String(decoding: $0, as: UTF8.self)); return true }
        #expect((read ?? 0) > 10 && (read ?? 0) <= 64 + 10 && before.first == "a" && before.count < lines.count, "\(read ?? -1) \(before)")
    }

    @Test func aProcessThatIsGoneHoldsNothing() {
        #expect(UnnamedFiles.held(by: Int32.max - 7, on: [1]) == nil)
    }
}
