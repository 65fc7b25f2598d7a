import Foundation
import Glibc
import KBSystem
import Testing

/// The count of a process's file locks that the governor adds to its footprint.
@Suite("File locks counted per process")
struct RecordLocksTests {
    /// This process takes real record locks on a real file: the count sees every one
    /// of them (other tests in this process may hold a few more, never fewer).
    @Test func theLocksAProcessTakesAreCounted() throws {
        let path = NSTemporaryDirectory() + "kbhost-locks-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer {
            close(fd)
            unlink(path)
        }
        let before = try #require(RecordLocks.count(heldBy: getpid()))
        for i in 0..<500 {
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            lock.l_start = off_t(2 * i)
            lock.l_len = 1
            try #require(fcntl(fd, F_SETLK, &lock) == 0)
        }
        let holding = try #require(RecordLocks.count(heldBy: getpid()))
        #expect(holding >= 500, "500 locks taken, \(holding) counted")
        #expect(holding - before >= 500 - 8, "counted from \(before) to \(holding)")
        var unlock = flock()
        unlock.l_type = Int16(F_UNLCK)
        unlock.l_whence = Int16(SEEK_SET)
        try #require(fcntl(fd, F_SETLK, &unlock) == 0)
        let after = try #require(RecordLocks.count(heldBy: getpid()))
        #expect(after < holding - 400, "released: \(after) left of \(holding)")
    }

    @Test func aProcessThatIsGoneHasNoCount() {
        #expect(RecordLocks.count(heldBy: Int32.max - 7) == nil)
    }

    @Test func oneLockIsTheSlabsObject() {
        #expect(RecordLocks.bytesPerLock >= 64 && RecordLocks.bytesPerLock <= 4096)
    }
}

/// What a folder on a tmpfs holds, which the governor adds to a footprint.
@Suite("Files on a tmpfs")
struct TmpfsUsageTests {
    @Test func aFolderOnATmpfsIsMeasuredWithoutFollowingLinks() throws {
        guard TmpfsUsage.isTmpfs("/dev/shm") else {
            print("skipped: /dev/shm is not a tmpfs on this machine, and this test needs one")
            return
        }
        let root = "/dev/shm/kbhost-usage-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: root + "/inner", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        for name in ["a", "b", "inner/c"] {
            try Data(repeating: 7, count: 100 << 10).write(to: URL(fileURLWithPath: root + "/" + name))
        }
        // A link out is counted as itself, never followed.
        try FileManager.default.createSymbolicLink(atPath: root + "/out", withDestinationPath: "/usr")
        let used = try #require(TmpfsUsage.usage(of: root, limit: 1000))
        #expect(used.entries == 5, "a, b, inner, inner/c and the link")
        #expect(used.bytes >= 300 << 10 && used.bytes < 400 << 10, "\(used.bytes) bytes")
        let cut = try #require(TmpfsUsage.usage(of: root, limit: 2))
        #expect(cut.entries == 2, "the walk stops at its limit")
    }

    @Test func aTreeDeeperThanTheWalkCountsAsFull() throws {
        guard TmpfsUsage.isTmpfs("/dev/shm") else {
            print("skipped: /dev/shm is not a tmpfs on this machine, and this test needs one")
            return
        }
        let root = "/dev/shm/kbhost-deep-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        func nest(_ levels: Int) throws -> String {
            let path = root + "/\(levels)" + String(repeating: "/d", count: levels)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try Data(repeating: 7, count: 1 << 20).write(to: URL(fileURLWithPath: path + "/f"))
            return root + "/\(levels)"
        }
        // Control: a file 60 folders down is walked to and counted.
        let shallow = try #require(TmpfsUsage.usage(of: try nest(60), limit: 1000))
        #expect(shallow.entries == 61 && shallow.bytes >= 1 << 20, "\(shallow)")
        // 70 folders down the walk stops, and the tree counts as full rather than as nothing.
        let deep = try #require(TmpfsUsage.usage(of: try nest(TmpfsUsage.maximumDepth + 6), limit: 1000))
        #expect(deep.entries >= 1000, "\(deep)")
    }
}
