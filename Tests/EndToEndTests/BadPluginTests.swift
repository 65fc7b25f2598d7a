import Foundation
import KBHost
import KBSystem
import KBText
import KBWire
import Testing

/// Bad plugins give clear errors and leave the host running.
@Suite("Bad plugins")
struct BadPluginTests {
    func loadFailure(_ keyboard: LoadableKeyboard, launchMs: Int = 1000) -> KeyboardFailure? {
        do {
            _ = try Fixtures.session(keyboard, launchMs: launchMs)
            return nil
        } catch {
            return error as? KeyboardFailure
        }
    }

    /// After any failure the host must still load and use a good keyboard.
    func hostStillWorks() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.NumberPad"))
        try session.tap("5")
        #expect(session.document.text == "5")
    }

    @Test func missingEntrySymbol() throws {
        let failure = try #require(loadFailure(Fixtures.fault("Anything", library: "libFaultNoEntry.so")))
        #expect(failure.reason == .loadFailed(.missingEntry, failure.reasonDescription))
        #expect(failure.description.contains("does not export kbhost_keyboard_plugin_v1"))
        #expect(failure.phase == "load")
        try hostStillWorks()
    }

    @Test func wrongABIVersion() throws {
        let failure = try #require(loadFailure(Fixtures.fault("Anything", library: "libFaultWrongABI.so")))
        guard case .loadFailed(.abiMismatch, let message) = failure.reason else {
            Issue.record("expected an ABI mismatch, got \(failure)")
            return
        }
        #expect(message.contains("ABI 99"))
        #expect(message.contains("ABI 1"))
        try hostStillWorks()
    }

    @Test func principalClassNotFound() throws {
        let failure = try #require(loadFailure(Fixtures.fault("NoSuchViewController")))
        guard case .loadFailed(.classNotFound, let message) = failure.reason else {
            Issue.record("expected class not found, got \(failure)")
            return
        }
        #expect(message.contains("NoSuchViewController"))
        #expect(message.contains("CrashInViewDidLoad"), "lists the classes the plugin does define")
        try hostStillWorks()
    }

    @Test func selectorEncodingMismatchNamesClassSelectorAndBothEncodings() throws {
        let failure = try #require(loadFailure(Fixtures.fault("BadEncoding")))
        guard case .loadFailed(.encodingMismatch, let message) = failure.reason else {
            Issue.record("expected an encoding mismatch, got \(failure)")
            return
        }
        #expect(message.hasPrefix("class BadEncoding: selector viewDidLoad has type encoding 'v@:i', but kbhost passes 'v@:'; change the function's signature"))
        try hostStillWorks()
    }

    @Test func crashInViewDidLoad() throws {
        let failure = try #require(loadFailure(Fixtures.fault("CrashInViewDidLoad")))
        #expect(failure.reason == .signaled(signal: SIGABRT))
        #expect(failure.phase == "viewDidLoad")
        #expect(failure.description.contains("ended by signal SIGABRT"))
        try hostStillWorks()
    }

    @Test func pluginThatNeverAnswersTheHandshake() throws {
        let started = Sys.monotonicNanoseconds()
        let failure = try #require(loadFailure(Fixtures.fault("HangInCreate"), launchMs: 700))
        #expect(failure.reason == .deadlineExceeded(milliseconds: 700))
        #expect(failure.phase == "load")
        #expect(Sys.monotonicNanoseconds() - started < 5_000_000_000, "the deadline, not the plugin, decides")
        try hostStillWorks()
    }

    @Test func layoutNamingAMissingAction() throws {
        let failure = try #require(loadFailure(Fixtures.fault("BadLayoutAction")))
        guard case .loadFailed(.badLayout, let message) = failure.reason else {
            Issue.record("expected a bad layout, got \(failure)")
            return
        }
        #expect(message.contains("noSuchAction:"))
        #expect(message.contains("key 'x'"))
    }

    @Test(arguments: [("CrashOnKey", "crash"), ("HangOnKey", "hang"), ("ExitOnKey", "exit"),
                      ("OversizedFrameOnKey", "protocol"), ("GarbageFrameOnKey", "protocol")])
    func faultOnAKeyKeepsCommittedTextAndTheHost(className: String, kind: String) throws {
        let session = try Fixtures.session(Fixtures.fault(className), text: "kept ", eventMs: 1000)
        try session.tap("1")
        try session.tap("1")
        let pid = session.pid
        #expect(throws: SessionError.self) { try session.tap("boom") }
        let failure = try #require(session.failure)
        #expect(failure.kind == kind, "\(failure)")
        #expect(failure.phase == "key 'boom'")
        #expect(session.document.text == "kept 11", "what the keyboard committed stays")
        #expect(!Fixtures.processExists(pid), "the failed worker is reaped")
        #expect(throws: SessionError.self) { try session.tap("1") }
        try hostStillWorks()
    }

    @Test func malformedFrameIsNamed() throws {
        let session = try Fixtures.session(Fixtures.fault("OversizedFrameOnKey"))
        _ = try? session.tap("boom")
        let failure = try #require(session.failure)
        #expect(failure.description.contains("exceeds the maximum"))
    }

    @Test func stderrOfTheKeyboardIsKeptAsLogText() throws {
        let failure = try #require(loadFailure(Fixtures.fault("CrashInViewDidLoad")))
        // abort() in the worker prints nothing itself, but the Swift runtime's
        // backtracer or glibc may; the tail is a string either way, never lost.
        #expect(failure.stderrTail.utf8.count <= 16 * 1024)
    }

    @Test func missingWorkerExecutableIsASpawnError() throws {
        var config = Fixtures.configuration
        config.workerPath = "/nonexistent/kbhost-worker"
        #expect {
            _ = try KeyboardSession(keyboard: try Fixtures.sample("dev.kbhost.NumberPad"), configuration: config)
        } throws: { error in
            (error as? KeyboardFailure)?.description.contains("no worker executable at /nonexistent/kbhost-worker") == true
        }
    }
}

