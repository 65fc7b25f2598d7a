import Foundation
import Glibc
import KBHost
import KBSystem
import KBText
import Synchronization
import Testing

/// The paths a keyboard's root is made of: its /tmp, and the system data its manifest names.
extension SandboxTests {
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
}
