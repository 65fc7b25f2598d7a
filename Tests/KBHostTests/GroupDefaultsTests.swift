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
