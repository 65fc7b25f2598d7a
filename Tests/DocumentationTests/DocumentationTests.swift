import Foundation
import Testing

/// The SDK's API reference (issue 16): every public symbol of the modules an author imports has
/// documentation — a doc comment, or a documentation extension in the module's DocC catalog (how
/// KeyboardTesting's two classes are documented while their files are being rewritten) — and
/// every extension in a catalog names a symbol that exists. scripts/make-docs builds the archive
/// (with docc's --warnings-as-errors, which checks the links in the articles); this reads the
/// symbol graphs the toolchain extracts from the modules this test target's build made.
@Suite("The SDK's API reference")
struct DocumentationTests {
    static let modules = ["KeyboardSDK", "KeyboardTesting", "KeyboardUIKitCompat"]
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test(arguments: modules)
    func everyPublicSymbolIsDocumented(module: String) throws {
        let graphs = try SymbolGraphs.extract(module: module)
        let extensions = try SymbolGraphs.documentationExtensions(
            catalog: "\(Self.repository)/SDK/Sources/\(module)/\(module).docc", module: module)
        let symbols = graphs.flatMap(\.symbols)
        #expect(symbols.count > 20, "\(module): the symbol graph has \(symbols.count) symbols")
        let missing = SymbolGraphs.undocumented(symbols, extensions: Set(extensions.keys))
        #expect(missing.isEmpty, """
            \(module): \(missing.count) public symbols without documentation; write a /// comment \
            (or, in SDK/Sources/\(module)/\(module).docc, a documentation extension):
            \(missing.joined(separator: "\n"))
            """)
        let paths = Set(symbols.map(\.path))
        let stale = Set(extensions.keys).subtracting(paths)
        #expect(stale.isEmpty, "\(module).docc documents symbols that do not exist: \(stale.sorted())")
        // An extension replaces the comment in the source: once the source has one, the
        // extension file is to go (DocC would show it and hide the comment).
        let twice = SymbolGraphs.documentedTwice(symbols, extensions: extensions)
        #expect(twice.isEmpty, """
            \(module): documented in the source and in the catalog; remove the catalog's file:
            \(twice.joined(separator: "\n"))
            """)
    }

    @Test func anUndocumentedSymbolIsNamedAndAnExtensionCountsAsDocumentation() throws {
        let json = """
            {"symbols": [
              {"kind": {"identifier": "swift.class"}, "identifier": {"precise": "s:1A"}, "pathComponents": ["Thing"],
               "docComment": {"lines": [{"text": "A thing."}]}},
              {"kind": {"identifier": "swift.property"}, "identifier": {"precise": "s:1B"}, "pathComponents": ["Thing", "bare"]},
              {"kind": {"identifier": "swift.property"}, "identifier": {"precise": "s:1C"}, "pathComponents": ["Thing", "elsewhere"]},
              {"kind": {"identifier": "swift.func.op"}, "identifier": {"precise": "s:1D::SYNTHESIZED::s:1A"}, "pathComponents": ["Thing", "!=(_:_:)"]}
            ]}
            """
        let graph = try SymbolGraphs.Graph(data: Data(json.utf8))
        #expect(SymbolGraphs.undocumented(graph.symbols, extensions: ["Thing/elsewhere"]) == ["Thing/bare (swift.property)"])
        #expect(SymbolGraphs.undocumented(graph.symbols, extensions: []).count == 2)
        #expect(SymbolGraphs.documentedTwice(graph.symbols, extensions: ["Thing": "Thing.md", "Thing/elsewhere": "Else.md"])
                == ["Thing.md (Thing)"])
    }
}

/// swift-symbolgraph-extract's output, the parts the test reads.
enum SymbolGraphs {
    struct Symbol {
        var path: String
        var kind: String
        var documented: Bool
        var synthesized: Bool
    }

    struct Graph {
        var symbols: [Symbol]

        init(data: Data) throws {
            let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let list = try #require(root["symbols"] as? [[String: Any]])
            symbols = list.map { s in
                let precise = (s["identifier"] as? [String: Any])?["precise"] as? String ?? ""
                let lines = ((s["docComment"] as? [String: Any])?["lines"] as? [[String: Any]]) ?? []
                let text = lines.compactMap { $0["text"] as? String }.joined().trimmingCharacters(in: .whitespaces)
                return Symbol(path: ((s["pathComponents"] as? [String]) ?? []).joined(separator: "/"),
                              kind: (s["kind"] as? [String: Any])?["identifier"] as? String ?? "",
                              documented: !text.isEmpty, synthesized: precise.contains("::SYNTHESIZED::"))
            }
        }
    }

    /// "Path (kind)" of each symbol that has neither a comment nor an extension.
    static func undocumented(_ symbols: [Symbol], extensions: Set<String>) -> [String] {
        symbols.filter { !$0.documented && !$0.synthesized && $0.kind != "swift.extension" && !extensions.contains($0.path) }
            .map { "\($0.path) (\($0.kind))" }.sorted()
    }

    /// "file (path)" of each extension whose symbol has a doc comment of its own.
    static func documentedTwice(_ symbols: [Symbol], extensions: [String: String]) -> [String] {
        symbols.filter { $0.documented && !$0.synthesized }.compactMap { s in extensions[s.path].map { "\($0) (\(s.path))" } }.sorted()
    }

    /// The build this test runs from: the folder of the test bundle, which holds Modules/.
    static var products: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        if dir.lastPathComponent == "MacOS" || dir.path.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir.path
    }

    /// The module's symbol graphs (its own file and one per module it extends).
    static func extract(module: String) throws -> [Graph] {
        let bin = products
        let sdk = DocumentationTests.repository + "/SDK/Sources"
        try #require(FileManager.default.fileExists(atPath: "\(bin)/Modules/\(module).swiftmodule"), "no \(module) module in \(bin)")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("symbols-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: out) }
        var arch = utsname()
        uname(&arch)
        let machine = withUnsafeBytes(of: &arch.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "symbolgraph-extract", "-module-name", module, "-target", "\(machine)-unknown-linux-gnu",
                             "-I", "\(bin)/Modules",
                             "-Xcc", "-fmodule-map-file=\(bin)/CKeyboardABI.build/module.modulemap",
                             "-Xcc", "-fmodule-map-file=\(bin)/CKBShims.build/module.modulemap",
                             "-Xcc", "-fmodule-map-file=\(sdk)/CFFI/module.modulemap",
                             "-I", "\(sdk)/CKeyboardABI/include", "-I", "\(sdk)/CKBShims/include",
                             "-minimum-access-level", "public", "-skip-synthesized-members", "-output-dir", out.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "swift symbolgraph-extract \(module): \(message)")
        return try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".symbols.json") }.map {
            try Graph(data: Data(contentsOf: out.appendingPathComponent($0)))
        }
    }

    /// The symbols a catalog's documentation extensions document, and their files: each .md whose
    /// first line is "# ``Module/Path``" (the module's own page, "# ``Module``", is not a symbol).
    static func documentationExtensions(catalog: String, module: String) throws -> [String: String] {
        guard let walker = FileManager.default.enumerator(atPath: catalog) else { return [:] }
        var result: [String: String] = [:]
        for case let file as String in walker where file.hasSuffix(".md") {
            let text = try String(contentsOfFile: catalog + "/" + file, encoding: .utf8)
            guard let first = text.split(separator: "\n").first, first.hasPrefix("# ``\(module)/"), first.hasSuffix("``") else { continue }
            result[String(first.dropFirst("# ``\(module)/".count).dropLast(2))] = "SDK/Sources/\(module)/\(module).docc/" + file
        }
        return result
    }
}

/// `kbhost sdk --docs`: the archive's path when it is made, how to make it when not.
@Suite("kbhost sdk --docs")
struct SDKDocsCommandTests {
    func kbhost(_ arguments: [String], docs: String) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SymbolGraphs.products + "/kbhost")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["KBHOST_DOCS": docs]) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, o, e)
    }

    @Test func printsTheArchiveOnceDoccHasWrittenIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let archive = folder + "/kbhost-sdk.doccarchive"
        let missing = try kbhost(["sdk", "--docs"], docs: archive)
        #expect(missing.status == 1 && missing.out.isEmpty)
        #expect(missing.err.contains("scripts/make-docs"), "says how to make it: \(missing.err)")
        try FileManager.default.createDirectory(atPath: archive + "/data/documentation", withIntermediateDirectories: true)
        let half = try kbhost(["sdk", "--docs"], docs: archive)
        #expect(half.status == 1, "a folder without the SDK's pages is not an archive")
        FileManager.default.createFile(atPath: archive + "/data/documentation/keyboardsdk.json", contents: Data("{}".utf8))
        let made = try kbhost(["sdk", "--docs"], docs: archive)
        #expect(made.status == 0 && made.out == archive + "\n", "\(made)")
    }
}
