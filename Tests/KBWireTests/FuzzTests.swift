import KBText
import KBWire
import Testing

/// Deterministic fuzzing: whatever the bytes, decoding either succeeds or
/// throws a WireError; it never traps, hangs or allocates by a claimed count.
@Suite("Decoder fuzzing")
struct FuzzTests {
    /// Decodes as both message types. Whatever decodes must re-encode to
    /// something that decodes to the same message.
    func decodeBoth(_ bytes: [UInt8]) -> (host: Bool, worker: Bool) {
        var ok = (host: false, worker: false)
        if let m = try? HostMessage.decode(bytes) {
            ok.host = true
            #expect((try? HostMessage.decode(m.encoded())) == m, "host message from \(bytes) does not re-decode")
        }
        if let m = try? WorkerMessage.decode(bytes) {
            ok.worker = true
            #expect((try? WorkerMessage.decode(m.encoded())) == m, "worker message from \(bytes) does not re-decode")
        }
        return ok
    }

    @Test("Random byte arrays never crash either decoder", arguments: [1, 2, 3, 4] as [UInt64])
    func randomBytes(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        for _ in 0..<1500 {
            let length = Int.random(in: 0...64, using: &rng)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Bias the first byte toward valid tags, and small counts, to reach deeper code.
            if !bytes.isEmpty && Bool.random(using: &rng) { bytes[0] = UInt8.random(in: 1...4, using: &rng) }
            if bytes.count > 12 && Bool.random(using: &rng) {
                for i in 9..<13 { bytes[i] = i == 9 ? UInt8.random(in: 0...3, using: &rng) : 0 }
            }
            _ = decodeBoth(bytes)
        }
    }

    @Test("Short inputs: every one- and two-byte array decodes or throws")
    func allShortInputs() {
        var shutdowns = 0
        for a in 0...255 {
            if decodeBoth([UInt8(a)]).host { shutdowns += 1 }
            for b in 0...255 { _ = decodeBoth([UInt8(a), UInt8(b)]) }
        }
        #expect(shutdowns == 1)   // only [4] is a whole message in one byte
    }

    @Test("Mutated valid messages never crash either decoder", arguments: [10, 20, 30] as [UInt64])
    func mutatedMessages(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let corpus = Samples.hostMessages.map { $0.encoded() } + Samples.workerMessages.map { $0.encoded() }
        for _ in 0..<3000 {
            var bytes = corpus.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                guard !bytes.isEmpty else { break }
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: bytes[i] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
                case 1: bytes[i] = UInt8.random(in: 0...255, using: &rng)
                case 2: bytes.remove(at: i)
                case 3: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: i)
                default: bytes.removeSubrange(i...)
                }
            }
            _ = decodeBoth(bytes)
        }
    }

    @Test("Single bit flips of every sample message up to 256 bytes decode or throw")
    func everySingleBitFlip() {
        let corpus = (Samples.hostMessages.map { $0.encoded() } + Samples.workerMessages.map { $0.encoded() })
            .filter { $0.count <= 256 }
        #expect(corpus.count > 50)
        for original in corpus {
            for i in original.indices {
                for bit in 0..<8 {
                    var bytes = original
                    bytes[i] ^= UInt8(1) << UInt8(bit)
                    _ = decodeBoth(bytes)
                }
            }
        }
    }

    @Test("Random streams fed to a FrameReader yield frames or frameTooLarge, never a crash")
    func randomFrameStreams() {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<500 {
            var reader = FrameReader(maximumFrameSize: Int.random(in: 0...64, using: &rng))
            var stream = (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if Bool.random(using: &rng) { stream = stream.map { $0 & 0x1F } }   // small lengths, more whole frames
            var offset = 0
            loop: while offset < stream.count {
                let n = min(Int.random(in: 1...16, using: &rng), stream.count - offset)
                reader.feed(Array(stream[offset ..< offset + n]))
                offset += n
                do {
                    while let frame = try reader.nextFrame() {
                        #expect(frame.count <= reader.maximumFrameSize)
                        _ = decodeBoth(frame)
                    }
                } catch {
                    guard case .frameTooLarge(let length, let maximum) = error else {
                        Issue.record("unexpected \(error)"); break loop
                    }
                    #expect(length > maximum)
                    break loop
                }
            }
        }
    }
}
