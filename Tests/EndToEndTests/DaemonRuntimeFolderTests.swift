import Foundation
import Glibc
import KBHost
import KBSystem
import Testing

/// Without XDG_RUNTIME_DIR the daemon's folder is /tmp/kbhost-UID, a name any user of the machine
/// may take first. The twenty-third red team, as another user, put a link there to one of the
/// victim's folders (`kbhost serve` made it 0700 through the link before it checked), and made the
/// folder itself holding a lock that named a process of the victim's (`kbhost serve --stop` sent
/// that process SIGTERM). Here the folder is KBHOST_RUNTIME_DIR, set up as such a user would.
@Suite("kbhost serve: a runtime folder someone else could have made")
struct DaemonRuntimeFolderTests {
    func mode(_ path: String) -> mode_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0
    }

    @Test func serveChangesNothingThroughALinkInItsFolder() throws {
        let w = try World()
        let target = w.home + "/shared", link = w.home + "/run-link"
        try FileManager.default.createDirectory(atPath: w.home, withIntermediateDirectories: true)
        try #require(mkdir(target, 0o755) == 0 && chmod(target, 0o755) == 0)
        try #require(symlink(target, link) == 0)
        let r = try w.run(["serve"], extraEnvironment: ["KBHOST_RUNTIME_DIR": link])
        #expect(r.status != 0 && r.err.contains("is not a folder of your own that only you may enter"), "\(r.err)")
        #expect(mode(target) == 0o755, "the folder the link leads to kept its mode: \(String(mode(target), radix: 8))")
        // The control: a chmod by the link's path, as serve made, reaches the folder.
        #expect(chmod(link, 0o700) == 0 && mode(target) == 0o700)
    }

    @Test func serveStopTrustsNoLockInAFolderOthersMayWrite() throws {
        let w = try World()
        let run = w.home + "/run-open"
        try FileManager.default.createDirectory(atPath: w.home, withIntermediateDirectories: true)
        try #require(mkdir(run, 0o755) == 0 && chmod(run, 0o755) == 0)
        let victim = try Spawn.spawn(path: "/bin/sleep", arguments: ["sleep", "60"], environment: [], files: [])
        defer {
            kill(victim, SIGKILL)
            var status: Int32 = 0
            waitpid(victim, &status, 0)
        }
        // The lock names the victim and is held, as a running daemon's is.
        try Data("\(victim)\n".utf8).write(to: URL(fileURLWithPath: run + "/control.lock"))
        let lock = open(run + "/control.lock", O_RDWR | O_CLOEXEC)
        defer { close(lock) }
        #expect(flock(lock, LOCK_EX) == 0)
        func alive() -> Bool {
            var status: Int32 = 0
            return waitpid(victim, &status, WNOHANG) == 0
        }
        let r = try w.run(["serve", "--stop"], extraEnvironment: ["KBHOST_RUNTIME_DIR": run])
        #expect(r.status != 0 && r.err.contains("trusts nothing in it"), "\(r.err)")
        usleep(200_000)
        #expect(alive(), "the process the lock names was not signalled")
        // The control: in a folder of the user's own that only they may enter, a held lock names the daemon
        // to end, and `--stop` ends it.
        #expect(chmod(run, 0o700) == 0)
        let control = try w.run(["serve", "--stop"], extraEnvironment: ["KBHOST_RUNTIME_DIR": run])
        #expect(control.status == 0, "\(control.err)")
        var waited = 0
        while alive() && waited < 300 { usleep(10_000); waited += 1 }
        #expect(!alive(), "the control: --stop ended the process its lock named")
    }
}
