import Glibc
import KBText
import KBWire
import Testing

/// The hostile wire frames scripts/make-wire-corpus.py writes (Fixtures/frames): each stream
/// is fed to a FrameReader and every frame to the decoder of its direction — the host's
/// (`WorkerMessage.decode`, for what a keyboard's process writes) or the worker's
/// (`HostMessage.decode`). Each ends as its name says: decoded, refused with the WireError
/// it names, or held as incomplete; a mutant either of the first two. Never a crash, and
/// within bounds of time and memory. (Frames too big to commit are made by LimitTests.)
@Suite("Wire frames: the hostile corpus")
struct WireFrameCorpusTests {
    static let folder: String = {
        let file = #filePath
        return String(file[..<file.lastIndex(of: "/")!]) + "/Fixtures/frames"
    }()

    struct Case {
        var path: String        // relative to the folder
        var bytes: [UInt8]
        var fromWorker: Bool    // decoded by the host (true) or by the worker
        /// For a libFuzzer input (regressions/): the read size its first byte picks, as scripts/fuzz-wire cuts it.
        var step: Int?
        var name: Substring { path[path.index(after: path.lastIndex(of: "/")!)...] }
    }

    /// The corpus: both folders and regressions/ (`worker-*` inputs of FuzzWorkerFrames, `host-*` of FuzzHostFrames).
    static func corpus() throws -> [Case] {
        var cases: [Case] = []
        for (sub, fromWorker) in [("from-worker", true), ("from-host", false)] {
            for name in try list(sub) where name.hasSuffix(".frame") {
                cases.append(Case(path: sub + "/" + name, bytes: try read(sub + "/" + name), fromWorker: fromWorker))
            }
        }
        for name in try list("regressions") where name.hasPrefix("worker-") || name.hasPrefix("host-") {
            var bytes = try read("regressions/" + name)
            guard !bytes.isEmpty else { continue }
            let first = bytes.removeFirst()
            cases.append(Case(path: "regressions/" + name, bytes: bytes, fromWorker: name.hasPrefix("worker-"),
                              step: first == 0 ? max(bytes.count, 1) : Int(first & 63) + 1))
        }
        return cases
    }

