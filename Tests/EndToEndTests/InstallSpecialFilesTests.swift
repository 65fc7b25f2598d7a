import Foundation
import KBHost
import Testing

/// `kbhost install` copies only what a bundle may hold, and what it leaves behind is no keyboard.
/// A FIFO in a downloaded bundle hung the copy (reading it waits for a writer), and the
/// `.staging-…` folder an interrupted install left in KBHOST_HOME/Keyboards was then read as
/// an installed keyboard, ahead of the real one of the same identifier.
@Suite("kbhost install: files, folders and links only; its own leftovers are no keyboard")
struct InstallSpecialFilesTests {
    /// Whether a writer, polling the FIFO, stopped waiting (a reader opened it or time ran out).
    final class Writer: @unchecked Sendable {
        let lock = NSLock()
        var stop = false
        var wrote = false
        let done = DispatchSemaphore(value: 0)

        /// Writes into the FIFO as soon as a reader opens it, for at most `seconds`.
        func start(_ fifo: String, seconds: Double) {
            DispatchQueue.global().async {
                let deadline = Date().addingTimeInterval(seconds)
                while Date() < deadline, !self.lock.withLock({ self.stop }) {
                    let fd = open(fifo, O_WRONLY | O_NONBLOCK)  // ENXIO while nobody reads
                    if fd >= 0 {
                        _ = "from the FIFO\n".withCString { write(fd, $0, strlen($0)) }
                        close(fd)
                        self.lock.withLock { self.wrote = true }
                        break
                    }
                    usleep(10_000)
                }
                self.done.signal()
            }
        }
    }

    @Test func aBundleWithAFIFOIsRefusedNotWaitedOn() throws {
        let w = try World()
        let bundle = try w.makeBundle(id: "dev.example.Piped", library: "libNumberPadKeyboard.so",
                                      principal: "NumberPadViewController")
        // The control: the same bundle without the FIFO installs.
        let plain = try w.kbhost("install", bundle)
        #expect(plain.status == 0, "\(plain.err)")

        #expect(mkfifo(bundle + "/pipe", 0o644) == 0)
        let writer = Writer()
        writer.start(bundle + "/pipe", seconds: 5)  // without the check, the copy reads this and goes on
        let started = Date()
        let r = try w.kbhost("install", bundle)
        writer.lock.withLock { writer.stop = true }
        writer.done.wait()
        #expect(r.status == 10, "refused as an invalid bundle: \(r.status) \(r.err)")
        #expect(r.err.contains("pipe") && r.err.contains("FIFO"), "the error names the file: \(r.err)")
        #expect(!writer.lock.withLock { writer.wrote }, "the FIFO was never opened")
        #expect(Date().timeIntervalSince(started) < 4)
        let left = try FileManager.default.contentsOfDirectory(atPath: w.home + "/Keyboards")
        #expect(left == ["dev.example.Piped"], "nothing staged is left: \(left)")
    }

    @Test func aLeftoverStagingFolderIsNoKeyboard() throws {
        let w = try World()
        let keyboards = w.home + "/Keyboards"
        // What an interrupted install leaves: a full bundle in a staging folder.
        _ = try w.makeBundle(id: "dev.example.Staged", library: "libNumberPadKeyboard.so",
                             principal: "NumberPadViewController", at: keyboards + "/.staging-1234")
        var listed = try w.kbhost("list", "--all", "--ids").out
        #expect(!listed.contains("dev.example.Staged"), "a staging folder is install's own, not a keyboard: \(listed)")
        // The control: the same bundle in its own folder is an installed keyboard.
        _ = try w.makeBundle(id: "dev.example.Staged", library: "libNumberPadKeyboard.so",
                             principal: "NumberPadViewController", at: keyboards + "/dev.example.Staged")
        let r = try w.kbhost("list", "--all", "--ids")
        listed = r.out
        #expect(listed.contains("dev.example.Staged"), "\(listed)")
        #expect(!r.err.contains(".staging"), "no warning about two copies: \(r.err)")
    }
}

extension InstallSpecialFilesTests {
    /// A bundle that brings a symbolic link named as the note `install` writes into the installed
    /// copy (`.kbhost-installed-from`) had `install` write through it (eighth red team, E): to any
    /// file the user may write, or, relative, to the settings. The targets here are real (a file
    /// holding "ORIGINAL", the settings after an `enable`); after the install both are unchanged
    /// and the note is a file of the copy's own naming the bundle.
    @Test func aLinkInTheBundleWhereTheNoteGoesIsNotWrittenThrough() throws {
        let w = try World()
        let env = ["KBHOST_HOME": w.home, "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!,
                   "KBHOST_RUNTIME_DIR": w.root + "/run"]
        #expect(try w.run(["enable", "dev.kbhost.NumberPad"], extraEnvironment: env).status == 0)
        let settings = w.home + "/settings.json"
        let target = w.root + "/target.txt"
        try Data("ORIGINAL".utf8).write(to: URL(fileURLWithPath: target))
        for (id, link) in [("dev.example.LinkAbsolute", target), ("dev.example.LinkRelative", "../../settings.json")] {
            let bundle = try w.makeBundle(id: id, library: "libNumberPadKeyboard.so", principal: "NumberPadViewController", name: id)
            #expect(symlink(link, bundle + "/.kbhost-installed-from") == 0)
            // The control: the link is live and leads where it says.
            #expect(FileManager.default.fileExists(atPath: bundle + "/.kbhost-installed-from") == (link == target))
            let r = try w.run(["install", bundle], extraEnvironment: env)
            #expect(r.status == 0, "\(r.err)")
            let note = w.home + "/Keyboards/" + id + "/.kbhost-installed-from"
            var st = stat()
            #expect(lstat(note, &st) == 0 && st.st_mode & S_IFMT == S_IFREG, "the note is a file of the copy's own")
            #expect((try? String(contentsOfFile: note, encoding: .utf8)) == bundle + "\n")
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "ORIGINAL", "the file the link named is untouched")
        let settingsAfter = try String(contentsOfFile: settings, encoding: .utf8)
        #expect(settingsAfter.contains("dev.kbhost.NumberPad") && settingsAfter.hasPrefix("{"), "the settings are whole")
        #expect(try w.run(["list"], extraEnvironment: env).status == 0, "and readable")
    }
}
