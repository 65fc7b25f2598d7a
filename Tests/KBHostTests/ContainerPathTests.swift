import Foundation
import KBHost
import KBSystem
import Testing

/// A KBHOST_HOME/Containers with two groups: `group.victim`, whose defaults
/// hold a secret, and `group.evil`, whose container a keyboard with open
/// access can write — and plant symbolic links in.
final class PlantedContainers {
    let home = NSTemporaryDirectory() + "kbhost-paths-" + UUID().uuidString
    var containers: Containers { Containers(home: home) }
    var victim: GroupDefaultsStore { containers.groupDefaults("group.victim") }
    var evil: GroupDefaultsStore { containers.groupDefaults("group.evil") }
    /// A real folder outside every container, where nothing may appear.
    var outside: String { home + "/outside" }
    let fm = FileManager.default

    init() throws {
        try containers.makeRoot()
        try victim.set(.string("SECRET-42"), forKey: "token")
        try evil.set(.string("mine"), forKey: "k")
        try fm.createDirectory(atPath: outside, withIntermediateDirectories: true)
    }

    deinit { try? fm.removeItem(atPath: home) }

    func evilPath(_ relative: String) -> String { evil.containerPath + "/" + relative }

    /// Replaces `relative` in group.evil's container with a symbolic link to `target`.
    func plant(_ relative: String, pointingTo target: String) throws {
        try? fm.removeItem(atPath: evilPath(relative))
        try fm.createSymbolicLink(atPath: evilPath(relative), withDestinationPath: target)
    }

    /// Everything under a folder, with each file's bytes: to show nothing changed there.
    func snapshot(_ folder: String) throws -> [String: Data] {
        var all: [String: Data] = [:]
        for name in try fm.subpathsOfDirectory(atPath: folder) {
            all[name] = fm.contents(atPath: folder + "/" + name) ?? Data()
        }
        return all
    }

    var victimSnapshot: [String: Data] { get throws { try snapshot(victim.containerPath) } }
}

/// The host as a confused deputy: whatever a keyboard planted in a container it
/// can write, kbhost neither follows a link out of it nor creates, reads or
/// writes anything outside.
@Suite("Paths inside containers")
struct ContainerPathTests {
    func isLinkRefusal(_ error: any Error, at path: String, expected: PathRefusal.Kind) -> Bool {
        error as? PathRefusal == .symbolicLink(path: path, expected: expected)
            && "\(error)".contains("\(path): a symbolic link was found where kbhost expects a \(expected.rawValue)")
    }

    @Test func theRealLayoutWorks() throws {
        let p = try PlantedContainers()
        #expect(try p.victim.load() == ["token": .string("SECRET-42")])
        #expect(try p.evil.load() == ["k": .string("mine")])
        try p.evil.set(.integer(7), forKey: "n")
        #expect(try p.evil.load()["n"] == .integer(7))
        let manifest = KeyboardManifest(path: "/x/Info.plist", bundleIdentifier: "dev.example.Evil", displayName: "Evil",
                                        executable: "libEvil.so", principalClass: "Evil", applicationGroups: ["group.evil", "group.fresh"])
        try p.containers.prepare(for: manifest)
        #expect(p.fm.fileExists(atPath: p.containers.keyboard("dev.example.Evil") + "/tmp"))
        #expect(p.fm.fileExists(atPath: p.containers.groupDefaults("group.fresh").directory))
    }

    @Test func aLinkedLibraryIsNeitherReadNorWrittenThrough() throws {
        let p = try PlantedContainers()
        let before = try p.victimSnapshot
        try p.plant("Library", pointingTo: p.victim.containerPath + "/Library")
        let linked = p.evilPath("Library")
        #expect { try p.evil.load() } throws: { isLinkRefusal($0, at: linked, expected: .folder) }
        #expect { try p.evil.set(.string("x"), forKey: "token") } throws: { isLinkRefusal($0, at: linked, expected: .folder) }
        #expect(try p.victimSnapshot == before, "the other group's container is byte-identical")
        #expect(try p.victim.load() == ["token": .string("SECRET-42")])
    }

    @Test func aLinkedPreferencesFolderCreatesNothingOutside() throws {
        let p = try PlantedContainers()
        try p.plant("Library/Preferences", pointingTo: p.outside)
        let linked = p.evilPath("Library/Preferences")
        #expect { try p.evil.set(.string("x"), forKey: "k") } throws: { isLinkRefusal($0, at: linked, expected: .folder) }
        let manifest = KeyboardManifest(path: "/x/Info.plist", bundleIdentifier: "dev.example.Evil", displayName: "Evil",
                                        executable: "libEvil.so", principalClass: "Evil", applicationGroups: ["group.evil"])
        #expect { try p.containers.prepare(for: manifest) } throws: { isLinkRefusal($0, at: linked, expected: .folder) }
        #expect(try p.fm.contentsOfDirectory(atPath: p.outside).isEmpty)
    }

