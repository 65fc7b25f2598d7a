import Foundation
import Glibc
import KBSystem
import Testing

/// Who besides a folder's owner may write in it (`FolderTrust.othersWhoMayWrite`): everyone, or a group
/// that is not the owner's own (a review: a team folder's group, a user whose primary group is another's
/// "private" one; a user-private group with no names to look up is the owner's own).
@Suite("Who may write in a keyboard's folder")
struct FolderTrustTests {
    func folder(mode: mode_t, owner: uid_t, group: gid_t) throws -> (String, FolderTrust.Found) {
        let path = try #require(Sys.realPath(NSTemporaryDirectory())) + "/kbhost-trust-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(mkdir(path, 0o700) == 0)
        #expect(chown(path, owner, group) == 0 && chmod(path, mode) == 0)
        return (path, try #require(FolderTrust.inspect(real: path)))
    }

    @Test func everyoneAndOtherGroupsMayWriteButNotTheOwnersOwnGroup() throws {
        let (mine, found) = try folder(mode: 0o755, owner: getuid(), group: getgid())
        defer { rmdir(mine) }
        #expect(FolderTrust.othersWhoMayWrite(found) == nil, "the control: only its owner")
        let (open, anyone) = try folder(mode: 0o1777, owner: getuid(), group: getgid())
        defer { rmdir(open) }
        #expect(FolderTrust.othersWhoMayWrite(anyone) == "anyone")
        guard getuid() == 0 else { return }  // (the rest makes folders of other users and groups)
        let (team, shared) = try folder(mode: 0o2775, owner: 0, group: 100)  // Debian's `users`
        defer { rmdir(team) }
        #expect(FolderTrust.othersWhoMayWrite(shared) == "its group (100)")
        // A user with no entry in the user or group database, its group numbered as itself (umask 002).
        let (nameless, own) = try folder(mode: 0o775, owner: 4242, group: 4242)
        defer { rmdir(nameless) }
        #expect(FolderTrust.othersWhoMayWrite(own) == nil, "a user-private group is the owner's own")
        // The same group for another user: not the owner's own.
        let (other, theirs) = try folder(mode: 0o775, owner: 4243, group: 4242)
        defer { rmdir(other) }
        #expect(FolderTrust.othersWhoMayWrite(theirs) == "its group (4242)")
    }
}
