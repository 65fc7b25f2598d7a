import Foundation
import Glibc
import KBSystem
import Synchronization
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
    /// A folder name on /dev/shm for one test, or nil (said why) where that is not a tmpfs.
    static func scratch(_ tag: String) -> String? {
        guard TmpfsUsage.isTmpfs("/dev/shm") else {
            print("skipped: /dev/shm is not a tmpfs on this machine, and this test needs one")
            return nil
        }
        return "/dev/shm/kbhost-\(tag)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    @Test func aFolderOnATmpfsIsMeasuredWithoutFollowingLinks() throws {
        guard let root = Self.scratch("usage") else { return }
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
        guard let root = Self.scratch("deep") else { return }
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

    /// A keyboard renamed its file behind the walk as it passed and back ahead of it afterwards, and
    /// the walk never listed it (nineteenth red team: 400 MiB under a 48 MiB budget). A large file a
    /// walk found stays counted wherever it is moved, until it has no name; the control: a walk that
    /// tracks nothing misses it where it went.
    @Test func aLargeFileMovedOutOfTheWalksWayIsStillCounted() throws {
        guard let root = Self.scratch("moved") else { return }
        try FileManager.default.createDirectory(atPath: root + "/walked/a", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/aside", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data(repeating: 7, count: 4 << 20).write(to: URL(fileURLWithPath: root + "/walked/a/f"))
        let tracked = TmpfsUsage.Tracked(bytes: 1 << 20, capacity: 4)
        let first = TmpfsUsage.usage(of: [root + "/walked"], limit: 1000, tracked: tracked)
        #expect(first.bytes >= 4 << 20 && tracked.count == 1, "found: \(first), \(tracked.count) held")

        // Out of the walk's way (where the walk has passed, or will not go).
        #expect(rename(root + "/walked/a/f", root + "/aside/f") == 0)
        let control = TmpfsUsage.usage(of: [root + "/walked"], limit: 1000)
        #expect(control.bytes < 1 << 20, "the control: a walk alone misses it (\(control))")
        let moved = TmpfsUsage.usage(of: [root + "/walked"], limit: 1000, tracked: tracked)
        #expect(moved.bytes >= 4 << 20, "counted where it went: \(moved)")
        // Back where it was: counted once.
        #expect(rename(root + "/aside/f", root + "/walked/a/f") == 0)
        let back = TmpfsUsage.usage(of: [root + "/walked"], limit: 1000, tracked: tracked)
        #expect(back.bytes >= 4 << 20 && back.bytes < 5 << 20, "counted once: \(back)")
        // Removed: no longer counted, and let go (its pages are freed).
        #expect(unlink(root + "/walked/a/f") == 0)
        let gone = TmpfsUsage.usage(of: [root + "/walked"], limit: 1000, tracked: tracked)
        #expect(gone.bytes < 1 << 20 && tracked.count == 0, "\(gone), \(tracked.count) held")
    }

    /// A folder of 16 MiB renamed back and forth in a tight loop was gone under every name the walk
    /// listed, and never counted (a review: 0 of 60 walks). Every walk now counts it, or counts as
    /// full when names keep vanishing (which ends the keyboard). The control: the folder standing still.
    @Test func aFolderRenamedInATightLoopIsCountedOrEndsTheWalk() throws {
        guard let root = Self.scratch("cycle") else { return }
        try FileManager.default.createDirectory(atPath: root + "/d0", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        for i in 0..<16 { try Data(repeating: 7, count: 1020 << 10).write(to: URL(fileURLWithPath: root + "/d0/f\(i)")) }
        let still = try #require(TmpfsUsage.usage(of: root, limit: 1000))
        #expect(still.bytes >= 16 * 1020 << 10, "the control: \(still)")
        let stop = Mutex(false), stopped = Mutex(false)
        let mover = Thread {
            var i = 0
            while !stop.withLock({ $0 }) {
                _ = rename(root + "/d\(i)", root + "/d\(1 - i)")
                i = 1 - i
            }
            stopped.withLock { $0 = true }
        }
        mover.start()
        // (The folder is removed only once the mover has stopped: removed under it, it was left behind in /dev/shm.)
        defer {
            stop.withLock { $0 = true }
            while !stopped.withLock({ $0 }) { usleep(1000) }
        }
        var missed: [(bytes: Int, entries: Int)] = []
        for _ in 0..<40 {
            let u = try #require(TmpfsUsage.usage(of: root, limit: 1000))
            if u.bytes < 16 * 1020 << 10 && u.entries < 1000 { missed.append(u) }
            usleep(5_000)
        }
        stop.withLock { $0 = true }
        #expect(missed.isEmpty, "walks that missed the folder: \(missed.count) of 40, \(missed.prefix(3))")
    }

    /// A keyboard filled every place of `Tracked` with files it then truncated, and a large file
    /// written afterwards and moved away went uncounted; a file held while large, grown small, was
    /// counted twice (a review). A file no longer large gives its place up, and is counted once.
    @Test func filesGrownSmallGiveTheirPlaceUpAndCountOnce() throws {
        guard let root = Self.scratch("shrink") else { return }
        try FileManager.default.createDirectory(atPath: root + "/walked", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/aside", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let tracked = TmpfsUsage.Tracked(bytes: 1 << 20, capacity: 8)
        for i in 0..<8 { try Data(repeating: 7, count: 2 << 20).write(to: URL(fileURLWithPath: root + "/walked/s\(i)")) }
        _ = TmpfsUsage.usage(of: [root + "/walked"], limit: 1000, tracked: tracked)
        #expect(tracked.count == 8)
        for i in 0..<8 { try Data(repeating: 7, count: 900 << 10).write(to: URL(fileURLWithPath: root + "/walked/s\(i)")) }
        let small = TmpfsUsage.usage(of: [root + "/walked"], limit: 1000, tracked: tracked)
        #expect(small.bytes < 8 * (1 << 20), "counted once: \(small.bytes >> 10) KiB for 8 × 900 KiB")
        #expect(tracked.count == 0, "their places are free: \(tracked.count) held")
        try Data(repeating: 7, count: 16 << 20).write(to: URL(fileURLWithPath: root + "/walked/big"))
        _ = TmpfsUsage.usage(of: [root + "/walked"], limit: 1000, tracked: tracked)
        #expect(rename(root + "/walked/big", root + "/aside/big") == 0)
        let moved = TmpfsUsage.usage(of: [root + "/walked"], limit: 1000, tracked: tracked)
        #expect(moved.bytes >= 16 << 20, "the large file written after is counted where it went: \(moved.bytes >> 10) KiB")
    }

    /// The same keyboard saw the walk coming: listing a folder moves its access time (relatime, once
    /// the folder changed since it was last read), which the keyboard may stat. The walk leaves none.
    /// The control: an ordinary listing of the same folder moves it.
    @Test func theWalkLeavesNoAccessTime() throws {
        guard let root = Self.scratch("atime") else { return }
        try FileManager.default.createDirectory(atPath: root + "/watched", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        func atime() -> Int {
            var st = stat()
            return stat(root + "/watched", &st) == 0 ? st.st_atim.tv_sec : -1
        }
        func changeAndAge() {  // the folder changes, and was last read long ago: the next listing is seen
            _ = FileManager.default.createFile(atPath: root + "/watched/x", contents: Data())
            _ = unlink(root + "/watched/x")
            var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]  // its ctime is now
            _ = utimensat(AT_FDCWD, root + "/watched", &times, 0)
        }
        changeAndAge()
        _ = TmpfsUsage.usage(of: root, limit: 1000)
        #expect(atime() == 1_000_000, "the walk moved the folder's access time to \(atime())")
        changeAndAge()
        _ = try FileManager.default.contentsOfDirectory(atPath: root + "/watched")
        #expect(atime() > 1_000_000, "the control: a listing moves it")
    }
}
