import Foundation
import Testing

/// KBSystem is the one place kbhost makes system calls (STYLE.md: one namespace of throwing
/// functions over private aliases, one EINTR-retrying helper); KBCore makes none, and reads
/// neither files nor clocks: what it needs is passed in.
@Suite struct SystemLayerTests {
    /// The folders whose Swift files these rules read, and the one allowed the raw calls. The
    /// worker's Swift (KBWorker, KBExtensionRuntime) links KBSystem and calls it like the rest; its
    /// sandbox's calls are C, in CKBSandbox.
    static let readFolders = ["Sources", "SDK/Sources"]
    static let systemLayer = "SDK/Sources/KBSystem/"
    static let core = "SDK/Sources/KBCore"

    /// Each Swift file under `folder`, as (path relative to the root, text).
    static func swiftFiles(under folder: String) -> [(path: String, text: String)] {
        let base = ArchitectureTests.root.appendingPathComponent(folder)
        guard let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var found: [(String, String)] = []
        for case let url as URL in files where url.pathExtension == "swift" {
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            found.append((folder + url.path.dropFirst(base.path.count), text))
        }
        return found.sorted { $0.0 < $1.0 }
    }

    @Test func noSwiftFileOutsideKBSystemMakesARawSystemCall() {
        let files = Self.readFolders.flatMap(Self.swiftFiles(under:))
        #expect(files.count > 100, "read \(files.count) Swift files: the folders moved?")
        for file in files where !file.path.hasPrefix(Self.systemLayer) {
            for call in SourceScan.rawCalls(of: SourceScan.systemCalls, in: file.text) {
                Issue.record("\(file.path):\(call.line) calls \(call.call)(…) itself: call KBSystem's Sys instead (add the call there, through Sys.check)")
            }
        }
    }

    @Test func theCoreImportsOnlyThePureModulesAndUsesNoClockFileOrEnvironment() {
        let files = Self.swiftFiles(under: Self.core)
        #expect(files.count >= 8, "read \(files.count) files of KBCore")
        for file in files {
            for (index, line) in file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if let module = ArchitectureCheck.importedModule(line), !["KBText", "KBWire"].contains(module) {
                    Issue.record("\(file.path):\(index + 1) imports \(module): the core is pure (KBText and KBWire only); do this in KBHost and pass the result in")
                }
            }
            for use in SourceScan.uses(of: SourceScan.worldAPIs, in: file.text) {
                Issue.record("\(file.path):\(use.line) uses \(use.name): the core reads no clock, file or environment; take it as a parameter")
            }
        }
    }

    @Test func theRulesForbidGlibcAndFoundationToTheCore() throws {
        let package = try PackageText(ArchitectureTests.read("Package.swift"))
        let map = ArchitectureText(try ArchitectureTests.read("ARCHITECTURE.md"))
        for forbidden in ["Glibc", "Foundation", "KBSystem"] {
            #expect(ArchitectureCheck.isForbidden(forbidden, to: "KBCore", map, package), "ARCHITECTURE.md's rules must forbid \(forbidden) to KBCore")
        }
    }

    // MARK: The scan itself, on small texts (the positive controls)

    @Test func rawCallsAreFoundAndWhatOnlyLooksLikeThemIsNot() {
        let text = #"""
            import Glibc
            func f(fd: Int32) {
                _ = Glibc.read(fd, nil, 0)
                kill(pid, SIGKILL)
                var st = stat(); _ = stat (path, &st)
                _ = dlopen("x", RTLD_NOW)
                setenv("HOME", "/", 1)
                reader.read()                      // a method
                w.write(to: &buffer)
                write(to: &buffer)                 // labelled: no C function is
                // kill(pid, SIGKILL) in a comment
                let s = "kill(pid, 9)"; let t = """
                  waitpid(pid, nil, 0)
                  """
                /* poll(&fds, 1, 0) /* nested */ */
                Sys.kill(pid, SIGKILL)
            }
            enum E { case kill(Int) }
            """#
        let calls = SourceScan.rawCalls(of: SourceScan.systemCalls, in: text)
        #expect(calls.map(\.call) == ["read", "kill", "stat", "dlopen", "setenv"], "\(calls)")
        #expect(calls.map(\.line) == [3, 4, 5, 6, 7])
    }

    @Test func aFileThatDeclaresTheNameCallsItsOwn() {
        let own = "func write(_ s: Settings) {}\nfunc g() { try write(settings); Glibc.write(1, p, 1) }"
        #expect(SourceScan.rawCalls(of: ["write"], in: own).map(\.line) == [2], "its own write is not a raw call; Glibc.write is")
    }

    @Test func worldAPIsAreFoundInCodeOnly() {
        let text = "let now = Date().timeIntervalSince1970 // Date\nlet s = \"FileManager\"\nlet c = ContinuousClock.now"
        #expect(SourceScan.uses(of: SourceScan.worldAPIs, in: text).map(\.name) == ["Date", "ContinuousClock"])
    }
}