    static func list(_ sub: String) throws -> [String] {
        guard let dir = opendir(folder + "/" + sub) else { throw CorpusError("cannot open \(folder)/\(sub)") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            // The name in place (`entry.pointee.d_name` copies 256 bytes, past the record's end).
            let name = String(cString: UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                .assumingMemoryBound(to: CChar.self))
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    static func read(_ path: String) throws -> [UInt8] {
        guard let file = fopen(folder + "/" + path, "rb") else { throw CorpusError("cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        return bytes
    }

    struct CorpusError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    /// What became of a stream: the frames' outcomes in order, then how it ended.
    struct Outcome: Equatable {
        enum Frame: Equatable { case decoded, refused(WireError) }
        var frames: [Frame] = []
        var tooLarge: WireError?
        var pending = 0

        /// The refusal that ended the stream, if one did: the frame reader's, or the last frame's.
        var refusal: WireError? {
            if let tooLarge { return tooLarge }
            if case .refused(let e) = frames.last { return e }
            return nil
        }
    }

    /// Feeds the stream to a FrameReader `step` bytes at a time and decodes each frame as the host
    /// (ExtensionProcess) or the worker (KBWorker's Channel) does; checks what decodes.
    static func run(_ c: Case, step: Int) -> Outcome {
        var outcome = Outcome()
        var reader = FrameReader()
        var offset = 0
        reading: while offset < c.bytes.count {
            let n = min(step, c.bytes.count - offset)
            c.bytes[offset ..< offset + n].withUnsafeBytes { reader.append($0) }
            offset += n
            do {
                while let frame = try reader.nextFrame() { outcome.frames.append(decode(frame, c)) }
            } catch {
                outcome.tooLarge = error
                break reading
            }
        }
        outcome.pending = outcome.tooLarge == nil ? reader.pendingByteCount : 0  // after a refusal, nothing more is read
        return outcome
    }

    static func decode(_ frame: [UInt8], _ c: Case) -> Outcome.Frame {
        do {
            if c.fromWorker {
                let message = try WorkerMessage.decode(frame)
                #expect(message.encoded() == frame, "\(c.path): re-encodes to other bytes")
                let effects: [Effect]
                switch message {
                case .done(_, let list): effects = list
                case .loaded(let reply): effects = reply.effects
                case .hello, .failure: effects = []
                }
                #expect(effects.count <= WireLimits.maximumEffects, "\(c.path)")
                #expect(WireLimits.measure(effects).memory <= WireLimits.maximumEffectMemory, "\(c.path): over the budget")
            } else {
                let message = try HostMessage.decode(frame)
                #expect((try? HostMessage.decode(message.encoded())) == message, "\(c.path): does not decode again to itself")
            }
            return .decoded
        } catch {
            #expect(error.description.utf8.count < 400, "\(c.path): an error of \(error.description.utf8.count) bytes")
            return .refused(error)
        }
    }

    /// The case name of a WireError, as the corpus's file names spell it.
    static func kind(_ error: WireError) -> String {
        switch error {
        case .frameTooLarge: "frameTooLarge"
        case .truncated: "truncated"
        case .invalidTag: "invalidTag"
        case .invalidUTF8: "invalidUTF8"
        case .countTooLarge: "countTooLarge"
        case .trailingBytes: "trailingBytes"
        case .invalidValue: "invalidValue"
        case .overLimit: "overLimit"
        case .overBudget: "overBudget"
        }
    }

    @Test func theCorpusIsThereAndSmall() throws {
        let all = try Self.corpus()
        #expect(all.count >= 600, "run scripts/make-wire-corpus.py")
        for direction in [true, false] {
            for prefix in ["valid-", "refused-", "incomplete-", "any-"] {
                #expect(all.contains { $0.fromWorker == direction && $0.name.hasPrefix(prefix) }, "\(prefix) \(direction)")
            }
        }
        #expect(all.reduce(0) { $0 + $1.bytes.count } < 1 << 20, "the committed corpus stays under 1 MB")
    }

    @Test func everyStreamEndsAsItsNameSays() throws {
        var refusals: [String: Int] = [:]
        var peakBefore = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &peakBefore)
        let clock = ContinuousClock()
        for c in try Self.corpus() {
            let started = clock.now
            let outcome = Self.run(c, step: c.step ?? c.bytes.count)
            #expect(clock.now - started < .seconds(2), "\(c.path) took \(clock.now - started)")
            let name = c.name
            if name.hasPrefix("valid-") {
                #expect(!outcome.frames.isEmpty && outcome.frames.allSatisfy { $0 == .decoded } && outcome.tooLarge == nil
                        && outcome.pending == 0, "\(c.path): \(outcome)")
            } else if name.hasPrefix("refused-") {
                let wanted = name.split(separator: "-")[1]
                #expect(outcome.refusal.map(Self.kind) == String(wanted), "\(c.path): \(outcome)")
                #expect(outcome.frames.dropLast(outcome.tooLarge == nil ? 1 : 0).allSatisfy { $0 == .decoded }, "\(c.path): \(outcome)")
                if let refusal = outcome.refusal { refusals[Self.kind(refusal), default: 0] += 1 }
            } else if name.hasPrefix("incomplete-") {
                #expect(outcome.refusal == nil && outcome.pending > 0, "\(c.path): \(outcome)")
                #expect(outcome.frames.allSatisfy { $0 == .decoded }, "\(c.path): \(outcome)")
            } else {
                #expect(name.hasPrefix("any-") || c.step != nil, "\(c.path): a name the corpus does not use")
            }
        }
        // Every kind of refusal is in the corpus except the budget, which takes a frame too big to commit.
        #expect(Set(refusals.keys) == ["frameTooLarge", "truncated", "invalidTag", "invalidUTF8", "countTooLarge",
                                       "trailingBytes", "invalidValue", "overLimit"], "\(refusals)")
        var peakAfter = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &peakAfter)
        // ru_maxrss is in KiB; the corpus is under 1 MB, and nothing in it may make a decoder hold much more.
        #expect(peakAfter.ru_maxrss - peakBefore.ru_maxrss < 256 << 10, "peak RSS grew by \(peakAfter.ru_maxrss - peakBefore.ru_maxrss) KiB")
    }

    /// How the bytes arrive does not matter: one read, 7-byte reads and single bytes end the same.
    @Test func howTheBytesArriveChangesNothing() throws {
        for c in try Self.corpus() where c.bytes.count <= 4096 {
            let whole = Self.run(c, step: max(c.bytes.count, 1))
            #expect(Self.run(c, step: 7) == whole, "\(c.path)")
            #expect(Self.run(c, step: 1) == whole, "\(c.path)")
        }
    }

    /// The host and the worker agree on every valid frame of the other direction: what
    /// the generator (written apart from KBWire) encodes is what KBWire encodes.
    @Test func kbWireEncodesTheValidFramesByteForByte() throws {
        var checked = 0
        for c in try Self.corpus() where c.name.hasPrefix("valid-") && !c.name.contains("stream") && !c.name.contains("many") {
            var reader = FrameReader()
            c.bytes.withUnsafeBytes { reader.append($0) }
            guard let frame = try reader.nextFrame() else { Issue.record("\(c.path): no frame"); continue }
            if c.fromWorker {
                #expect(try WorkerMessage.decode(frame).encodedFrame() == c.bytes, "\(c.path)")
            } else if !c.name.contains("inside-cluster") {   // that window is normalized as it is decoded
                #expect(try HostMessage.decode(frame).encodedFrame() == c.bytes, "\(c.path)")
            }
            checked += 1
        }
        #expect(checked >= 75)
    }
}
