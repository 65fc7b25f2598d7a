import Foundation
import Testing

/// The wire's types stay inside the package (STYLE.md: "Wire types stay internal; map them to
/// public types at the boundary"): KBWire declares nothing public, no file re-exports it, and
/// both manifests build the SDK's modules with InternalImportsByDefault, so that a public API
/// showing a wire type is a compile error rather than a leak nobody sees.
@Suite struct WireAccessTests {
    /// The declarations of `text` (comments and strings blanked) that say `public` or `open`.
    static func publicLines(_ text: String) -> [Int] {
        let code = String(decoding: SourceScan.code(text), as: UTF8.self)
        return code.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            let words = line.split(whereSeparator: { !$0.isLetter && $0 != "_" })
            return words.contains("public") || words.contains("open") ? index + 1 : nil
        }
    }

    @Test func theWireDeclaresNothingPublic() {
        let files = SystemLayerTests.swiftFiles(under: "SDK/Sources/KBWire")
        #expect(files.count >= 5, "read \(files.count) of KBWire's files: the folder moved?")
        for file in files {
            for line in Self.publicLines(file.text) {
                Issue.record("\(file.path):\(line) is public: a wire type is `package`; map it to a public type where a public API needs it")
            }
        }
    }

    @Test func theRuleSeesAPublicDeclaration() {
        #expect(Self.publicLines("// public in a comment\nlet s = \"public\"\npublic struct Frame {}\n") == [3])
    }

    @Test func noFileReExportsTheWire() {
        let files = SystemLayerTests.readFolders.flatMap(SystemLayerTests.swiftFiles(under:))
        for file in files {
            for (index, line) in file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.hasSuffix("import KBWire") && (line.contains("public") || line.contains("@_exported")) {
                Issue.record("\(file.path):\(index + 1): `\(line)` hands the wire to every importer; use `package import KBWire`")
            }
        }
    }

    @Test(arguments: ["Package.swift", "SDK/Package.swift"])
    func theManifestMakesImportsInternal(_ manifest: String) throws {
        let text = try String(contentsOf: ArchitectureTests.root.appendingPathComponent(manifest), encoding: .utf8)
        #expect(text.contains(".enableUpcomingFeature(\"InternalImportsByDefault\")"),
                "\(manifest) does not build its modules with InternalImportsByDefault: a public API could show a wire type")
    }
}
