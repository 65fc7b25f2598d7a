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

@Suite("Switched-away keyboards and thread storms")
struct SessionPoolTests {
    @Test func pastTheLimitTheLeastRecentlyUsedKeyboardIsEnded() throws {
        let pool = SessionPool(limit: 2)
        let ids = ["dev.kbhost.NumberPad", "dev.kbhost.Calculator", "dev.kbhost.Science"]
        var pids: [Int32] = []
        for id in ids.prefix(2) {
            let s = try Fixtures.session(try Fixtures.sample(id))
            pids.append(s.pid)
            pool.insert(s)
        }
        pool.touch("dev.kbhost.NumberPad")  // used again: Calculator is now the oldest
        let science = try Fixtures.session(try Fixtures.sample(ids[2]))
        pool.insert(science)
        #expect(pool.count == 2)
        #expect(pool["dev.kbhost.Calculator"] == nil)
        #expect(!Fixtures.processExists(pids[1]), "the evicted keyboard's process is ended")
        #expect(Fixtures.processExists(pids[0]), "the recently used one stays")
        pool.closeAll()
        #expect(!Fixtures.processExists(pids[0]) && !Fixtures.processExists(science.pid))
    }

    @Test func aKeyboardStartingThousandsOfThreadsDoesNotTakeTheHostDown() throws {
        var config = Fixtures.configuration
        config.memoryBudgetBytes = 48 << 20
        config.eventDeadlineMilliseconds = 10_000
        let session = try KeyboardSession(keyboard: Fixtures.fault("ThreadsOnKey"), document: TextDocument(text: "kept "),
                                          configuration: config)
        try session.appear()
        _ = try? session.tap("boom")
        // Either it lived (its thread limit stopped it: RLIMIT_DATA, small stacks) or the budget ended it.
        if let failure = session.failure {
            #expect(["memory", "crash"].contains(failure.kind), "\(failure)")
        } else {
            #expect(session.document.text.hasPrefix("kept "))
        }
        #expect(session.document.text.hasPrefix("kept "))
        let other = try Fixtures.session(try Fixtures.sample("dev.kbhost.NumberPad"))
        try other.tap("2")
        #expect(other.document.text == "2")
    }
}
