import Foundation
import Glibc
import KBHost
import KBSystem
import KBText
import Testing

/// A keyboard reads all of its bundle's folder: that folder must be its author's alone, and the one
/// the host checked is the one the extension process mounts (twenty-fifth red team).
extension SandboxTests {
    /// The Hostile keyboard's manifest and library copied into `folder`, with `secret` (six bytes,
    /// 0600, the user's own) beside them.
    func hostileBundle(at folder: String) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try fm.copyItem(atPath: Fixtures.installation.productsDirectory + "/libHostileKeyboard.so", toPath: folder + "/libHostileKeyboard.so")
        try fm.copyItem(atPath: (Fixtures.installation.manifestsDirectory ?? "") + "/Hostile/Info.plist", toPath: folder + "/Info.plist")
        #expect(fm.createFile(atPath: folder + "/secret.txt", contents: Data("secret".utf8), attributes: [.posixPermissions: 0o600]))
    }

    /// A shared KBHOST_KEYBOARDS folder of another user's holding a link to a folder anyone may write
    /// in (/tmp), where that user put a manifest and a library: the keyboard would have read the
    /// user's own files there. It is refused, in `list` and at launch, naming why. The control: the
    /// same bundle in a folder of its own starts, and reads the file beside its library.
    @Test func aBundleInAFolderAnyoneMayWriteInIsRefused() throws {
        let root = "/var/tmp/kbhost-test-" + UUID().uuidString  // not under /tmp, which the keyboard's root replaces
        defer { try? FileManager.default.removeItem(atPath: root) }
        let own = root + "/own/Hostile", open = root + "/open", shared = root + "/shared"
        try hostileBundle(at: own)
        try hostileBundle(at: open)
        #expect(chmod(open, 0o1777) == 0, "stands for /tmp")
        if getuid() == 0 {  // what another user put there (as root the test can make them another user's)
            for file in ["Info.plist", "libHostileKeyboard.so"] { #expect(chown(open + "/" + file, 65534, 65534) == 0) }
        }
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: shared + "/Hostile", withDestinationPath: open)
        let w = try World()
        func type(from keyboards: String, secret: String) throws -> (status: Int32, out: String, err: String) {
            try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "--text", "file \(secret) ", "read-file"],
                      extraEnvironment: ["KBHOST_HOME": root + "/home", "KBHOST_KEYBOARDS": keyboards, "KBHOST_MANIFESTS": root + "/none"])
        }
        // The control: in a folder of its own, the file beside its library is the keyboard's to read.
        let control = try type(from: root + "/own", secret: own + "/secret.txt")
        #expect(control.status == 0, "\(control.err)")
        #expect(Scene.outcomes(control.out)["read-file"] == "allowed: read 6 bytes of \(own)/secret.txt", "\(control.out)")
        #expect(FileManager.default.isReadableFile(atPath: shared + "/Hostile/secret.txt"), "the user's file is there, through the link")
        // The attack: the bundle is the folder anyone may write in (the secret as the keyboard would name it there).
        func refused(_ why: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let attack = try type(from: shared, secret: open + "/secret.txt")
            #expect(attack.status != 0 && !attack.out.contains("read 6 bytes"), "\(attack.out)", sourceLocation: sourceLocation)
            #expect(attack.err.contains("is in a bundle no keyboard may run from: " + why), "\(attack.err)", sourceLocation: sourceLocation)
            let list = try w.run(["list", "--all"], extraEnvironment: ["KBHOST_HOME": root + "/home", "KBHOST_KEYBOARDS": shared,
                                                                      "KBHOST_MANIFESTS": root + "/none"])
            #expect(list.err.contains("is in a bundle no keyboard may run from: " + why), "\(list.err)", sourceLocation: sourceLocation)
        }
        try refused("its folder '\(open)' is one anyone may write in")
        guard getuid() == 0 else { return }  // (the rest makes files of other users and groups)
        // A folder of the user's that a group may write in (`users`, not the owner's own group): the same.
        #expect(chmod(open, 0o2775) == 0 && chown(open, 0, 100) == 0)
        try refused("its folder '\(open)' is one its group (100) may write in")
        // A manifest and library of another user's in a folder of the user's: not the user's keyboard.
        #expect(chmod(open, 0o755) == 0)
        try refused("its manifest '\(open)/Info.plist' is user 65534's, not yours")
        // A folder of another user's, however kept: his to fill while the keyboard runs.
        #expect(chown(open, 65534, 65534) == 0)
        try refused("its folder '\(open)' is user 65534's, not yours")
        // A library anyone may write to: anyone decides what runs as the user.
        for file in ["", "/Info.plist", "/libHostileKeyboard.so"] { #expect(chown(open + file, 0, 0) == 0) }
        #expect(chmod(open + "/libHostileKeyboard.so", 0o666) == 0)
        try refused("its library '\(open)/libHostileKeyboar")  // (a long path is cut short: "…' is one anyone may write to")
        #expect(try type(from: shared, secret: open + "/secret.txt").err.contains("' is one anyone may write to"))
        // Installed, another user's keyboard is the user's copy, and runs (install itself takes it).
        #expect(chmod(open + "/libHostileKeyboard.so", 0o755) == 0)
        for file in ["", "/Info.plist", "/libHostileKeyboard.so"] { #expect(chown(open + file, 65534, 65534) == 0) }
        let env = ["KBHOST_HOME": root + "/home", "KBHOST_MANIFESTS": root + "/none"]
        let install = try w.run(["install", open], extraEnvironment: env)
        #expect(install.status == 0, "\(install.err)")
        let installed = root + "/home/Keyboards/dev.kbhost.Hostile/secret.txt"
        let typed = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "--text", "file \(installed) ", "read-file"], extraEnvironment: env)
        #expect(Scene.outcomes(typed.out)["read-file"] == "allowed: read 6 bytes of \(installed)", "\(typed.out) \(typed.err)")
    }

    /// A folder inside the bundle that anyone may write in is as good as the bundle being one: refused at
    /// launch (a review). The control: without it, the bundle starts.
    @Test func aBundleHoldingAFolderAnyoneMayWriteInIsRefused() throws {
        let root = "/var/tmp/kbhost-test-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let bundle = root + "/kb"
        try hostileBundle(at: bundle)
        let keyboard = LoadableKeyboard(manifest: try KeyboardManifest.load(contentsOf: bundle + "/Info.plist"),
                                        libraryPath: bundle + "/libHostileKeyboard.so")
        func start() throws(KeyboardFailure) {
            let s = try KeyboardSession(keyboard: keyboard, configuration: Fixtures.configuration, access: KeyboardAccess(home: root + "/home"))
            s.close()
        }
        try start()
        try FileManager.default.createDirectory(atPath: bundle + "/data/spool", withIntermediateDirectories: true)
        #expect(chmod(bundle + "/data/spool", 0o1777) == 0)
        let e = #expect(throws: KeyboardFailure.self) { try start() }
        #expect("\(e.map { String(describing: $0) } ?? "")".contains("holds '\(bundle)/data/spool', a folder anyone may write in"),
                "\(String(describing: e))")
    }

    /// The folders the host checked are the ones mounted: a folder on the way to the bundle swapped for
    /// a link after the check (here by a hook at that moment; an attacker races for it) makes the
    /// launch fail, never mounts what the link leads to. The control: the same path, read through the
    /// link by an unsandboxed process, is the victim's file.
    @Test func aFolderSwappedForALinkAfterTheCheckIsNeverMounted() throws {
        let root = "/var/tmp/kbhost-test-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fm = FileManager.default
        let kbs = root + "/kbs", victim = root + "/victim"
        try hostileBundle(at: kbs + "/Hostile")
        try hostileBundle(at: victim + "/Hostile")  // the victim's folder: its secret.txt is what the attack wants
        try "victim".write(toFile: victim + "/Hostile/secret.txt", atomically: false, encoding: .utf8)
        let plist = kbs + "/Hostile/Info.plist"
        let keyboard = LoadableKeyboard(manifest: try KeyboardManifest.load(contentsOf: plist), libraryPath: kbs + "/Hostile/libHostileKeyboard.so")
        let home = root + "/home"
        func session() throws(KeyboardFailure) -> KeyboardSession {
            try KeyboardSession(keyboard: keyboard, document: TextDocument(text: "file \(kbs)/Hostile/secret.txt "),
                                configuration: Fixtures.configuration, access: KeyboardAccess(home: home))
        }
        // Unswapped, it starts and reads its own file.
        do {
            let s = try session()
            defer { s.close() }
            try s.appear()
            try s.tap("read-file")
            #expect(Scene.outcomes(s.document.text)["read-file"] == "allowed: read 6 bytes of \(kbs)/Hostile/secret.txt")
        }
        // Swapped after the check: `kbs` becomes a link to the victim's folder.
        KeyboardAccess.afterSandboxCheck { bundle in
            guard bundle == kbs + "/Hostile" else { return }
            _ = rename(kbs, root + "/kbs-away")
            _ = symlink(victim, kbs)
        }
        defer { KeyboardAccess.afterSandboxCheck(nil) }
        let e = #expect(throws: KeyboardFailure.self) { let s = try session(); s.close() }
        #expect("\(e.map { String(describing: $0) } ?? "")".contains("reached through a symbolic link now"), "\(String(describing: e))")
        // The control: through the link the same path is the victim's file.
        #expect((try? String(contentsOfFile: kbs + "/Hostile/secret.txt", encoding: .utf8)) == "victim")
        #expect(fm.fileExists(atPath: root + "/kbs-away/Hostile/Info.plist"), "the swap happened")
    }

    /// Another folder renamed into the checked folder's place (no link anywhere: a rename within a folder
    /// its owner may write in) is refused too: the extension process mounts a folder only if it is the
    /// one the host checked (a review). The control: after the swap, the path holds the victim's file.
    @Test func anotherFolderRenamedIntoItsPlaceIsNeverMounted() throws {
        let root = "/var/tmp/kbhost-test-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let kbs = root + "/kbs"
        try hostileBundle(at: kbs + "/Hostile")
        try hostileBundle(at: kbs + "/mine")  // the victim's folder beside it
        try "victim".write(toFile: kbs + "/mine/secret.txt", atomically: false, encoding: .utf8)
        let keyboard = LoadableKeyboard(manifest: try KeyboardManifest.load(contentsOf: kbs + "/Hostile/Info.plist"),
                                        libraryPath: kbs + "/Hostile/libHostileKeyboard.so")
        KeyboardAccess.afterSandboxCheck { bundle in
            guard bundle == kbs + "/Hostile" else { return }
            _ = rename(kbs + "/Hostile", kbs + "/away")
            _ = rename(kbs + "/mine", kbs + "/Hostile")
        }
        defer { KeyboardAccess.afterSandboxCheck(nil) }
        let e = #expect(throws: KeyboardFailure.self) {
            let s = try KeyboardSession(keyboard: keyboard, document: TextDocument(text: "file \(kbs)/Hostile/secret.txt "),
                                        configuration: Fixtures.configuration, access: KeyboardAccess(home: root + "/home"))
            s.close()
        }
        #expect("\(e.map { String(describing: $0) } ?? "")".contains("is another folder than the one kbhost checked"), "\(String(describing: e))")
        #expect((try? String(contentsOfFile: kbs + "/Hostile/secret.txt", encoding: .utf8)) == "victim", "the control: the swap happened")
    }

    /// A bundle among kbhost's containers (a KBHOST_KEYBOARDS folder leading into them) would give the
    /// keyboard another keyboard's data, or a folder a keyboard fills: refused at launch. The control: the
    /// same bundle beside the home starts.
    @Test func aBundleAmongTheContainersIsRefused() throws {
        let root = "/var/tmp/kbhost-test-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let home = root + "/home", inside = home + "/Containers/Keyboards/com.example.other/kb", beside = root + "/kb"
        try hostileBundle(at: inside)
        try hostileBundle(at: beside)
        func start(_ bundle: String) throws(KeyboardFailure) {
            let keyboard = LoadableKeyboard(manifest: try! KeyboardManifest.load(contentsOf: bundle + "/Info.plist"),
                                            libraryPath: bundle + "/libHostileKeyboard.so")
            let s = try KeyboardSession(keyboard: keyboard, configuration: Fixtures.configuration, access: KeyboardAccess(home: home))
            s.close()
        }
        try start(beside)
        let e = #expect(throws: KeyboardFailure.self) { try start(inside) }
        #expect("\(e.map { String(describing: $0) } ?? "")".contains("is inside kbhost's containers"), "\(String(describing: e))")
    }

    /// A KBHOST_KEYBOARDS folder (another user's) linking to one of the user's installed keyboards took it
    /// over: it was listed from there, and `uninstall` and updates were refused (twenty-sixth red team). It
    /// stays installed, listed as such; the control: without the link, the same.
    @Test func aLinkToAnInstalledKeyboardDoesNotTakeItOver() throws {
        let w = try World()
        let bundle = try w.makeBundle(id: "dev.example.Mine", library: "libFaultKeyboards.so", principal: "CrashOnKey", name: "Mine")
        let env = ["KBHOST_HOME": w.home, "KBHOST_MANIFESTS": w.root + "/none"]
        #expect(try w.run(["install", bundle], extraEnvironment: env).status == 0)
        let theirs = w.root + "/theirs"
        try FileManager.default.createDirectory(atPath: theirs, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: theirs + "/x", withDestinationPath: w.home + "/Keyboards/dev.example.Mine")
        for keyboards in [w.root + "/empty", theirs] {  // the control, then the link
            let list = try w.run(["list", "--all", "--json"], extraEnvironment: env.merging(["KBHOST_KEYBOARDS": keyboards]) { $1 })
            #expect(list.out.contains("\"source\" : \"installed\"") || list.out.contains("\"source\":\"installed\""), "\(keyboards): \(list.out)")
        }
        let uninstall = try w.run(["uninstall", "dev.example.Mine"], extraEnvironment: env.merging(["KBHOST_KEYBOARDS": theirs]) { $1 })
        #expect(uninstall.status == 0, "\(uninstall.err)")
    }

    /// The user's own bundle in a shared folder others may write in (not sticky): they could swap it for a
    /// link to the user's ~/.ssh between discovery and launch, which passed every check as the user's own
    /// (twenty-sixth red team). Refused, naming the folder; the control: in a sticky folder (as /tmp), where
    /// others cannot move the user's entries, it starts.
    @Test func aBundleInAFolderOthersMayChangeIsRefused() throws {
        let root = "/var/tmp/kbhost-test-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let shared = root + "/share"
        try hostileBundle(at: shared + "/Hostile")
        let keyboard = LoadableKeyboard(manifest: try KeyboardManifest.load(contentsOf: shared + "/Hostile/Info.plist"),
                                        libraryPath: shared + "/Hostile/libHostileKeyboard.so")
        func start() throws(KeyboardFailure) {
            let s = try KeyboardSession(keyboard: keyboard, configuration: Fixtures.configuration, access: KeyboardAccess(home: root + "/home"))
            s.close()
        }
        #expect(chmod(shared, 0o1777) == 0)
        try start()
        #expect(chmod(shared, 0o777) == 0)
        let e = #expect(throws: KeyboardFailure.self) { try start() }
        #expect("\(e.map { String(describing: $0) } ?? "")".contains("is reached through '\(shared)', which anyone may change"), "\(String(describing: e))")
        // A folder of another user's on the way, however kept: its owner may put anything in place of what it holds (a link
        // to the user's installed keyboard there was re-pointed to ~/.ssh while attach ran: twenty-sixth red team).
        guard getuid() == 0 else { return }
        #expect(chmod(shared, 0o755) == 0 && chown(shared, 65534, 65534) == 0)
        let owned = #expect(throws: KeyboardFailure.self) { try start() }
        #expect("\(owned.map { String(describing: $0) } ?? "")".contains("is reached through '\(shared)', which its owner (user 65534) may change"),
                "\(String(describing: owned))")
    }

    /// A KBHOST_KEYBOARDS folder of another user's is not read at all (2,000 hard links to one 1 MB manifest
    /// there made every command take 95-130 s, each read before it was refused: twenty-sixth red team, S1):
    /// `list` says so once and lists nothing from it. The control: the same folder of the user's is read.
    @Test(.enabled(if: getuid() == 0, "makes a folder of another user's (root only)"))
    func anotherUsersKeyboardsFolderIsNotRead() throws {
        let w = try World()
        let folder = w.root + "/theirs"
        _ = try w.makeBundle(id: "dev.example.There", library: "libFaultKeyboards.so", principal: "CrashOnKey", name: "There",
                             at: folder + "/There")
        let env = ["KBHOST_HOME": w.home, "KBHOST_MANIFESTS": w.root + "/none", "KBHOST_KEYBOARDS": folder]
        let control = try w.run(["list", "--all"], extraEnvironment: env)
        #expect(control.out.contains("dev.example.There"), "the control: \(control.out) \(control.err)")
        #expect(chown(folder, 65534, 65534) == 0)
        let list = try w.run(["list", "--all"], extraEnvironment: env)
        #expect(!list.out.contains("dev.example.There"), "\(list.out)")
        #expect(list.err.contains("KBHOST_KEYBOARDS: '\(folder)' is user 65534's, not yours; no keyboard is read from it"), "\(list.err)")
    }
}
