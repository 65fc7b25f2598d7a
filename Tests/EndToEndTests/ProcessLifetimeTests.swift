import Foundation
import KBHost
import KBSystem
import Testing

@Suite("Extension process lifetime")
struct ProcessLifetimeTests {
    final class Box: @unchecked Sendable {
        var session: KeyboardSession?
        var error: (any Error)?
    }

    /// PR_SET_PDEATHSIG follows the spawning *thread*; kbhost spawns from one
    /// long-lived thread, so a keyboard outlives the thread that loaded it.
    @Test func keyboardOutlivesTheThreadThatLoadedIt() throws {
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do { box.session = try Fixtures.session(try Fixtures.sample("dev.kbhost.NumberPad")) } catch { box.error = error }
            done.signal()
        }
        thread.start()
        done.wait()
        while !thread.isFinished { usleep(1000) }
        usleep(100_000)
        if let error = box.error { throw error }
        let session = try #require(box.session)
        #expect(Fixtures.processExists(session.pid))
        try session.tap("8")
        #expect(session.document.text == "8")
    }

    @Test func droppingASessionReapsItsProcess() throws {
        var session: KeyboardSession? = try Fixtures.session(try Fixtures.sample("dev.kbhost.Calculator"))
        let pid = try #require(session?.pid)
        session = nil
        #expect(!Fixtures.processExists(pid))
    }
}
