import KBText
import KBWire
import Testing

@Suite("FrameReader")
struct FramingTests {
    func frames(_ payloads: [[UInt8]]) -> [UInt8] {
        var stream: [UInt8] = []
        for p in payloads { Framing.appendFrame(p, to: &stream) }
        return stream
    }

    let payloads: [[UInt8]] = [[4], [], [1, 1, 0, 0, 0, 1, 0, 0, 0], Array(0...255), [9]]

    @Test("An empty reader has no frame and nothing pending")
    func emptyReader() throws {
        var reader = FrameReader()
        #expect(try reader.nextFrame() == nil)
        #expect(reader.pendingByteCount == 0)
        #expect(reader.maximumFrameSize == Framing.maximumFrameSize)
    }

    @Test("Frames appended one byte at a time come out whole, each as soon as its last byte arrives")
    func byteByByte() throws {
        var reader = FrameReader()
        var received: [[UInt8]] = []
        let stream = frames(payloads)
        var frameEnds: [Int] = []
        var end = 0
        for p in payloads { end += 4 + p.count; frameEnds.append(end) }
        for (i, byte) in stream.enumerated() {
            reader.feed([byte])
            let got = try reader.drain()
            #expect(got.count == (frameEnds.contains(i + 1) ? 1 : 0), "after byte \(i)")
            received += got
        }
        #expect(received == payloads)
        #expect(reader.pendingByteCount == 0)
    }

    @Test("Several frames in one append all come out, in order")
    func severalFramesInOneAppend() throws {
        var reader = FrameReader()
        reader.feed(frames(payloads))
        #expect(try reader.drain() == payloads)
        #expect(try reader.nextFrame() == nil)
    }

    @Test("A partial frame stays pending until the rest arrives")
    func partialFramePending() throws {
        var reader = FrameReader()
        reader.feed(frames([[1, 2, 3]]) + [5, 0, 0])   // one frame, then 3 bytes of the next header
        #expect(try reader.nextFrame() == [1, 2, 3])
        #expect(try reader.nextFrame() == nil)
        #expect(reader.pendingByteCount == 3)
        reader.feed([0, 10, 20])
        #expect(try reader.nextFrame() == nil)
        #expect(reader.pendingByteCount == 6)
        reader.feed([30, 40, 50])
        #expect(try reader.nextFrame() == [10, 20, 30, 40, 50])
        #expect(reader.pendingByteCount == 0)
    }

    @Test("Random chunking of a random stream gives back every frame", arguments: [5, 6, 7] as [UInt64])
    func randomChunking(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let payloads = (0..<300).map { _ in
            (0..<Int.random(in: 0...600, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        }
        let stream = frames(payloads)
        var reader = FrameReader()
        var received: [[UInt8]] = []
        var offset = 0
        while offset < stream.count {
            let n = min(Int.random(in: 1...2000, using: &rng), stream.count - offset)
            reader.feed(Array(stream[offset ..< offset + n]))
            offset += n
            received += try reader.drain()
        }
        #expect(received == payloads)
        #expect(reader.pendingByteCount == 0)
    }

    @Test("Frames survive the reader compacting its buffer after 64 KiB have been consumed")
    func compactionKeepsPendingBytes() throws {
        let payloads = (0..<40).map { i in [UInt8](repeating: UInt8(i), count: 2000 + i) }   // ~80 KB
        let stream = frames(payloads)
        var reader = FrameReader()
        reader.feed(Array(stream.dropLast(3)))
        let first = try reader.drain()
        #expect(first == Array(payloads.dropLast()))
        #expect(reader.pendingByteCount == 4 + payloads.last!.count - 3)
        reader.feed(Array(stream.suffix(3)))
        #expect(try reader.drain() == [payloads.last!])
        #expect(reader.pendingByteCount == 0)
    }

    @Test("A frame of exactly the maximum size is accepted")
    func maximumSizeAccepted() throws {
        var reader = FrameReader(maximumFrameSize: 16)
        let payload = [UInt8](repeating: 1, count: 16)
        reader.feed(frames([payload]))
        #expect(try reader.nextFrame() == payload)
    }

    @Test("A header announcing more than the maximum throws frameTooLarge before the payload arrives")
    func oversizedHeaderThrowsEarly() {
        var small = FrameReader(maximumFrameSize: 16)
        small.feed([17, 0, 0, 0])                                     // only the header
        #expect(throws: WireError.frameTooLarge(length: 17, maximum: 16)) { try small.nextFrame() }

        var standard = FrameReader()
        standard.feed(le32(UInt32(Framing.maximumFrameSize + 1)))
        #expect(throws: WireError.frameTooLarge(length: Framing.maximumFrameSize + 1, maximum: Framing.maximumFrameSize)) {
            try standard.nextFrame()
        }

        var hostile = FrameReader()
        hostile.feed([0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: WireError.frameTooLarge(length: 0xFFFF_FFFF, maximum: Framing.maximumFrameSize)) { try hostile.nextFrame() }
        #expect(hostile.pendingByteCount == 4)
    }

    @Test("A header announcing exactly the maximum waits for its payload without throwing")
    func maximumHeaderWaits() throws {
        var reader = FrameReader()
        reader.feed(le32(UInt32(Framing.maximumFrameSize)))
        #expect(try reader.nextFrame() == nil)
    }

    @Test("An oversized frame after good ones is reported once the good ones are read")
    func oversizedAfterGoodFrames() throws {
        var reader = FrameReader(maximumFrameSize: 8)
        reader.feed(frames([[1], [2, 2]]) + [9, 0, 0, 0])
        #expect(try reader.nextFrame() == [1])
        #expect(try reader.nextFrame() == [2, 2])
        #expect(throws: WireError.frameTooLarge(length: 9, maximum: 8)) { try reader.nextFrame() }
    }

    @Test("WireError descriptions say what was wrong")
    func errorDescriptions() {
        #expect(WireError.frameTooLarge(length: 20, maximum: 16).description == "frame of 20 bytes exceeds the maximum of 16")
        #expect(WireError.truncated(field: "pid").description == "message ends inside pid")
        #expect(WireError.invalidTag(type: "effect", tag: 9).description == "unknown effect tag 9")
        #expect(WireError.invalidUTF8(field: "label").description == "label is not valid UTF-8")
        #expect(WireError.countTooLarge(field: "effects", count: 5).description == "effects count 5 is larger than the message")
        #expect(WireError.trailingBytes(count: 2).description == "2 unexpected bytes after the message")
        #expect(WireError.invalidValue(field: "width", reason: "bad").description == "width: bad")
    }
}
