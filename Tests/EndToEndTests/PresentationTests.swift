import KBHost
import KBSystem
import KBText
import Testing

/// One controller per presentation in a reused process, as iOS does (issue 16):
/// `represent()` ends the controller and creates a new one in the same process,
/// so a keyboard that keeps its old controllers alive shows it in its footprint.
@Suite("Presentations in the real process")
struct PresentationTests {
    static func swiftFault(_ className: String, text: String = "") throws -> KeyboardSession {
        try Fixtures.session(Fixtures.fault(className, library: "libSwiftFaultKeyboards.so"), text: text)
    }

    static func footprint(_ session: KeyboardSession) -> Int { FootprintReader(pid: session.pid)?.read()?.total ?? 0 }

    @Test func eachPresentationIsANewControllerInTheSameProcess() throws {
        let session = try Self.swiftFault("ReopenTidy")
        let pid = session.pid
        try session.represent()
        try session.represent()
        #expect(session.pid == pid, "the process is reused")
        #expect(session.presentations == 3)
        let logs = session.events.filter { $0.name == "log" }.compactMap(\.detail)
        #expect(logs == ["controller 1", "controller 2", "controller 3"])
        #expect(Array(session.events.map(\.name).suffix(6))
                == ["viewWillDisappear", "viewDidDisappear", "viewDidLoad", "log", "viewWillAppear", "viewDidAppear"])
        #expect(session.isVisible)
    }

    @Test func aControllerKeptAliveShowsAsAReopenLeak() throws {
        // Positive control and subject: the same 4 MiB per controller; only the leaky one keeps them.
        func growth(_ className: String) throws -> Int {
            let session = try Self.swiftFault(className)
            let first = Self.footprint(session)
            for _ in 0..<4 { try session.represent() }
            #expect(session.failure == nil)
            return Self.footprint(session) - first
        }
        let leaked = try growth("ReopenLeak")
        let tidy = try growth("ReopenTidy")
        #expect(leaked >= 14 << 20, "four old controllers of 4 MiB each stay: grew \(leaked >> 10) KiB")
        #expect(tidy < 4 << 20, "ended controllers are freed: grew \(tidy >> 10) KiB")
    }

    @Test func theKeyboardSeesAWindowOf512UnitsEachSide() throws {
        let text = String(repeating: "abcdefghi\n", count: 2000) + "z"
        let session = try Self.swiftFault("ContextProbe", text: text)
        #expect(session.layout.display == "512/0")
        try session.editDocument { $0.buffer.select(UTF16Range(location: 10_000, length: 0)) }
        #expect(session.layout.display == "512/512", "after an outside selection move, a fresh window around it")
        try session.editDocument { $0.buffer.select(UTF16Range(location: 3, length: 0)) }
        #expect(session.layout.display == "3/512")
    }
}
