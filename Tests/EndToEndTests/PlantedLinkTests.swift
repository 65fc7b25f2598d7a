import Foundation
import KBHost
import Testing

/// The host as a confused deputy, through the real `kbhost`: a keyboard with
/// open access can write its App Group's container and its own, and plants
/// symbolic links there. `kbhost defaults` (the containing app's side) and the
/// preparation of a keyboard's containers must refuse them — never create,
/// read or write anything outside.
@Suite("Links planted in containers", .serialized)
struct PlantedLinkTests {
    static let victim = "group.com.example.victim"
    static let evil = "group.dev.kbhost.Hostile"
    var env: [String: String] { ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""] }
    let fm = FileManager.default

    /// A world where another group's defaults hold a secret and the hostile group has its own, both real.
    func world() throws -> World {
        let w = try World()
        #expect(try w.run(["defaults", Self.victim, "write", "token", "SECRET-42"], extraEnvironment: env).status == 0)
        #expect(try w.run(["defaults", Self.evil, "write", "k", "mine"], extraEnvironment: env).status == 0)
        try fm.createDirectory(atPath: outside(w), withIntermediateDirectories: true)
        return w
    }

    func group(_ w: World, _ name: String) -> String { w.home + "/Containers/Groups/" + name }
    func outside(_ w: World) -> String { w.root + "/outside" }
    func victimFile(_ w: World) -> String { group(w, Self.victim) + "/Library/Preferences/\(Self.victim).kbdefaults" }

    func plant(_ w: World, _ relative: String, to target: String) throws {
        let path = group(w, Self.evil) + "/" + relative
        try? fm.removeItem(atPath: path)
        try fm.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    /// Every file under a folder and its bytes (a link's target path, not what it points to).
    func snapshot(_ folder: String) throws -> [String: Data] {
        var all: [String: Data] = [:]
        for name in try fm.subpathsOfDirectory(atPath: folder) {
            let path = folder + "/" + name
            if let target = try? fm.destinationOfSymbolicLink(atPath: path) { all[name] = Data(("→ " + target).utf8) }
            else { all[name] = fm.contents(atPath: path) ?? Data() }
        }
        return all
    }

    func expectRefused(_ r: (status: Int32, out: String, err: String), at path: String, _ kind: String,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == 7, "\(r.err)", sourceLocation: sourceLocation)
        #expect(r.err.contains("\(path): a symbolic link was found where kbhost expects a \(kind)"), "\(r.err)",
                sourceLocation: sourceLocation)
        #expect(!r.out.contains("SECRET-42"), sourceLocation: sourceLocation)
    }

    @Test func theRealLayoutWorksForEveryOperation() throws {
        let w = try world()
        #expect(try w.run(["defaults", Self.evil, "read"], extraEnvironment: env).out == "k = mine (string)\n")
        #expect(try w.run(["defaults", Self.evil, "write", "n", "7", "--type", "int"], extraEnvironment: env).status == 0)
        #expect(try w.run(["defaults", Self.evil, "delete", "k"], extraEnvironment: env).status == 0)
        #expect(try w.run(["defaults", Self.evil, "read"], extraEnvironment: env).out == "n = 7 (int)\n")
        #expect(try w.run(["defaults", Self.victim, "read", "token"], extraEnvironment: env).out == "SECRET-42\n")
    }

    @Test func aLinkedLibraryReachesNeitherAnotherGroupNorAnythingOutside() throws {
        let w = try world()
        let before = try snapshot(group(w, Self.victim))
        try plant(w, "Library", to: group(w, Self.victim) + "/Library")
        let linked = group(w, Self.evil) + "/Library"
        expectRefused(try w.run(["defaults", Self.evil, "read"], extraEnvironment: env), at: linked, "folder")
        expectRefused(try w.run(["defaults", Self.evil, "read", "token"], extraEnvironment: env), at: linked, "folder")
        expectRefused(try w.run(["defaults", Self.evil, "write", "token", "overwritten"], extraEnvironment: env), at: linked, "folder")
        expectRefused(try w.run(["defaults", Self.evil, "delete", "token"], extraEnvironment: env), at: linked, "folder")
        #expect(try snapshot(group(w, Self.victim)) == before, "the other group is byte-identical, with no new file")

        try plant(w, "Library", to: outside(w))
        expectRefused(try w.run(["defaults", Self.evil, "write", "x", "y"], extraEnvironment: env), at: linked, "folder")
        #expect(try fm.contentsOfDirectory(atPath: outside(w)).isEmpty, "no Preferences folder created outside")
    }

    @Test func aLinkedPreferencesFolderCreatesNothingOutside() throws {
        let w = try world()
        try plant(w, "Library/Preferences", to: outside(w))
        let linked = group(w, Self.evil) + "/Library/Preferences"
        expectRefused(try w.run(["defaults", Self.evil, "write", "x", "y"], extraEnvironment: env), at: linked, "folder")
        expectRefused(try w.run(["defaults", Self.evil, "read"], extraEnvironment: env), at: linked, "folder")
        #expect(try fm.contentsOfDirectory(atPath: outside(w)).isEmpty, "no defaults file, lock or temporary file outside")
    }

    @Test func aLinkedDefaultsFileIsNotCopiedIntoTheKeyboardsGroup() throws {
        let w = try world()
        let before = try Data(contentsOf: URL(fileURLWithPath: victimFile(w)))
        let linked = group(w, Self.evil) + "/Library/Preferences/\(Self.evil).kbdefaults"
        try plant(w, "Library/Preferences/\(Self.evil).kbdefaults", to: victimFile(w))
        expectRefused(try w.run(["defaults", Self.evil, "read", "token"], extraEnvironment: env), at: linked, "file")
        expectRefused(try w.run(["defaults", Self.evil, "read", "--json"], extraEnvironment: env), at: linked, "file")
        // Before, a write read the victim's values through the link and renamed them, with its own, into
        // a real file the keyboard can read.
        expectRefused(try w.run(["defaults", Self.evil, "write", "x", "y"], extraEnvironment: env), at: linked, "file")
        #expect(try Data(contentsOf: URL(fileURLWithPath: victimFile(w))) == before)
        #expect(try fm.destinationOfSymbolicLink(atPath: linked) == victimFile(w), "still the planted link, not a copy")
        for (name, bytes) in try snapshot(group(w, Self.evil)) {
            #expect(!String(decoding: bytes, as: UTF8.self).contains("SECRET-42"), "\(name) holds the other group's value")
        }
    }

    @Test func aLinkedLockFileCreatesNothingOutside() throws {
        let w = try world()
        let target = outside(w) + "/made-by-kbhost.lock"
        try plant(w, "Library/Preferences/.\(Self.evil).lock", to: target)
        expectRefused(try w.run(["defaults", Self.evil, "write", "x", "y"], extraEnvironment: env),
                      at: group(w, Self.evil) + "/Library/Preferences/.\(Self.evil).lock", "file")
        #expect(!fm.fileExists(atPath: target))
        #expect(try w.run(["defaults", Self.evil, "read"], extraEnvironment: env).out == "k = mine (string)\n", "nothing written")
    }

    /// Containers.prepare, before the hostile keyboard's process starts: its `tmp` and its group's `Library`.
    @Test func aKeyboardWhoseContainersHoldLinksDoesNotStartAndNothingIsMadeOutside() throws {
        let w = try world()
        let typed = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "own"], extraEnvironment: env)
        #expect(typed.status == 0, "positive control: \(typed.err)")
        #expect(typed.out.contains("own: allowed"))

        let own = w.home + "/Containers/Keyboards/dev.kbhost.Hostile"
        try fm.removeItem(atPath: own + "/tmp")
        try fm.createSymbolicLink(atPath: own + "/tmp", withDestinationPath: outside(w))
        let r = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "own"], extraEnvironment: env)
        #expect(r.status != 0)
        #expect(r.err.contains("\(own)/tmp: a symbolic link was found where kbhost expects a folder"), "\(r.err)")

        try fm.removeItem(atPath: own + "/tmp")
        try plant(w, "Library", to: outside(w))
        let g = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "own"], extraEnvironment: env)
        #expect(g.status != 0)
        #expect(g.err.contains("\(group(w, Self.evil))/Library: a symbolic link was found where kbhost expects a folder"), "\(g.err)")
        #expect(try fm.contentsOfDirectory(atPath: outside(w)).isEmpty)
    }
}

