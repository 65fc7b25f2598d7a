import Foundation
import KBHost
import Testing

/// Commands that fail part way leave things as they found them, and say so in README's terms.
@Suite("Commands: nothing lost on failure, errors in the table's statuses")
struct CommandFailureTests {
    var real: [String: String] { ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""] }

    /// chattr +i: a folder even root cannot change (ext4, xfs, btrfs, tmpfs since Linux 6.0).
    static func immutable(_ path: String, _ on: Bool) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [on ? "+i" : "-i", path]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static let canMakeImmutable: Bool = {
        let folder = NSTemporaryDirectory() + "kbhost-chattr-" + UUID().uuidString
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil else { return false }
        defer { _ = immutable(folder, false); try? FileManager.default.removeItem(atPath: folder) }
        return immutable(folder, true) && !FileManager.default.createFile(atPath: folder + "/x", contents: nil)
    }()

    /// An installed keyboard, enabled, current, with open access and a protection exception.
    func installed(_ w: World) throws -> String {
        let bundle = try w.makeBundle(id: "dev.example.PadCopy", library: "libNumberPadKeyboard.so",
                                      principal: "NumberPadViewController", name: "Pad Copy",
                                      extra: ["NSExtension": ["NSExtensionPointIdentifier": "com.apple.keyboard-service",
                                                              "NSExtensionPrincipalClass": "NumberPadViewController",
                                                              "NSExtensionAttributes": ["IsASCIICapable": true, "RequestsOpenAccess": true]]])
        for arguments in [["install", bundle], ["enable", "dev.example.PadCopy"], ["set", "dev.example.PadCopy"],
                          ["access", "dev.example.PadCopy", "on"], ["protection", "dev.example.PadCopy", "allow", "landlock-scope"]] {
            let r = try w.run(arguments)
            #expect(r.status == 0, "\(arguments): \(r.err)")
        }
        return w.home + "/Keyboards/dev.example.PadCopy"
    }

    /// A bundle that cannot be removed (its folder immutable) is uninstalled not at all: the keyboard
    /// stays enabled, current, granted and whole. (It lost its grants and its library before.)
    @Test(.enabled(if: canMakeImmutable, "chattr +i is not possible here (not root, or a file system without it)"))
    func anUninstallThatCannotRemoveTheBundleChangesNothing() throws {
        let w = try World()
        let bundle = try installed(w)
        let before = try SettingsStore(directory: w.home).load()
        let files = try FileManager.default.contentsOfDirectory(atPath: bundle).sorted()
        #expect(Self.immutable(w.home + "/Keyboards", true))
        defer { _ = Self.immutable(w.home + "/Keyboards", false) }
        let r = try w.run(["uninstall", "dev.example.PadCopy"])
        #expect(r.status == 7, "refused: \(r.err)")
        #expect(r.err == "kbhost: error: cannot remove \(bundle): Operation not permitted; nothing was changed\n")
        #expect(r.out.isEmpty)
        let after = try SettingsStore(directory: w.home).load()
        #expect(after == before, "the settings are as they were")
        #expect(after.current == "dev.example.PadCopy" && after.fullAccess == ["dev.example.PadCopy"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundle).sorted() == files, "the bundle is whole")
        #expect(try w.run(["type", "--keyboard", "dev.example.PadCopy", "4", "2"]).out == "42\n", "and still types")
        // The control: the same uninstall once the folder may change.
        #expect(Self.immutable(w.home + "/Keyboards", false))
        #expect(try w.run(["uninstall", "dev.example.PadCopy"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: bundle))
    }

    /// Settings that cannot be written (corrupt) stop an uninstall before anything goes: exit 8,
    /// the bundle in place and nothing left beside it.
    @Test func anUninstallWhoseSettingsCannotBeWrittenKeepsTheBundle() throws {
        let w = try World()
        let bundle = try installed(w)
        try Data("not json".utf8).write(to: URL(fileURLWithPath: w.home + "/settings.json"))
        let r = try w.run(["uninstall", "dev.example.PadCopy"])
        #expect(r.status == 8, "\(r.err)")
        #expect(FileManager.default.fileExists(atPath: bundle + "/Info.plist"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: w.home + "/Keyboards") == ["dev.example.PadCopy"],
                "nothing moved aside is left")
        #expect(try w.run(["reset"]).status == 0)
        #expect(try w.run(["list", "--all", "--ids"]).out.contains("dev.example.PadCopy\n"), "still installed")
    }

    @Test func uninstallSaysWhatGoesAndWhatStays() throws {
        let help = try World().run(["uninstall", "--help"]).out.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for words in ["the bundle", "open-access grant", "its container", "App Groups", "nothing is lost on failure"] {
            #expect(help.lowercased().contains(words.lowercased()), "\(words): \(help)")
        }
    }

    /// A picture preview cannot write is bad usage, said before the keyboard runs, as for stress's --svg.
    @Test func previewChecksWhereItWritesFirst() throws {
        let w = try World()
        for (option, path, problem) in [("--svg", w.root + "/nowhere/k.svg", "the folder \(w.root)/nowhere does not exist"),
                                         ("--png", w.root, "it is a folder")] {
            let r = try w.run(["preview", "dev.kbhost.NumberPad", option, path], extraEnvironment: real)
            #expect(r.status == 64, "\(option): \(r.err)")
            #expect(r.err == "kbhost: error: cannot write \(option) \(path): \(problem)\n")
        }
        let written = try w.run(["preview", "dev.kbhost.NumberPad", "--svg", w.root + "/k.svg"], extraEnvironment: real)
        #expect(written.status == 0, "the control: \(written.err)")
        #expect(FileManager.default.fileExists(atPath: w.root + "/k.svg"))
    }

    /// A mistyped subcommand of a command with subcommands is named as one, with the closest
    /// (`ibus instal` was given to `ibus run` as an unexpected argument).
    @Test func aMistypedSubcommandOfASubcommandGetsTheClosest() throws {
        let w = try World()
        let r = try w.run(["ibus", "instal"])
        #expect(r.status == 64)
        #expect(r.err == "kbhost: error: no command 'kbhost ibus instal'; did you mean 'install'?\n")
        #expect(try w.run(["help", "ibus", "engine"]).err.contains("did you mean 'engines'?"))
        #expect(try w.run(["ibus", "engines", "--json"]).status == 0, "a real subcommand still runs")
        #expect(try w.run(["help", "ibus", "install"]).status == 0)
        #expect(try w.run(["version"]).err == "kbhost: error: no command 'kbhost version'; the version is `kbhost --version`\n")
    }
}

