import Foundation
import KBHost
import KBSystem
import Testing

@Suite("Group defaults on disk")
struct GroupDefaultsTests {
    func store() throws -> GroupDefaultsStore {
        let dir = NSTemporaryDirectory() + "kbhost-defaults-" + UUID().uuidString
        let s = GroupDefaultsStore(group: "group.test", containerPath: dir)
        try AtomicFile.makeDirectory(s.directory)
        return s
    }

    @Test func everyTypeRoundTrips() throws {
        let s = try store()
        let values: [String: DefaultValue] = ["b": .bool(true), "i": .integer(-42), "d": .double(2.5), "s": .string("ダーク 🌙"),
                                              "data": .data([0, 255, 7]), "empty": .string("")]
        for (k, v) in values { try s.set(v, forKey: k) }
        #expect(try s.load() == values)
        try s.set(nil, forKey: "b")
        #expect(try s.load()["b"] == nil)
    }

    @Test func concurrentWritersNeverLoseAnUpdate() throws {
        let s = try store()
        DispatchQueue.concurrentPerform(iterations: 4) { writer in
            for n in 0..<50 { try! s.set(.integer(Int64(n)), forKey: "w\(writer)-\(n)") }
        }
        #expect(try s.load().count == 200)
    }

    @Test func aCorruptFileIsNamedAndLeftAlone() throws {
        let s = try store()
        try Data("KBDEFS1\nnot really".utf8).write(to: URL(fileURLWithPath: s.path))
        #expect(throws: (any Error).self) { try s.load() }
        do { _ = try s.load() } catch { #expect("\(error)".contains(s.path)) }
        #expect(throws: (any Error).self) { try s.set(.bool(true), forKey: "x") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.path)) == Data("KBDEFS1\nnot really".utf8), "never overwritten")
    }
}

extension GroupDefaultsTests {
    /// A corrupt file is its own error: a keyboard still gets EINVAL, a person a sentence without
    /// the "Invalid argument (errno 22)" a SystemError appended.
    @Test func aCorruptFileSaysWhatToDoAndKeyboardsGetEINVAL() throws {
        let s = try store()
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: s.path))
        let error = try #require(throws: CorruptDefaults.self) { try s.load() }
        #expect(error.errno == EINVAL)
        #expect("\(error)" == "defaults file \(s.path) is corrupt (truncated at byte 0); it was left as it is — move it aside to start the group's defaults over")
        #expect(throws: CorruptDefaults.self) { try s.set(.bool(true), forKey: "x") }
    }
}

/// Fourth red team: a keyboard with open access writes its group's defaults file itself, and
/// both sides read that file whole. A sparse file of 4 GB was read whole by `kbhost defaults
/// read` (4.2 GB resident); now a file over `maxFileBytes` is refused by its size before a byte
/// is read, and no write makes one.
extension GroupDefaultsTests {
    @Test func aSparseFileOfGigabytesIsRefusedByItsSize() throws {
        let s = try store()
        let valid = DefaultsCoding.encode(["k": .string("v")])
        try Data(valid).write(to: URL(fileURLWithPath: s.path))
        #expect(try s.load() == ["k": .string("v")], "the control: the same file at its own size loads")
        let fd = open(s.path, O_WRONLY)
        #expect(fd >= 0)
        #expect(ftruncate(fd, 4_000_000_000) == 0)
        close(fd)
        let error = try #require(throws: CorruptDefaults.self) { try s.load() }
        #expect("\(error)".contains("4000000000 bytes, more than the 16 MiB a group's defaults may take"), "\(error)")
        #expect(throws: CorruptDefaults.self) { try s.set(.bool(true), forKey: "x") }
        var st = stat()
        #expect(stat(s.path, &st) == 0 && st.st_size == 4_000_000_000, "left as it is")
    }

    @Test func noWriteMakesAFileLargerThanTheLimit() throws {
        let s = try store()
        let fits = [UInt8](repeating: 7, count: GroupDefaultsStore.maxFileBytes - 64)
        try s.set(.data(fits), forKey: "big")
        #expect(try s.load() == ["big": .data(fits)], "the control: just under the limit is written and read")
        let error = try #require(throws: SystemError.self) { try s.set(.data([1, 2, 3, 4, 5, 6, 7, 8] + fits), forKey: "more") }
        #expect(error.errno == EFBIG)
        #expect(try s.load() == ["big": .data(fits)], "nothing was written")
    }

    /// In a group's Preferences, which a keyboard with open access writes, a temporary file someone left
    /// goes once it is old, whatever its pid: names planted for every pid, removed when the pid no longer
    /// lived, told a keyboard which of the host's processes were alive (twenty-fifth red team). A fresh one
    /// of a pid that has ended stays (no pid is asked); an old one of a live pid goes.
    @Test func whatAWriterLeftGoesByItsAgeNotByItsPid() throws {
        let s = try store()
        try s.set(.integer(1), forKey: "k")
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let name = (s.path as NSString).lastPathComponent
        let fresh = s.directory + "/.\(name).\(gone.processIdentifier).1.tmp", old = s.directory + "/.\(name).\(getpid()).2.tmp"
        for path in [fresh, old] { #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8))) }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -1200)], ofItemAtPath: old)
        try s.set(.integer(2), forKey: "k")
        #expect(FileManager.default.fileExists(atPath: fresh), "a fresh file stays, though its pid has ended")
        #expect(!FileManager.default.fileExists(atPath: old), "an old one goes, though its pid lives")
    }
}
