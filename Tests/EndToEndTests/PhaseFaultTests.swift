import Foundation
import KBHost
import KBText
import Testing

/// Crashes and hangs in every phase: detected, named, the committed text intact, the host fine.
@Suite("Faults in every phase")
struct PhaseFaultTests {
    static let phases = ["ViewWillAppear", "ViewDidAppear", "ViewWillDisappear", "ViewDidDisappear",
                         "TextWillChange", "TextDidChange", "SelectionWillChange", "SelectionDidChange"]

    @Test(arguments: ["Crash", "Hang"], phases)
    func aFaultInThisPhaseIsCaught(mode: String, phase: String) throws {
        var config = Fixtures.configuration
        config.eventDeadlineMilliseconds = 400
        let session = try KeyboardSession(keyboard: Fixtures.fault("\(mode)In\(phase)"),
                                          document: TextDocument(text: "kept "), configuration: config)
        let pid = session.pid
        func trigger() throws {
            switch phase {
            case "ViewWillAppear", "ViewDidAppear": try session.appear()
            case "ViewWillDisappear", "ViewDidDisappear":
                try session.appear()
                try session.tap("1")
                try session.disappear()
            case "TextWillChange", "TextDidChange":
                try session.appear()
                try session.tap("1")
                try session.editDocument { $0.buffer.insertText("!") }
            default:
                try session.appear()
                try session.tap("1")
                try session.editDocument { $0.buffer.select(UTF16Range(location: 0, length: 0)) }
            }
        }
        #expect(throws: KeyboardFailure.self) { try trigger() }
        let failure = try #require(session.failure)
        #expect(failure.kind == (mode == "Crash" ? "crash" : "hang"), "\(failure)")
        let selector = phase.prefix(1).lowercased() + phase.dropFirst()
        #expect(failure.phase == selector, "the failure names the phase")
        #expect(session.document.text.hasPrefix("kept "), "committed text stays")
        #expect(!Fixtures.processExists(pid))
        let other = try Fixtures.session(try Fixtures.sample("dev.kbhost.NumberPad"))
        try other.tap("4")
        #expect(other.document.text == "4", "the host carries on")
    }

    @Test func aCrashRightAfterAdvanceToNextInputMode() throws {
        let session = try Fixtures.session(Fixtures.fault("CrashInAdvance"), text: "kept ")
        try session.tap("1")
        var advanced = 0
        session.onAdvanceToNextInputMode = { advanced += 1 }
        #expect(throws: SessionError.self) { try session.tap("globe") }
        #expect(session.failure?.kind == "crash")
        #expect(advanced == 0, "the request died with the keyboard: nothing half-done reaches the host")
        #expect(session.document.text == "kept 1")
    }
}

@Suite("Swift traps and busy loops")
struct SwiftFaultTests {
    @Test func aSwiftRuntimeTrapEndsOnlyTheKeyboard() throws {
        let session = try Fixtures.session(Fixtures.fault("TrapOnKey", library: "libSwiftFaultKeyboards.so"), text: "kept ")
        try session.tap("1")
        #expect(throws: SessionError.self) { try session.tap("boom") }
        let failure = try #require(session.failure)
        #expect(failure.kind == "crash", "\(failure)")
        guard case .signaled(let signal) = failure.reason else { return }
        #expect(signal == SIGILL || signal == SIGTRAP, "a Swift trap is an illegal instruction")
        #expect(session.document.text == "kept 1")
    }

    @Test func aBusyLoopIsAHang() throws {
        let session = try Fixtures.session(Fixtures.fault("SpinOnKey", library: "libSwiftFaultKeyboards.so"), eventMs: 400)
        #expect(throws: SessionError.self) { try session.tap("boom") }
        #expect(session.failure?.kind == "hang")
        #expect(session.failure?.reason == .deadlineExceeded(milliseconds: 400))
    }
}