extension CommandFailureTests {
    /// README's budget example names a keyboard every installation has, and runs as shown.
    @Test func theReadmeBudgetExampleRunsAsShown() throws {
        let readme = try String(contentsOfFile: Golden.repository + "/README.md", encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let command = try #require(lines.first { $0.hasPrefix("$ kbhost type --keyboard") && $0.contains("--budget") })
        let start = try #require(lines.firstIndex(of: command))
        let shown = lines[(start + 1)...].prefix { $0 != "```" }.filter { !$0.isEmpty }.joined(separator: " ")
        let w = try World()
        let r = try w.run(Array(command.split(separator: " ").dropFirst(2).map(String.init)), extraEnvironment: real)
        #expect(r.status == 4, "\(command): \(r.err)")
        let upToTheFigures = try #require(shown.firstRange(of: "of 30.0 MiB: ")).upperBound
        #expect(r.err.hasPrefix(shown[..<upToTheFigures]), "\(r.err) against README's \(shown)")
    }
}

extension CommandFailureTests {
    /// An App Group no keyboard declares and nothing wrote is most likely mistyped: a warning with the
    /// closest declared group, and the command still runs (an app may write before its keyboard is installed).
    @Test func aMistypedAppGroupGetsTheClosestDeclaredOne() throws {
        let w = try World()
        let typo = try w.run(["defaults", "group.dev.kbhost.Hostle", "read"], extraEnvironment: real)
        #expect(typo.status == 0)
        #expect(typo.err == "kbhost: warning: no keyboard declares the App Group 'group.dev.kbhost.Hostle' and it has no data yet;"
                + " did you mean group.dev.kbhost.Hostile?\n")
        let declared = try w.run(["defaults", "group.dev.kbhost.Hostile", "read"], extraEnvironment: real)
        #expect(declared.status == 0 && declared.err.isEmpty, "the control, a declared group: \(declared.err)")
        let written = try w.run(["defaults", "group.com.example.app", "write", "k", "v"], extraEnvironment: real)
        #expect(written.status == 0 && written.err.contains("no keyboard declares"), "\(written.err)")
        let again = try w.run(["defaults", "group.com.example.app", "read", "k"], extraEnvironment: real)
        #expect(again.out == "v\n" && again.err.isEmpty, "once written the group is known: \(again.err)")
    }
}

extension CommandFailureTests {
    /// An install that cannot write keeps the installed copy and says why in the system's words
    /// (it was Foundation's "The operation could not be completed. You don’t have permission.").
    @Test(.enabled(if: canMakeImmutable, "chattr +i is not possible here (not root, or a file system without it)"))
    func anInstallThatCannotWriteKeepsTheInstalledCopy() throws {
        let w = try World()
        let bundle = try installed(w)
        let keyboards = w.home + "/Keyboards"
        #expect(Self.immutable(keyboards, true))
        defer { _ = Self.immutable(keyboards, false) }
        let r = try w.run(["install", bundle.replacingOccurrences(of: w.home + "/Keyboards", with: w.root + "/bundles")])
        #expect(r.status == 7, "\(r.err)")
        #expect(r.err.hasSuffix(": Operation not permitted; nothing was changed\n"), "\(r.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: keyboards) == ["dev.example.PadCopy"])
        #expect(try w.run(["type", "--keyboard", "dev.example.PadCopy", "4", "2"]).out == "42\n", "still installed")
        #expect(Self.immutable(keyboards, false))
        #expect(try w.run(["install", w.root + "/bundles/dev.example.PadCopy"]).status == 0, "the control")
    }
}