    @Test func aLinkedLibraryIsNotWhereContainersPrepareCreatesPreferences() throws {
        let p = try PlantedContainers()
        try p.plant("Library", pointingTo: p.outside)
        let manifest = KeyboardManifest(path: "/x/Info.plist", bundleIdentifier: "dev.example.Evil", displayName: "Evil",
                                        executable: "libEvil.so", principalClass: "Evil", applicationGroups: ["group.evil"])
        #expect { try p.containers.prepare(for: manifest) } throws: {
            isLinkRefusal($0, at: p.evilPath("Library"), expected: .folder)
        }
        #expect(try p.fm.contentsOfDirectory(atPath: p.outside).isEmpty, "no Preferences folder made outside")
    }

    @Test func aLinkedDefaultsFileDoesNotHandOverAnotherGroupsValues() throws {
        let p = try PlantedContainers()
        let before = try p.victimSnapshot
        try p.plant("Library/Preferences/group.evil.kbdefaults", pointingTo: p.victim.path)
        let linked = p.evil.path
        #expect { try p.evil.load() } throws: { isLinkRefusal($0, at: linked, expected: .file) }
        #expect { try p.evil.set(.string("x"), forKey: "y") } throws: { isLinkRefusal($0, at: linked, expected: .file) }
        #expect(try p.victimSnapshot == before)
        // The link is still a link: the victim's values were not copied into the keyboard's container.
        let attributes = try p.fm.attributesOfItem(atPath: linked)
        #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink)
    }

    @Test func aLinkedLockFileCreatesNothingOutside() throws {
        let p = try PlantedContainers()
        let target = p.outside + "/created-by-kbhost.lock"
        try p.plant("Library/Preferences/.group.evil.lock", pointingTo: target)
        #expect { try p.evil.set(.string("x"), forKey: "k") } throws: {
            isLinkRefusal($0, at: p.evil.directory + "/.group.evil.lock", expected: .file)
        }
        #expect(!p.fm.fileExists(atPath: target))
        #expect(try p.evil.load() == ["k": .string("mine")], "nothing written either")
    }

    @Test func aFIFOInPlaceOfTheDefaultsFileDoesNotHangTheHost() throws {
        let p = try PlantedContainers()
        try p.fm.removeItem(atPath: p.evil.path)
        #expect(mkfifo(p.evil.path, 0o600) == 0)
        #expect { try p.evil.load() } throws: {
            $0 as? PathRefusal == .wrongType(path: p.evil.path, expected: .file, found: "a FIFO")
        }
    }

    @Test func aLinkedKeyboardTmpStopsPrepare() throws {
        let p = try PlantedContainers()
        let own = p.containers.keyboard("dev.example.Evil")
        try p.fm.createDirectory(atPath: own, withIntermediateDirectories: true)
        try p.fm.createSymbolicLink(atPath: own + "/tmp", withDestinationPath: p.outside)
        let manifest = KeyboardManifest(path: "/x/Info.plist", bundleIdentifier: "dev.example.Evil", displayName: "Evil",
                                        executable: "libEvil.so", principalClass: "Evil")
        #expect { try p.containers.prepare(for: manifest) } throws: { isLinkRefusal($0, at: own + "/tmp", expected: .folder) }
    }

    /// The same refusals where openat2 is missing (ENOSYS): the walk with openat(O_NOFOLLOW).
    @Test(arguments: [false, true])
    func directoryRefusesLinksWithAndWithoutOpenat2(walkOnly: Bool) throws {
        let p = try PlantedContainers()
        let root = try #require(try Directory.open(trusted: p.containers.root, walkOnly: walkOnly))
        // Positive control: the real layout, read and written through descriptors.
        let real = try #require(try root.folder("Groups/group.victim/Library/Preferences"))
        #expect(try real.read("group.victim.kbdefaults").map(DefaultsCoding.decode) == ["token": .string("SECRET-42")])
        let made = try root.makeFolder("Groups/group.evil/Library/Caches/a")
        try made.write("f", [1, 2, 3])
        #expect(try made.read("f") == [1, 2, 3])
        #expect(try made.withLock("l") { 5 } == 5)
        #expect(try root.folder("Groups/group.none/Library") == nil)

        try p.plant("Library", pointingTo: p.outside)
        #expect { try root.folder("Groups/group.evil/Library/Preferences") } throws: {
            isLinkRefusal($0, at: p.containers.root + "/Groups/group.evil/Library", expected: .folder)
        }
        #expect { try root.makeFolder("Groups/group.evil/Library/Preferences") } throws: {
            isLinkRefusal($0, at: p.containers.root + "/Groups/group.evil/Library", expected: .folder)
        }
        #expect { try root.folder("Groups/group.evil/../group.victim") } throws: {
            $0 as? PathRefusal == .outside(path: p.containers.root, name: "..")
        }
        #expect { try root.folder("/etc") } throws: { $0 is PathRefusal }
        #expect(try p.fm.contentsOfDirectory(atPath: p.outside).isEmpty)
    }
}
