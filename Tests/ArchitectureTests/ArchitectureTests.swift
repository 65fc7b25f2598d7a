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

    /// What a keyboard's package depends on (`kbhost new`) is SDK/Package.swift alone: no sample
    /// keyboard, no executable, no remote package in its graph, so any name but its modules' is free.
    @Test func theSDKPackageHoldsTheSDKAndWhatItNeedsOnly() throws {
        let sdk = try PackageText(Self.read("SDK/Package.swift"), file: "SDK/Package.swift")
        #expect(sdk.packageDependencies == 0, "SDK/Package.swift depends on other packages: they would be in every keyboard's graph")
        let names = Set(sdk.targets.map(\.name))
        for target in sdk.targets {
            #expect(target.sourceFolder.hasPrefix("Sources/"), "\(target.location): \(target.name) is not in SDK/Sources")
            #expect(!["executableTarget", "testTarget"].contains(target.kind), "\(target.location): \(target.name) belongs in ../Package.swift")
            #expect(target.products.isEmpty, "\(target.location): \(target.name) depends on products \(target.products)")
        }
        for product in sdk.products {
            #expect(!product.targets.isEmpty && names.isSuperset(of: product.targets), "SDK/Package.swift: the product \(product.name)")
        }
        #expect(Set(sdk.products.map(\.name)).isSuperset(of: ["KeyboardSDK", "KeyboardTesting"]))
    }

    /// kbhost's package builds the SDK's folders as its own targets: each must be declared there
    /// as in SDK/Package.swift (same kind, dependencies and folder), and its worker modules alike.
    @Test func theSDKsModulesAreDeclaredAlikeInBothManifests() throws {
        let sdkText = try Self.read("SDK/Package.swift")
        let sdk = try PackageText(sdkText, file: "SDK/Package.swift")
        let mainText = try Self.read("Package.swift")
        let main = try PackageText(mainText)
        let mainByName = Dictionary(main.targets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for target in sdk.targets {
            guard let twin = mainByName[target.name] else {
                Issue.record("\(target.location): Package.swift declares no target \(target.name); add it with path: \"SDK/\(target.sourceFolder)\"")
                continue
            }
            #expect(twin.kind == target.kind && twin.targets == target.targets && twin.products == target.products
                        && twin.sourceFolder == "SDK/" + target.sourceFolder,
                    "\(twin.location) declares \(twin.name) unlike \(target.location): make the two declarations alike (kind, dependencies in order, path SDK/…)")
        }
        let sdkNames = Set(sdk.targets.map(\.name))
        for target in main.targets where target.sourceFolder.hasPrefix("SDK/") && !sdkNames.contains(target.name) {
            Issue.record("\(target.location): \(target.name) is in SDK/ but SDK/Package.swift does not declare it")
        }
        let lean = Self.stringSet("workerModules", in: sdkText)
        let mainLean = Self.stringSet("workerModules", in: mainText).intersection(sdkNames)
        #expect(lean == mainLean, "the worker's lean modules differ: SDK/Package.swift \(lean.sorted()), Package.swift \(mainLean.sorted())")
        #expect(!lean.isEmpty)
    }

    /// The string literals of `let NAME: Set<String> = [...]` in a manifest.
    static func stringSet(_ name: String, in text: String) -> Set<String> {
        guard let start = text.range(of: "let \(name)"), let open = text[start.upperBound...].firstIndex(of: "["),
              let close = text[open...].firstIndex(of: "]") else { return [] }
        let body = text[open..<close]
        return Set(body.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
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
