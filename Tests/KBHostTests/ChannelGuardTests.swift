import Foundation
import Glibc
import KBSystem
import Testing

/// What the host's end of a keyboard's channel relies on against a keyboard that answers calls
/// it never read (ninth red team, M: it peeked at each request and replied, nothing was read,
/// and the host's next write blocked for good): a write gives up after its deadline
/// (SO_SNDTIMEO), and what the other end has not read yet is known (SIOCOUTQ), so a reply to
/// an unread request is refused. Both on a real socket pair.
@Suite("The host's end of a keyboard's channel")
struct ChannelGuardTests {
    @Test func aWriteToAnEndThatNeverReadsGivesUpAndUnreadBytesAreKnown() throws {
        let (host, keyboard) = try Sys.socketPair()
        defer { Sys.close(host); Sys.close(keyboard) }
        #expect(Sys.unreadSent(host) == 0, "nothing sent yet")
        try Sys.sendAll(host, Array(repeating: 7, count: 100))
        let unread = try #require(Sys.unreadSent(host))
        #expect(unread > 0, "the request waits, unread: \(unread)")
        var peek = [UInt8](repeating: 0, count: 100)
        #expect(recv(keyboard, &peek, 100, Int32(MSG_PEEK)) == 100)
        #expect(Sys.unreadSent(host) == unread, "a peek reads nothing")
        #expect(read(keyboard, &peek, 100) == 100)
        #expect(Sys.unreadSent(host) == 0, "read: nothing left")

        try Sys.setSendTimeout(host, milliseconds: 200)
        let start = Date()
        var failure: SystemError?
        for _ in 0..<100_000 {
            do { try Sys.sendAll(host, Array(repeating: 1, count: 64 * 1024)) } catch { failure = error; break }
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(failure?.errno == EAGAIN || failure?.errno == EWOULDBLOCK, "a full channel fails the write: \(String(describing: failure))")
        #expect(elapsed < 30, "instead of blocking for good (\(elapsed) s)")
    }
}
