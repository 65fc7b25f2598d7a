import Foundation
import KBHost
import Testing

/// A keyboard author outside this repository: `kbhost new`, build, install,
/// type through it, run the generated tests. Slow (real package builds), so
/// both languages share one suite run in parallel with the rest.
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

    /// kbhost with stdout and stderr apart: (status, stdout, stderr), in this test's home unless told.
    func kbhostApart(_ arguments: [String], environment: [String: String?] = [:]) throws -> (Int32, String, String) {
        var env: [String: String?] = ["KBHOST_HOME": home, "KBHOST_KEYBOARDS": nil, "KBHOST_PRODUCTS": nil, "KBHOST_MANIFESTS": nil]
        for (k, v) in environment { env[k] = v }
        return try Fixtures.runCLI(arguments, environment: env)
    }

    /// The sample keyboards' names (a keyboard's package once saw kbhost's own targets, and these
    /// clashed), names only a Swift identifier allows, and one ending like an export target.
    static let names = ["Calculator", "Kana", "NumberPad", "ScienceKeyboard", "my_keys", "Ünïcödé"]

    /// The one build folder every package of this test shares: the first one's, Science's own `.build`
    /// (so that `swift build` there without flags, as `kbhost dev` runs it, is the same build).
    var sharedBuild: String { root + "/Science/.build" }

    /// `swift build` or `swift test` in a keyboard's package, in the shared build folder: the SDK's
    /// modules are built once.
    func swift(_ command: String, in package: String) throws -> (Int32, String) {
        try run("swift", [command, "-j", "1", "--scratch-path", sharedBuild], in: package)
    }

    /// `kbhost new NAME` in the test's folder; but for Science, `.build` links to the shared build folder.
    func scaffold(_ name: String) throws -> String {
        let made = try kbhost("new", name, "--path", root + "/" + name)
        try #require(made.0 == 0, "kbhost new \(name): \(made.1)")
        let package = root + "/" + name
        if package + "/.build" != sharedBuild {
            try FileManager.default.createSymbolicLink(atPath: package + "/.build", withDestinationPath: sharedBuild)
        }
        return package
    }

    @Test(.timeLimit(.minutes(15)))
    func aSwiftKeyboardFromKbhostNewBuildsInstallsTypesAndPassesItsTests() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Science: the name of a sample keyboard, and of its module.
        let package = try scaffold("Science")
        for file in ["Package.swift", "Info.plist", "README.md", "Sources/Science/ScienceViewController.swift",
                     "Sources/ScienceKeyboard/Export.swift", "Tests/ScienceTests/ScienceTests.swift"] {
            #expect(FileManager.default.fileExists(atPath: package + "/" + file), "\(file)")
        }
        let manifest = try String(contentsOfFile: package + "/Package.swift", encoding: .utf8)
        #expect(manifest.contains(".package(path: \"\(Installation.sdkRoot())\")"), "the SDK package, not kbhost's: \(manifest)")
        #expect(manifest.contains("package: \"sdk\""))
        let build = try swift("build", in: package)
        try #require(build.0 == 0, "swift build: \(build.1)")
        let validate = try kbhost("validate", package)
        #expect(validate.0 == 0, "\(validate.1)")
        let install = try kbhost("install", package)
        #expect(install.0 == 0, "\(install.1)")
        #expect(FileManager.default.fileExists(atPath: home + "/Keyboards/com.example.science/libScienceKeyboard.so"))
        #expect(!FileManager.default.fileExists(atPath: home + "/Keyboards/com.example.science/Sources"), "only the bundle is installed")
        let typed = try kbhost("type", "--keyboard", "com.example.science", "shift", "H", "i", "space", "w", "o", "r", "l", "d")
        #expect(typed.0 == 0, "\(typed.1)")
        #expect(typed.1 == "Hi world\n")
        let test = try swift("test", in: package)
        #expect(test.0 == 0, "swift test: \(test.1)")
        #expect(test.1.contains("typesInItsOwnProcessWithinTheBudget() passed"))
        #expect(test.1.contains("shiftGivesOneCapital() passed"))

        // The edit loop: an edit and a build leave the installed copy stale, and kbhost says so.
        let code = package + "/Sources/Science/ScienceViewController.swift"
        let edited = try String(contentsOfFile: code, encoding: .utf8)
            .replacingOccurrences(of: "textDocumentProxy.insertText(key.label)", with: "textDocumentProxy.insertText(key.label + key.label)")
        try Data(edited.utf8).write(to: URL(fileURLWithPath: code))
        let rebuilt = try swift("build", in: package)
        try #require(rebuilt.0 == 0, "swift build: \(rebuilt.1)")
        let stale = try kbhostApart(["type", "--keyboard", "com.example.science", "h", "i"])
        #expect(stale.1 == "hi\n", "the installed copy still types: \(stale)")
        #expect(stale.2.contains("the installed copy of com.example.science is older than the library built in \(package)")
                    && stale.2.contains("kbhost install ."), "\(stale.2)")
        // KBHOST_KEYBOARDS takes the package folder itself (its .build), as validate and install do.
        let fresh = try kbhostApart(["type", "--keyboard", "com.example.science", "h", "i"],
                                    environment: ["KBHOST_HOME": root + "/fresh-home", "KBHOST_KEYBOARDS": package])
        #expect(fresh.0 == 0 && fresh.1 == "hhii\n" && fresh.2.isEmpty, "\(fresh)")
        // With the keyboard installed too, the folder comes first and the installed copy is skipped.
        let first = try kbhostApart(["type", "--keyboard", "com.example.science", "h", "i"], environment: ["KBHOST_KEYBOARDS": package])
        #expect(first.0 == 0 && first.1 == "hhii\n" && first.2.contains("skipped"), "\(first)")
        // kbhost dev: builds (nothing to do here), installs and types; then the warning is gone.
        let dev = try kbhostApart(["dev", "--path", package, "h", "i"])
        #expect(dev.0 == 0 && dev.1 == "hhii\n", "\(dev)")
        #expect(dev.2.contains("kbhost: swift build in \(package)") && dev.2.contains("kbhost: installed Science (com.example.science)")
                    && !dev.2.contains("kbhost: warning"), "\(dev.2)")
        let current = try kbhostApart(["type", "--keyboard", "com.example.science", "h", "i"])
        #expect(current.1 == "hhii\n" && current.2.isEmpty, "\(current)")

        // The other names: each package builds, and passes its tests (in process and in its real process).
        for name in Self.names {
            let package = try scaffold(name)
            let build = try swift("build", in: package)
            #expect(build.0 == 0, "\(name): swift build: \(build.1)")
            guard build.0 == 0 else { continue }
            let test = try swift("test", in: package)
            #expect(test.0 == 0 && test.1.contains("typesInItsOwnProcessWithinTheBudget() passed"), "\(name): swift test: \(test.1)")
        }
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
        #expect(bad.1.contains("a keyboard's name is a Swift identifier"))
        let keyword = try kbhost("new", "class")
        #expect(keyword.0 == 64 && keyword.1.contains("it is a Swift keyword"), "\(keyword.1)")
        let foundation = try kbhost("new", "Foundation")
        #expect(foundation.0 == 64 && foundation.1.contains("one of the Swift toolchain's modules"), "\(foundation.1)")
        let sdkFolder = try kbhost("new", "Sdk")
        #expect(sdkFolder.0 == 64 && sdkFolder.1.contains("SwiftPM would give it the SDK's identity"), "\(sdkFolder.1)")
        #expect(!FileManager.default.fileExists(atPath: root + "/Sdk"))
    }

    /// An empty folder that another user made, or may write in, is not the author's: while the
    /// template's files were written its owner put links in their places, and `new` wrote through
    /// them and made the file they led to 0755 (twenty-fourth red team, J). Refused now, nothing
    /// written; the control: an empty folder of the author's own takes the package.
    @Test func newRefusesAnEmptyFolderOthersMayWriteIn() throws {
        try FileManager.default.createDirectory(atPath: root + "/Shared", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(chmod(root + "/Shared", 0o777) == 0)
        let shared = try kbhost("new", "Shared", "--language", "c", "--path", root + "/Shared")
        #expect(shared.0 == 7 && shared.1.contains("is not a folder of your own that only you may write in"), "\(shared.1)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: root + "/Shared"))?.isEmpty == true, "nothing was written")
        try FileManager.default.createDirectory(atPath: root + "/Others", withIntermediateDirectories: true)
        #expect(chown(root + "/Others", 65534, 65534) == 0 || getuid() != 0)
        if getuid() == 0 {
            let others = try kbhost("new", "Others", "--language", "c", "--path", root + "/Others")
            #expect(others.0 == 7 && others.1.contains("is not a folder of your own"), "\(others.1)")
        }
        #expect(chmod(root + "/Shared", 0o755) == 0)
        let mine = try kbhost("new", "Shared", "--language", "c", "--path", root + "/Shared")
        #expect(mine.0 == 0, "the control: \(mine.1)")
        var st = stat()
        #expect(stat(root + "/Shared/test.sh", &st) == 0 && st.st_mode & 0o777 == 0o755, "its script is executable")
    }

    /// Every module of SDK/Package.swift is a name `kbhost new` refuses: a keyboard's package imports them.
    @Test func newRefusesTheSDKsModuleNames() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let manifest = try String(contentsOfFile: Installation.sdkRoot() + "/Package.swift", encoding: .utf8)
        let modules = manifest.split(separator: "\n").compactMap { line -> String? in
            guard line.contains(".target(name: \"") || line.contains(".systemLibrary(name: \"") else { return nil }
            return line.split(separator: "\"").dropFirst().first.map(String.init)
        }
        #expect(modules.count >= 10, "\(modules)")
        for module in modules {
            let made = try kbhost("new", module, "--path", root + "/" + module)
            #expect(made.0 == 64 && made.1.contains("one of the SDK's modules"), "\(module): \(made.1)")
        }
    }
}
