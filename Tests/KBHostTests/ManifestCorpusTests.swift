import Foundation
import KBHost
import Testing

/// The hostile manifests scripts/make-manifest-corpus.py writes (Fixtures/manifests), and
/// the ones too big to commit, made here: each is accepted or refused with a ManifestError,
/// as its name says — never a crash, a hang or a message the size of the file.
@Suite("Keyboard manifests: the hostile corpus")
struct ManifestCorpusTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/manifests").path

    /// Every manifest of the corpus (regressions/ included), by path relative to the folder.
    static func corpus() throws -> [(name: String, bytes: [UInt8])] {
        let names = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { $0.hasSuffix(".plist") }.sorted()
        return try names.map { name in (name, [UInt8](try #require(FileManager.default.contents(atPath: folder + "/" + name)))) }
    }

    enum Outcome: Equatable { case accepted, refused(String) }

    static func outcome(_ bytes: [UInt8], _ name: String) -> Outcome {
        do {
            _ = try KeyboardManifest.decode(bytes, path: "/corpus/" + name)
            return .accepted
        } catch {
            return .refused(error.description)
        }
    }

    @Test func theCorpusIsThereAndSmall() throws {
        let all = try Self.corpus()
        #expect(all.count >= 400, "run scripts/make-manifest-corpus.py")
        for prefix in ["accept-", "reject-", "any-"] {
            #expect(all.contains { ($0.name as NSString).lastPathComponent.hasPrefix(prefix) }, "\(prefix)")
        }
        #expect(all.reduce(0) { $0 + $1.bytes.count } < 1 << 20, "the committed corpus stays under 1 MB")
    }

    @Test func everyManifestIsAcceptedOrRefusedAsItsNameSays() throws {
        var counts: [String: Int] = [:]
        for (name, bytes) in try Self.corpus() {
            let outcome = Self.outcome(bytes, name)
            let expectation = (name as NSString).lastPathComponent.split(separator: "-").first.map(String.init) ?? ""
            switch (expectation, outcome) {
            case ("accept", .refused(let message)): Issue.record("\(name) was refused: \(message)")
            case ("reject", .accepted): Issue.record("\(name) was accepted")
            case (_, .refused(let message)):
                #expect(message.hasPrefix("/corpus/\(name): "), "\(name): names the file: \(message)")
                #expect(message.count < 400, "\(name): \(message.count) characters")
                #expect(!message.unicodeScalars.contains { TerminalText.isControl($0) }, "\(name): escaped")
            default: break
            }
            counts[outcome == .accepted ? "accepted" : "refused", default: 0] += 1
        }
        #expect(counts["accepted", default: 0] >= 10 && counts["refused", default: 0] >= 300, "\(counts)")
    }

    /// The registry reads manifests on every core: the strict readers (libxml2 among them) give
    /// the same answers from many threads at once as from one.
    @Test func readOnManyThreadsTheAnswersAreTheSame() throws {
        let all = try Self.corpus()
        let serial = all.map { Self.outcome($0.bytes, $0.name) }
        final class Slots: @unchecked Sendable {
            let lock = NSLock()
            var outcomes: [Outcome?]
            init(_ count: Int) { outcomes = Array(repeating: nil, count: count) }
        }
        let slots = Slots(all.count * 4)
        DispatchQueue.concurrentPerform(iterations: all.count * 4) { i in
            let o = Self.outcome(all[i % all.count].bytes, all[i % all.count].name)
            slots.lock.withLock { slots.outcomes[i] = o }
        }
        for (i, o) in slots.outcomes.enumerated() { #expect(o == serial[i % all.count], "\(all[i % all.count].name)") }
    }

    /// Too big to commit: the sizes the issue saw crash or drown kbhost.
    @Test func theBigOnesAreMadeHere() throws {
        let head = ManifestStrictnessTests.head
        let cases: [(String, [UInt8], String)] = [
            ("10,000 <array>s", Array((ManifestStrictnessTests.manifest(extra: "<key>Z</key>" + String(repeating: "<array>", count: 10_000)
                                       + String(repeating: "</array>", count: 10_000))).utf8), "more than 32 deep"),
            ("10,000 <dict>s, never closed", Array((head + "<plist><dict><key>a</key>" + String(repeating: "<dict><key>a</key>", count: 10_000)).utf8),
             "more than 32 deep"),
            ("1 MiB of <array>", Array((head + "<plist>" + String(repeating: "<array>", count: (1 << 20) / 7 - 40)).utf8), "more than 32 deep"),
            ("a 1 MB identifier", Array(ManifestStrictnessTests.manifest(identifier: String(repeating: "a", count: 1_000_000)).utf8),
             "longer than 65536 bytes"),
            ("2 MiB", Array(repeating: UInt8(ascii: " "), count: 2 << 20), "at most 1048576 bytes"),
            // Every path is walked and every group's folder made at each launch (twenty-fifth red team): a handful each.
            ("17 KBHostReadOnlyPaths", Array(ManifestStrictnessTests.manifest(reads: (1..<17).map { "<string>/usr/share/p\($0)</string>" }.joined()).utf8),
             "has 17 entries; a keyboard names at most 16"),
        ]
        for (what, bytes, expected) in cases {
            guard case .refused(let message) = Self.outcome(bytes, "big") else { Issue.record("\(what) was accepted"); continue }
            #expect(message.contains(expected), "\(what): \(message)")
            #expect(message.count < 400, "\(what): \(message.count) characters")
        }
        var b = BinaryPlist()
        var inner = b.array([])
        for _ in 1..<10_000 { inner = b.array([inner]) }
        guard case .refused(let message) = Self.outcome(b.manifestBytes([("Z", inner)]), "big") else {
            Issue.record("10,000 binary levels were accepted")
            return
        }
        #expect(message.contains("more than 32 deep"))
    }
}
