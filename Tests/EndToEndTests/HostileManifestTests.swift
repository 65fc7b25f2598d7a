import Foundation
import KBHost
import Testing

/// Issue 14, manifests, through the real `kbhost`: nothing in a keyboards folder stops a
/// command; `doctor` lists what every command skips; a library is resolved inside its
/// bundle only; `validate` and `install` say what is wrong with a path.
@Suite("Hostile manifests in the keyboards folders")
struct HostileManifestTests {
    let fm = FileManager.default

    /// Runs kbhost, killing it after `seconds`: nil if it had to be killed (it hung).
    func run(_ w: World, _ arguments: [String], within seconds: Double = 30, environment: [String: String] = [:])
        throws -> (status: Int32, out: String, err: String, signalled: Bool)? {
        let process = Fixtures.kbhostProcess(arguments, environment: w.environment.merging(environment.mapValues { $0 }) { $1 })
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return (process.terminationStatus, String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                process.terminationReason == .uncaughtSignal)
    }

    /// A bundle in `folder` whose Info.plist is `text`, with an empty stand-in library.
    func addRaw(_ w: World, _ name: String, _ text: String, in folder: String) throws {
        try fm.createDirectory(atPath: folder + "/" + name, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name + "/Info.plist"))
        _ = fm.createFile(atPath: folder + "/" + name + "/libK.so", contents: Data())
    }

    static func manifest(_ id: String, extra: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>\(id)</string>
        <key>CFBundleExecutable</key><string>libK.so</string><key>NSExtension</key><dict>
        <key>NSExtensionPointIdentifier</key><string>com.apple.keyboard-service</string>
        <key>NSExtensionPrincipalClass</key><string>K</string></dict>\(extra)</dict></plist>

        """
    }

    /// What crashed (10,000 levels: SIGSEGV), failed (a duplicate: exit 9) or hung (a FIFO) every command.
    func plantEverything(in w: World) throws {
        let installed = w.home + "/Keyboards"
        try addRaw(w, "dev.example.Deep", Self.manifest("dev.example.Deep", extra: "<key>Z</key>" + String(repeating: "<array>", count: 10_000)
                                                        + String(repeating: "</array>", count: 10_000)), in: installed)
        try addRaw(w, "dev.example.DeepDict", Self.manifest("dev.example.DeepDict", extra: "<key>Z</key>"
                                                            + String(repeating: "<dict><key>a</key>", count: 10_000)), in: installed)
        try addRaw(w, "dev.example.Trailing", Self.manifest("dev.example.Trailing") + "garbage", in: installed)
        try addRaw(w, "alpha-again", Self.manifest("dev.example.Alpha"), in: installed)
        try fm.createDirectory(atPath: installed + "/dev.example.Fifo", withIntermediateDirectories: true)
        #expect(mkfifo(installed + "/dev.example.Fifo/Info.plist", 0o600) == 0)
    }

    @Test func nothingInTheKeyboardsFolderStopsACommand() throws {
        let w = try World()
        try w.standardKeyboards()
        try plantEverything(in: w)
        for arguments in [["list", "--all"], ["enable", "dev.example.Alpha"], ["next"], ["current"], ["budget"], ["list"]] {
            guard let r = try run(w, arguments) else { Issue.record("kbhost \(arguments) hung"); continue }
            #expect(!r.signalled && r.status == 0, "kbhost \(arguments): status \(r.status)\n\(r.err)")
            for name in ["dev.example.Deep/", "dev.example.DeepDict/", "dev.example.Trailing/", "alpha-again/", "dev.example.Fifo/"] {
                #expect(r.err.contains("kbhost: warning: skipped \(w.home)/Keyboards/\(name)Info.plist: "), "\(arguments): \(name)\n\(r.err)")
            }
        }
        #expect(try run(w, ["current"])?.out == "dev.example.Alpha\n")
        let validate = try #require(try run(w, ["validate", w.home + "/Keyboards/dev.example.Deep"]))
        #expect(!validate.signalled && validate.status == 10)
        #expect(validate.out.contains("dev.example.Deep/Info.plist: Z[0]"))
        #expect(validate.out.contains("nests dictionaries and arrays more than 32 deep"))
    }

    /// The same files crashed a running `kbhost serve` once a command told it to re-read.
    @Test func aRunningDaemonReadsThemAndStaysUp() throws {
        let w = try World()
        try w.standardKeyboards()
        let runtime = ["KBHOST_RUNTIME_DIR": w.root + "/run"]
        #expect(try w.run(["enable", "dev.example.Alpha"], extraEnvironment: runtime).status == 0)
        let daemon = Fixtures.kbhostProcess(["serve"], environment: w.environment.merging(runtime.mapValues { $0 }) { $1 })
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer { daemon.terminate(); daemon.waitUntilExit() }
        var waited = 0
        while !fm.fileExists(atPath: w.root + "/run/control") && waited < 500 { usleep(10_000); waited += 1 }
        try plantEverything(in: w)
        let next = try #require(try run(w, ["next"], environment: runtime))
        #expect(next.status == 0 && next.out == "dev.example.Alpha\n", "\(next.err)")
        usleep(300_000)
        #expect(daemon.isRunning, "the daemon re-read the keyboards and is still up")
        #expect(try run(w, ["next"], environment: runtime)?.out == "dev.kbhost.System\n")
        #expect(daemon.isRunning)
    }

    /// `type` crashed on the same files, and one identifier twice under KBHOST_KEYBOARDS made every
    /// command fail (exit 9), even ones that never touch that keyboard: typing through another
    /// keyboard now works, with each bad or conflicting manifest named in a warning.
    @Test func typeThroughAnotherKeyboardWithHostileAndDuplicateManifestsAround() throws {
        let w = try World()
        try plantEverything(in: w)
        let folder = w.root + "/bundles"
        try w.makeBundle(id: "dev.example.Pad", library: "libNumberPadKeyboard.so", principal: "NumberPadViewController")
        try addRaw(w, "twin-one", Self.manifest("dev.example.Twin"), in: folder)
        try addRaw(w, "twin-two", Self.manifest("dev.example.Twin"), in: folder)
        let r = try #require(try run(w, ["type", "--keyboard", "dev.example.Pad", "4", "2"], environment: ["KBHOST_KEYBOARDS": folder]))
        #expect(!r.signalled && r.status == 0 && r.out == "42\n", "status \(r.status): \(r.out)\n\(r.err)")
        #expect(r.err.contains("/Info.plist: CFBundleIdentifier dev.example.Twin is already the identifier of \(folder)/twin-"), "\(r.err)")
        for name in ["dev.example.Deep/", "dev.example.DeepDict/", "dev.example.Trailing/", "dev.example.Fifo/"] {
            #expect(r.err.contains("kbhost: warning: skipped \(w.home)/Keyboards/\(name)Info.plist: "), "\(name)\n\(r.err)")
        }
    }

    @Test func doctorListsWhatEveryCommandSkips() throws {
        let w = try World()
        try plantEverything(in: w)
        try addRaw(w, "pad-again", Self.manifest("dev.kbhost.NumberPad"), in: w.home + "/Keyboards")
        let real = ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!]
        let r = try #require(try run(w, ["doctor"], environment: real))
        #expect(r.status == 0, "skipped manifests do not make the machine unfit:\n\(r.out)")
        #expect(r.out.contains("manifest(s) skipped"))
        #expect(r.out.contains("! skipped: \(w.home)/Keyboards/pad-again/Info.plist: CFBundleIdentifier dev.kbhost.NumberPad is already the identifier of "
                               + "\(Fixtures.installation.manifestsDirectory!)/NumberPad/Info.plist (bundled)"), "\(r.out)")
        #expect(r.out.contains("! skipped: \(w.home)/Keyboards/dev.example.Deep/Info.plist: Z[0]"), "\(r.out)")
        #expect(r.out.contains("! skipped: \(w.home)/Keyboards/dev.example.Fifo/Info.plist: is a FIFO, not a file"), "\(r.out)")
        let json = try #require(try run(w, ["doctor", "--json"], environment: real))
        #expect(json.out.contains("\"warning\" : true"))
    }

    /// A bundle of the NumberPad plugin whose executable is `lib/…`, with `lib` a link to `target`.
    func linkedBundle(_ w: World, id: String, linkingTo target: String) throws -> String {
        let bundle = try w.makeBundle(id: id, library: "libNumberPadKeyboard.so", principal: "NumberPadViewController",
                                      extra: ["CFBundleExecutable": "lib/libNumberPadKeyboard.so"])
        try fm.createDirectory(atPath: target, withIntermediateDirectories: true)
        try? fm.copyItem(atPath: bundle + "/libNumberPadKeyboard.so", toPath: target + "/libNumberPadKeyboard.so")
        try fm.createSymbolicLink(atPath: bundle + "/lib", withDestinationPath: target)
        return bundle
    }

    /// It loaded, and the sandbox then granted read access to the link's target.
    @Test func anExecutableThroughALinkedFolderOutsideTheBundleIsRefused() throws {
        let w = try World()
        let outside = w.root + "/outside"
        let bundle = try linkedBundle(w, id: "dev.example.Linked", linkingTo: outside)
        let validate = try w.kbhost("validate", bundle)
        #expect(validate.status == 10, "\(validate.out)")
        #expect(validate.out.contains("\(bundle)/Info.plist: CFBundleExecutable names 'lib/libNumberPadKeyboard.so', which leads outside the bundle "
                                      + "(through a symbolic link, to '\(outside)/libNumberPadKeyboard.so')"), "\(validate.out)")
        let install = try w.kbhost("install", bundle)
        #expect(install.status == 10 && install.err.contains("leads outside the bundle"), "\(install.err)")
        let typed = try w.run(["type", "--keyboard", "dev.example.Linked", "1"], extraEnvironment: ["KBHOST_KEYBOARDS": w.root + "/bundles"])
        #expect(typed.status == 3, "not a keyboard: \(typed.err)")
        #expect(typed.err.contains("warning: skipped \(bundle)/Info.plist: CFBundleExecutable names"))
    }

    @Test func aLinkedFolderInsideTheBundleStillLoads() throws {
        let w = try World()
        let bundle = try linkedBundle(w, id: "dev.example.Inside", linkingTo: w.root + "/bundles/dev.example.Inside/real")
        let validate = try w.kbhost("validate", bundle)
        #expect(validate.status == 0, "\(validate.out)")
        let typed = try w.run(["type", "--keyboard", "dev.example.Inside", "4", "2"], extraEnvironment: ["KBHOST_KEYBOARDS": w.root + "/bundles"])
        #expect(typed.out == "42\n", "\(typed.err)")
    }

    @Test func validateAndInstallSayWhatIsWrongWithAPath() throws {
        let w = try World()
        let passwd = try w.kbhost("validate", "/etc/passwd")
        #expect(passwd.status == 10)
        #expect(passwd.out == "✗ /etc/passwd: is neither an XML nor a binary property list\n")
        let folder = w.root + "/empty"
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(try w.kbhost("validate", folder).out.contains("\(folder): is a folder without an Info.plist"))
        #expect(try w.kbhost("validate", w.root + "/nothing").out == "✗ \(w.root)/nothing: does not exist\n")
        let install = try w.kbhost("install", "/etc/passwd")
        #expect(install.status == 10)
        #expect(install.err.contains("/etc/passwd: is a file, not a folder"), "\(install.err)")
    }

    @Test func anIdentifierOver255CharactersFailsValidateWithAShortMessage() throws {
        let w = try World()
        let id = String(repeating: "a", count: 127) + "." + String(repeating: "b", count: 128)
        let bundle = try w.makeBundle(id: id, library: "libNumberPadKeyboard.so", principal: "NumberPadViewController", at: w.root + "/long")
        let r = try w.kbhost("validate", bundle)
        #expect(r.status == 10)
        #expect(r.out.contains("is longer than 255 characters") && r.out.count < 400, "\(r.out)")
    }
}
