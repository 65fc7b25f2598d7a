import Foundation
import Glibc
import KBHost
import KBSystem
import KBText
import Synchronization
import Testing

/// The paths a keyboard's root is made of: its /tmp, and the system data its manifest names.
extension SandboxTests {
    /// The worker's own folder is not the keyboard's to read (fifth red team, R5-3): kbhost
    /// installed in a folder of one's own (~/bin) holds private files beside it, or KBHOST_HOME.
    /// A 0600 file beside kbhost-worker does not exist for a keyboard whose library is in its
    /// bundle; the control reads it with the same attempt from a keyboard without the sandbox.
    @Test func theWorkersFolderIsNotTheKeyboards() throws {
        let root = "/var/tmp/kbhost-test-" + UUID().uuidString  // not under /tmp, which the keyboard's root replaces
        defer { try? FileManager.default.removeItem(atPath: root) }
        let bin = root + "/bin", bundle = root + "/bundles/Hostile"
        for folder in [bin, bundle] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try FileManager.default.copyItem(atPath: Fixtures.installation.productsDirectory + "/kbhost-worker", toPath: bin + "/kbhost-worker")
        try FileManager.default.copyItem(atPath: Fixtures.installation.productsDirectory + "/libHostileKeyboard.so",
                                         toPath: bundle + "/libHostileKeyboard.so")
        try FileManager.default.copyItem(atPath: (Fixtures.installation.manifestsDirectory ?? "") + "/Hostile/Info.plist",
                                         toPath: bundle + "/Info.plist")
        let secret = bin + "/secret.txt"
        #expect(FileManager.default.createFile(atPath: secret, contents: Data("secret".utf8), attributes: [.posixPermissions: 0o600]))
        let w = try World()
        let env = ["KBHOST_HOME": root + "/home", "KBHOST_PRODUCTS": bin, "KBHOST_MANIFESTS": root + "/none",
                   "KBHOST_KEYBOARDS": root + "/bundles"]
        let r = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "--text", "file \(secret) ", "read-file", "own"], extraEnvironment: env)
        #expect(r.status == 0, "\(r.err)")
        let o = Scene.outcomes(r.out)
        #expect(o["own"]?.hasPrefix("allowed: wrote 6 bytes") == true, "the keyboard ran, sandboxed: \(r.out)")
        #expect(o["read-file"] == SandboxTests.notHere, "\(o["read-file"] ?? "nothing")")
        // The control: the file is there, and the same attempt without the sandbox reads it.
        let session = try KeyboardSession(keyboard: try Fixtures.sample("dev.kbhost.Hostile"), document: TextDocument(text: "file \(secret) "),
                                          configuration: Fixtures.configuration, access: KeyboardAccess(home: w.home, sandboxed: false))
        defer { session.close() }
        try session.appear()
        try session.tap("read-file")
        #expect(Scene.outcomes(session.document.text)["read-file"] == "allowed: read 6 bytes of \(secret)")
    }

    /// With KBHOST_HOME outside /tmp, the keyboard's /tmp is its container's
    /// tmp. A link swapped in for that folder, again and again while keyboards
    /// start (the race between the host's check and the worker's mount), never
    /// becomes its /tmp: the victim folder's file keeps its mode.
    @Test func itsTmpIsItsOwnAndALinkSwappedInNeverBecomesIt() throws {
        let root = "/var/tmp/kbhost-test-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let home = root + "/home", victim = root + "/victim"
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: victim + "/file.txt", contents: Data("secret".utf8), attributes: [.posixPermissions: 0o600])
        // Nothing the keyboard reads may live under /tmp (a checkout in a temporary folder would):
        // the worker and the keyboard are copied beside the home.
        let products = root + "/products"
        try FileManager.default.createDirectory(atPath: products + "/Manifests/Hostile", withIntermediateDirectories: true)
        for file in ["kbhost-worker", "libHostileKeyboard.so"] {
            try FileManager.default.copyItem(atPath: Fixtures.installation.productsDirectory + "/" + file, toPath: products + "/" + file)
        }
        try FileManager.default.copyItem(atPath: (Fixtures.installation.manifestsDirectory ?? "") + "/Hostile/Info.plist",
                                         toPath: products + "/Manifests/Hostile/Info.plist")
        let w = try World()
        let env = ["KBHOST_HOME": home, "KBHOST_PRODUCTS": products, "KBHOST_MANIFESTS": products + "/Manifests"]
        let first = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "tmp", "tmp-peek"], extraEnvironment: env)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("tmp: allowed: wrote 3 bytes to /tmp"), "\(first.out)")
        #expect(first.out.contains("tmp-peek: \(SandboxTests.notHere)"), "\(first.out)")
        // The positive control: a link to the victim, used as a folder, reaches its file.
        let container = home + "/Containers/Keyboards/dev.kbhost.Hostile"
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: victim)
        #expect(FileManager.default.isReadableFile(atPath: root + "/link/file.txt"))
        // The attack: swap the container's tmp and the link while keyboards start.
        let swapping = Mutex(true), swaps = Mutex(0)
        let swapper = Thread {
            while swapping.withLock({ $0 }) {
                if rename(container + "/tmp", root + "/stash") == 0 {
                    if rename(root + "/link", container + "/tmp") == 0 {
                        sched_yield()
                        _ = rename(container + "/tmp", root + "/link")
                        swaps.withLock { $0 += 1 }
                    }
                    _ = rename(root + "/stash", container + "/tmp")
                }
            }
        }
        swapper.start()
        var seen: [String] = []
        for _ in 0..<30 { seen.append(try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "tmp-peek"], extraEnvironment: env).out) }
        swapping.withLock { $0 = false }
        usleep(50_000)
        #expect(swaps.withLock { $0 } > 30, "the link really was swapped in")
        #expect(!seen.contains { $0.contains("tmp-peek: allowed") }, "no keyboard ever had the victim's folder as its /tmp")
    }

    /// KBHostReadOnlyPaths is checked where it leads, not as text: a link under
    /// /opt to a secret elsewhere, or a file under /etc only its owner may read,
    /// stops the keyboard instead of being mounted for it.
    @Test(.enabled(if: getuid() == 0, "needs to plant a link under /opt and a file under /etc (root; CI runs as root)"))
    func readOnlyPathsAreCheckedWhereTheyLead() throws {
        let w = try world()
        let tag = UUID().uuidString
        let secret = w.root + "/secret.txt"
        _ = FileManager.default.createFile(atPath: secret, contents: Data("secret".utf8))
        let link = "/opt/kbhost-test-\(tag)", hidden = "/etc/kbhost-test-\(tag)"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: secret)
        _ = FileManager.default.createFile(atPath: hidden, contents: Data("key".utf8), attributes: [.posixPermissions: 0o600])
        defer { unlink(link); unlink(hidden) }
        #expect(FileManager.default.contents(atPath: link) == Data("secret".utf8), "the link leads to the secret outside")
        for (path, why) in [(link, "which is not system data"), (hidden, "which not everyone may read")] {
            try w.makeBundle(id: "dev.example.Reader", library: "libNumberPadKeyboard.so", principal: "NumberPadViewController",
                             extra: ["KBHostReadOnlyPaths": [path]])
            let r = try w.run(["type", "--keyboard", "dev.example.Reader", "1"],
                              extraEnvironment: env.merging(["KBHOST_KEYBOARDS": w.root + "/bundles"]) { $1 })
            #expect(r.status == 4, "\(r.out)")
            #expect(r.err.contains("KBHostReadOnlyPaths") && r.err.contains(why), "\(r.err)")
        }
    }

    /// Fourth red team: a folder everyone may read is checked inside too. The keyboard runs as
    /// the user, so `/etc/default` gave a keyboard of root `/etc/default/cacerts` (0600), and an
    /// ordinary user's 0600 file in a folder under /opt was read the same way. A folder holding a
    /// file only its owner may read now stops the keyboard; the control, the same folder with the
    /// file readable by everyone, runs it.
    @Test(.enabled(if: getuid() == 0, "needs to make a folder under /opt (root; CI runs as root)"))
    func aReadOnlyFolderHoldingAPrivateFileIsRefused() throws {
        let w = try world()
        let folder = "/opt/kbhost-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key = folder + "/sub/key"
        _ = FileManager.default.createFile(atPath: key, contents: Data("key".utf8), attributes: [.posixPermissions: 0o644])
        try w.makeBundle(id: "dev.example.Reader", library: "libNumberPadKeyboard.so", principal: "NumberPadViewController",
                         extra: ["KBHostReadOnlyPaths": [folder]])
        let run = { try w.run(["type", "--keyboard", "dev.example.Reader", "1"],
                              extraEnvironment: env.merging(["KBHOST_KEYBOARDS": w.root + "/bundles"]) { $1 }) }
        let control = try run()
        #expect(control.status == 0 && control.out == "1\n", "the control: a folder whose files everyone may read: \(control.err)")
        chmod(key, 0o600)
        let r = try run()
        #expect(r.status == 4, "\(r.out)")
        #expect(r.err.contains("KBHostReadOnlyPaths") && r.err.contains("holds '\(key)', which not everyone may read"), "\(r.err)")
    }

    /// Fifth red team: only a read path holding KBHOST_HOME was refused, not one inside it. With
    /// KBHOST_HOME under /opt, a keyboard without open access listed another keyboard's container
    /// in KBHostReadOnlyPaths and read it (a container's files are everyone's to read: umask 022).
    /// The control: a folder under /opt outside KBHOST_HOME runs the keyboard.
    @Test(.enabled(if: getuid() == 0, "needs to make folders under /opt (root; CI runs as root)"))
    func aReadOnlyPathInsideTheSettingsFolderIsRefused() throws {
        let w = try world()
        let home = "/opt/kbhost-test-\(UUID().uuidString)", outside = "/opt/kbhost-test-\(UUID().uuidString)"
        defer { for folder in [home, outside] { try? FileManager.default.removeItem(atPath: folder) } }
        let victim = home + "/Containers/Keyboards/dev.example.Victim"
        for folder in [victim, outside] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            _ = FileManager.default.createFile(atPath: folder + "/notes", contents: Data("notes".utf8), attributes: [.posixPermissions: 0o644])
        }
        let run = { (path: String) in
            try w.makeBundle(id: "dev.example.Reader", library: "libNumberPadKeyboard.so", principal: "NumberPadViewController",
                             extra: ["KBHostReadOnlyPaths": [path]])
            return try w.run(["type", "--keyboard", "dev.example.Reader", "1"],
                             extraEnvironment: env.merging(["KBHOST_KEYBOARDS": w.root + "/bundles", "KBHOST_HOME": home]) { $1 })
        }
        let control = try run(outside)
        #expect(control.status == 0 && control.out == "1\n", "the control: a folder under /opt outside KBHOST_HOME: \(control.err)")
        let r = try run(victim)
        #expect(r.status == 4, "\(r.out)")
        #expect(r.err.contains("KBHostReadOnlyPaths: \(victim) is inside kbhost's settings folder \(home)"), "\(r.err)")
    }
}
