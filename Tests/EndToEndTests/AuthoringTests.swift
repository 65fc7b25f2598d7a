import Foundation
import KBHost
import Testing

/// A keyboard author outside this repository: `kbhost new`, build, install,
/// type through it, run the generated tests. Slow (two real package builds),
/// so both languages share one suite run in parallel with the rest.
@Suite("Writing a keyboard outside the repository")
struct AuthoringTests {
    let root = NSTemporaryDirectory() + "kbhost-author-" + UUID().uuidString
    var home: String { root + "/home" }
    var kbhostPath: String { Fixtures.installation.productsDirectory + "/kbhost" }

    /// Runs a program in a folder; (status, stdout + stderr).
    func run(_ program: String, _ arguments: [String], in folder: String, environment: [String: String] = [:]) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [program] + arguments
        p.currentDirectoryURL = URL(fileURLWithPath: folder)
        var env = ProcessInfo.processInfo.environment
        env["KBHOST_HOME"] = home
        env["KBHOST_PRODUCTS"] = nil
        env["KBHOST_MANIFESTS"] = nil
        env["PATH"] = Fixtures.installation.productsDirectory + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func kbhost(_ arguments: String..., in folder: String? = nil) throws -> (Int32, String) {
        try run(kbhostPath, arguments, in: folder ?? root)
    }

    @Test(.timeLimit(.minutes(8)))
    func aSwiftKeyboardFromKbhostNewBuildsInstallsTypesAndPassesItsTests() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let made = try kbhost("new", "Acme", "--path", root + "/Acme")
        #expect(made.0 == 0, "\(made.1)")
        let package = root + "/Acme"
        for file in ["Package.swift", "Info.plist", "README.md", "Sources/Acme/AcmeViewController.swift",
                     "Sources/AcmeKeyboard/Export.swift", "Tests/AcmeTests/AcmeTests.swift"] {
            #expect(FileManager.default.fileExists(atPath: package + "/" + file), "\(file)")
        }
        let build = try run("swift", ["build"], in: package)
        try #require(build.0 == 0, "swift build: \(build.1)")
        let validate = try kbhost("validate", package)
        #expect(validate.0 == 0, "\(validate.1)")
        let install = try kbhost("install", package)
        #expect(install.0 == 0, "\(install.1)")
        #expect(FileManager.default.fileExists(atPath: home + "/Keyboards/com.example.acme/libAcmeKeyboard.so"))
        #expect(!FileManager.default.fileExists(atPath: home + "/Keyboards/com.example.acme/Sources"), "only the bundle is installed")
        let typed = try kbhost("type", "--keyboard", "com.example.acme", "shift", "H", "i", "space", "w", "o", "r", "l", "d")
        #expect(typed.0 == 0, "\(typed.1)")
        #expect(typed.1 == "Hi world\n")
        let test = try run("swift", ["test"], in: package)
        #expect(test.0 == 0, "swift test: \(test.1)")
        #expect(test.1.contains("typesInItsOwnProcessWithinTheBudget() passed"))
        #expect(test.1.contains("shiftGivesOneCapital() passed"))
    }

    @Test func aCKeyboardFromKbhostNewBuildsWithTheInstalledHeaderAndTypes() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let made = try kbhost("new", "Beep", "--language", "c", "--path", root + "/Beep")
        #expect(made.0 == 0, "\(made.1)")
        let folder = root + "/Beep"
        let make = try run("make", ["KBHOST=\(kbhostPath)"], in: folder)
        try #require(make.0 == 0, "make: \(make.1)")
        #expect(make.1.contains("-I\(Installation.sdkRoot())/Sources/CKeyboardABI/include"), "the flags come from kbhost sdk --cflags")
        #expect(try kbhost("install", folder).0 == 0)
        let typed = try kbhost("type", "--keyboard", "com.example.beep", "h", "e", "l", "l", "o")
        #expect(typed.1 == "hello\n", "\(typed.1)")
        let test = try run("make", ["test", "KBHOST=\(kbhostPath)"], in: folder)
        #expect(test.0 == 0, "make test: \(test.1)")
        #expect(test.1.contains("ok: hello h"))
        // pkg-config finds the same header.
        let pc = try kbhost("sdk", "--pkg-config")
        try FileManager.default.createDirectory(atPath: root + "/pc", withIntermediateDirectories: true)
        try Data(pc.1.utf8).write(to: URL(fileURLWithPath: root + "/pc/kbhost-keyboard.pc"))
        let flags = try run("pkg-config", ["--cflags", "kbhost-keyboard"], in: root, environment: ["PKG_CONFIG_PATH": root + "/pc"])
        #expect(flags.1.trimmingCharacters(in: .whitespacesAndNewlines) == "-I\(Installation.sdkRoot())/Sources/CKeyboardABI/include")
    }

    @Test func newRefusesAFolderThatIsNotEmptyAndABadName() throws {
        try FileManager.default.createDirectory(atPath: root + "/Taken", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data("mine".utf8).write(to: URL(fileURLWithPath: root + "/Taken/notes"))
        let taken = try kbhost("new", "Taken", "--path", root + "/Taken")
        #expect(taken.0 == 7)
        #expect(taken.1.contains("already exists and is not empty; nothing was written"))
        #expect(try String(contentsOfFile: root + "/Taken/notes", encoding: .utf8) == "mine")
        let bad = try kbhost("new", "my-keys")
        #expect(bad.0 == 64)
        #expect(bad.1.contains("letters and digits, starting with a capital letter"))
    }
}
