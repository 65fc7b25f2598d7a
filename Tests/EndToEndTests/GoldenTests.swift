import Foundation
import KBHost
import KBSystem
import Testing

/// Golden tests: every command's human output, JSON, stderr and exit status, pinned in
/// Tests/EndToEndTests/Golden/NAME.txt, one file per case (the cases: GoldenCases+*.swift).
/// When a change of wording is meant: `KBHOST_UPDATE_GOLDEN=1 swift test --filter Golden`
/// rewrites them, and `git diff Tests/EndToEndTests/Golden` shows what changed.
@Suite("Golden: every command's output")
struct GoldenTests {
    static let cases = GoldenCase.manage + GoldenCase.typing + GoldenCase.tools
    static let all = cases + GoldenCase.kernel

    /// Whether this kernel has every protection, as the machine the kernel cases were written on
    /// (and open-access keyboards get a network of their own: `kbhost doctor` says so).
    static let everyProtection: Bool = {
        guard let world = try? GoldenWorld(), let (status, out, _) = try? world.run(["protection", "--json"], extra: [:]),
              status == 0 else { return false }
        return !out.contains("false") && UserNetwork.available
    }()

    @Test(arguments: cases) func command(_ c: GoldenCase) throws {
        try Golden.check(c)
    }

    @Test(.enabled(if: everyProtection, "this kernel lacks a protection the doctor and protection files were written with"),
          arguments: GoldenCase.kernel)
    func commandOnThisKernel(_ c: GoldenCase) throws {
        try Golden.check(c)
    }

    /// A file for every case and a case for every file (updating deletes the files of removed cases).
    @Test func everyFileHasACase() throws {
        let names = Self.all.map(\.name)
        #expect(Set(names).count == names.count, "two cases with one name")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: Golden.folder)) ?? []).filter { $0.hasSuffix(".txt") }
        let stale = files.filter { !names.contains(String($0.dropLast(4))) }
        if Golden.updating {
            for file in stale { try FileManager.default.removeItem(atPath: Golden.folder + "/" + file) }
        } else {
            #expect(stale.isEmpty, "golden files without a case (KBHOST_UPDATE_GOLDEN=1 removes them): \(stale)")
        }
    }

    /// The transcript's own parts: words split as a shell does, placeholders put back, variable parts replaced.
    @Test func theTranscriptIsReadable() throws {
        #expect(try Golden.words("KB=1 kbhost set 'number pad' \"a b\" x''") == ["KB=1", "kbhost", "set", "number pad", "a b", "x"])
        #expect(throws: GoldenError.self) { try Golden.words("kbhost set 'open") }
        let w = try GoldenWorld()
        #expect(w.normalize("\(w.root)/home and \(Golden.repository)/SDK", []) == "$ROOT/home and $REPO/SDK")
        #expect(Variable.pid[0].apply("\"pid\" : 4242,") == "\"pid\" : <pid>,")
        let t = try w.transcript(of: "kbhost budget 1", variable: [])
        #expect(t.hasPrefix("$ kbhost budget 1\n[stderr]\nkbhost: error: "), "\(t)")
        #expect(t.hasSuffix("[exit 64]\n"), "\(t)")
    }
}