@Suite("The document is the app's")
struct DocumentOwnershipTests {
    @Test func aKeyboardDyingInTextWillChangeCannotVetoTheAppsEdit() throws {
        let session = try Fixtures.session(Fixtures.fault("CrashInTextWillChange"), text: "abc")
        try session.tap("1")
        #expect(throws: KeyboardFailure.self) {
            try session.editDocument { $0.buffer.replace(UTF16Range(location: 0, length: 4), with: "xyz") }
        }
        #expect(session.document.text == "xyz", "the app's change stands")
        #expect(session.failure?.phase == "textWillChange")
    }
}

@Suite("Floods and forks")
struct FloodAndForkTests {
    /// (300,000 insertions in one action are legal and travel as one: WireLimitTests.)
    @Test func aFloodOfChangesEndsThatKeyboardNotTheHost() throws {
        let session = try Fixtures.session(Fixtures.fault("ClickFloodOnKey"), text: "kept", eventMs: 5000)
        #expect(throws: SessionError.self) { try session.tap("boom") }
        let failure = try #require(session.failure)
        #expect(failure.kind == "limit", "\(failure)")
        #expect(session.document.text == "kept")
        let other = try Fixtures.session(try Fixtures.sample("dev.kbhost.NumberPad"))
        try other.tap("1")
        #expect(other.document.text == "1")
    }

    @Test func nothingAKeyboardForkedOutlivesIt() throws {
        let session = try Fixtures.session(Fixtures.fault("ForkOnKey"), eventMs: 500)
        let pid = session.pid
        #expect(throws: SessionError.self) { try session.tap("boom") }
        #expect(session.failure?.kind == "hang")
        usleep(100_000)
        // Every process of the keyboard's group is gone.
        let stragglers = try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap(Int32.init).filter { candidate in
            guard let fields = Fixtures.statFields(candidate) else { return false }
            return fields.count > 3 && fields[0] != "Z" && Int32(fields[3]) == pid
        }
        #expect(stragglers.isEmpty, "processes left in the keyboard's group: \(stragglers)")
    }
}

@Suite("Exits seen through the pidfd")
struct PidfdExitTests {
    @Test func anExitIsSeenAtOnceEvenWhenAForkedChildHoldsTheChannel() throws {
        let session = try Fixtures.session(Fixtures.fault("ForkThenExitOnKey"), text: "kept ", eventMs: 5000)
        let started = Sys.monotonicNanoseconds()
        #expect(throws: SessionError.self) { try session.tap("boom") }
        let failure = try #require(session.failure)
        #expect(failure.reason == .exited(status: 3), "\(failure)")
        #expect(Sys.monotonicNanoseconds() - started < 2_000_000_000, "not the 5 s deadline: the pidfd said so")
        #expect(session.document.text == "kept ")
    }
}