/// A keyboard with open access may hold its group's lock (it writes there);
/// the app's side then waits a few seconds and says why, rather than forever.
@Suite("Group defaults: a lock held for good")
struct HeldLockTests {
    @Test func aHeldGroupLockMakesTheAppsWriteFailWithAReasonNotHang() throws {
        let w = try World()
        let env = ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""]
        let group = "group.dev.kbhost.Hostile"
        #expect(try w.run(["defaults", group, "write", "k", "1"], extraEnvironment: env).status == 0, "the control: a write goes through")
        let lock = w.home + "/Containers/Groups/\(group)/Library/Preferences/.\(group).lock"
        let fd = open(lock, O_RDWR)
        try #require(fd >= 0, "the lock file is where the store keeps it")
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        let started = Date()
        let held = try w.run(["defaults", group, "write", "k", "2"], extraEnvironment: env)
        #expect(held.status != 0)
        #expect(held.err.contains("has been locked by another process"), "\(held.err)")
        #expect(Date().timeIntervalSince(started) < 30, "it gave up rather than waiting for good")
        flock(fd, LOCK_UN)
        #expect(try w.run(["defaults", group, "write", "k", "3"], extraEnvironment: env).status == 0)
        #expect(try w.run(["defaults", group, "read", "k"], extraEnvironment: env).out == "3\n")
    }

    /// Fourth red team: a keyboard of the group that holds the lock must not get another one
    /// killed. The keyboard's side waited the app's 5 s for it, past the host's 2.5 s deadline for
    /// a call: the writer was killed as hung ("did not answer within 2500 ms"), a failure charged
    /// to it. Now it waits 1 s and gets an error it can handle, and the keyboard lives on.
    @Test func aHeldGroupLockIsAnErrorToAKeyboardNotAHang() throws {
        let w = try World()
        let env = ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""]
        let group = "group.dev.kbhost.Hostile"
        #expect(try w.run(["access", "dev.kbhost.Hostile", "on"], extraEnvironment: env).status == 0)
        let control = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "defaults"], extraEnvironment: env)
        #expect(control.status == 0 && control.out.contains("defaults: allowed"), "the control: the write goes through: \(control.out) \(control.err)")
        let lock = w.home + "/Containers/Groups/\(group)/Library/Preferences/.\(group).lock"
        let fd = open(lock, O_RDWR)
        try #require(fd >= 0, "the lock file is where the store keeps it")
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        let held = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "defaults", "own"], extraEnvironment: env)
        #expect(held.status == 0, "not killed as hung: \(held.err)")
        #expect(held.out.contains("defaults: denied") && held.out.contains("locked by another process"), "\(held.out)")
        #expect(held.out.contains("own: allowed"), "the keyboard went on to its next key")
    }
}
