import Foundation
import Testing

/// ARCHITECTURE.md is a map newcomers trust: its module map must be Package.swift's
/// targets and dependencies exactly, and the arrows its rules forbid must not exist.
@Suite struct ArchitectureTests {
    /// The package root: this file is Tests/ArchitectureTests/ArchitectureTests.swift.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
    }

    /// The `import` lines of a target's Swift files, paths relative to the root.
    static func imports(of target: PackageText.Target) -> [ArchitectureCheck.Import] {
        let folder = root.appendingPathComponent(target.sourceFolder)
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var found: [ArchitectureCheck.Import] = []
        for case let url as URL in files where url.pathExtension == "swift" {
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            let relative = target.sourceFolder + url.path.dropFirst(folder.path.count)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if let module = ArchitectureCheck.importedModule(line) {
                    found.append(.init(file: relative, line: index + 1, module: module))
                }
            }
        }
        return found.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
    }

    static func record(_ problems: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for problem in problems { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
    }

    @Test func everyTargetHasItsLineInTheModuleMap() throws {
        let package = try PackageText(Self.read("Package.swift"))
        let map = ArchitectureText(try Self.read("ARCHITECTURE.md"))
        #expect(package.targets.count > 20, "Package.swift read as \(package.targets.count) targets: the reader is broken")
        #expect(!map.entries.isEmpty, "ARCHITECTURE.md has no ```text module-map block")
        Self.record(ArchitectureCheck.mapProblems(map, package))
    }

    @Test func theArrowsTheRulesForbidDoNotExist() throws {
        let package = try PackageText(Self.read("Package.swift"))
        let map = ArchitectureText(try Self.read("ARCHITECTURE.md"))
        #expect(!map.rules.isEmpty, "ARCHITECTURE.md has no ```text rules block")
        Self.record(ArchitectureCheck.ruleProblems(map, package, imports: Self.imports(of:)))
    }

    /// DESIGN's two arrows: nothing in the input manager imports the SDK; nothing
    /// in the worker imports Foundation. A rule may cover them through a subject
    /// that reaches the target (KBWorker's covers KBWire).
    @Test(arguments: [("KeyboardSDK", "KBHost"), ("Foundation", "KBWorker"), ("Foundation", "KBExtensionRuntime"),
                      ("Foundation", "KBText"), ("Foundation", "KBWire"), ("Foundation", "KBSystem"),
                      ("Foundation", "KeyboardSDK")])
    func theRulesSayWhatDesignRequires(forbidden: String, target: String) throws {
        let package = try PackageText(Self.read("Package.swift"))
        let map = ArchitectureText(try Self.read("ARCHITECTURE.md"))
        let forbiddenByARule = ArchitectureCheck.isForbidden(forbidden, to: target, map, package)
        #expect(forbiddenByARule,
                "ARCHITECTURE.md's rules must forbid \(forbidden) to \(target): add `\(target)  never reaches  \(forbidden)` to its ```text rules block, or the name to a rule whose subject reaches \(target)")
    }

    // MARK: The checks themselves, on small texts

    static let samplePackage = """
        // swift-tools-version: 6.0
        import PackageDescription
        let package = Package(
            name: "x",
            products: [.library(name: "A", targets: ["A"])],  // "targets" here is not the targets
            dependencies: [.package(url: "https://example.com/p", from: "1.0.0")],
            targets: [
                .target(name: "A"),
                // a comment with .target(name: "Nope"), and a comma
                .target(name: "B", dependencies: ["A", .product(name: "P", package: "p")], path: "Sources/Bee"),
                .executableTarget(name: "c",
                                  dependencies: [
                                      .target(name: "B"),  // why
                                      "A"
                                  ]),
                .systemLibrary(name: "CSys", path: "Sources/CSys", providers: [.apt(["x-dev"])]),
                .testTarget(name: "BTests", dependencies: ["B", "Lib"]),
            ]
        )
        """

    @Test func packageTextReadsTargetsAndTheirDependencies() throws {
        let package = try PackageText(Self.samplePackage)
        #expect(package.targets.map(\.name) == ["A", "B", "c", "CSys", "BTests"])
        #expect(package.targets.map(\.kind) == ["target", "target", "executableTarget", "systemLibrary", "testTarget"])
        #expect(package.targets[1].targets == ["A"] && package.targets[1].products == ["P"])
        #expect(package.targets[1].sourceFolder == "Sources/Bee")
        #expect(package.targets[2].targets == ["B", "A"] && package.targets[2].line == 11)
        #expect(package.targets[4].targets == ["B"] && package.targets[4].products == ["Lib"])
        #expect(package.targets[4].sourceFolder == "Tests/BTests")
    }

    @Test func aWrongLineIsNamedWithItsReplacement() throws {
        let package = try PackageText(Self.samplePackage)
        let map = ArchitectureText("""
            # Title
            ```text module-map
            A       pure        -
            B       system      A
            c       executable  B, A
            Gone    pure        -
            BTests  test        B + Lib
            ```
            """)
        let problems = ArchitectureCheck.mapProblems(map, package)
        #expect(problems.count == 3, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("ARCHITECTURE.md:4: the dependencies of `B` differ (Package.swift:10 also declares P)")
                                    && $0.hasSuffix("change the line to: `B                     system      A + P`") })
        #expect(problems.contains { $0.hasPrefix("ARCHITECTURE.md:6: Package.swift declares no target `Gone`") })
        #expect(problems.contains { $0.hasPrefix("ARCHITECTURE.md has no line for target `CSys` (Package.swift:16)") })
    }

    @Test func aForbiddenArrowIsNamedWithItsPath() throws {
        let package = try PackageText(Self.samplePackage)
        let map = ArchitectureText("""
            ```text module-map
            A       pure        -
            ```
            ```text rules
            c       never reaches  A, Foundation
            pure    never reaches  Glibc
            ```
            """)
        let problems = ArchitectureCheck.ruleProblems(map, package) { target in
            target.name == "A" ? [.init(file: "Sources/A/a.swift", line: 3, module: "Foundation")] : []
        }
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("ARCHITECTURE.md:5 says `c       never reaches  A, Foundation`, but c → A (Package.swift:11)") })
        #expect(problems.contains { $0.hasPrefix("Sources/A/a.swift:3 imports Foundation, but ARCHITECTURE.md:5") && $0.contains("(c → A)") })
    }

    @Test func importLinesNameTheirModule() {
        #expect(ArchitectureCheck.importedModule("import Foundation") == "Foundation")
        #expect(ArchitectureCheck.importedModule("  @preconcurrency public import struct Foundation.Date") == "Foundation")
        #expect(ArchitectureCheck.importedModule("@testable import KBHost") == "KBHost")
        #expect(ArchitectureCheck.importedModule("// import Foundation") == nil)
        #expect(ArchitectureCheck.importedModule("let imported = 1") == nil)
    }
}
