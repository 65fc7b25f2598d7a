// The binary form of the input models' values (InputModels.swift): a key's extras (in effect tag
// 10), haptic feedback (effect tag 11), a drag's touch (in call tag 7). Tests pin the bytes.

extension ByteWriter {
    mutating func keyExtras(_ e: KeyExtras) {
        optionalString(e.payload)
        count(e.alternates.count)
        for a in e.alternates { string(a) }
        optionalString(e.dragAction)
    }

    mutating func dragTouch(_ t: DragTouch) {
        u8(t.phase.rawValue)
        double(t.x); double(t.y); double(t.dx); double(t.dy); optionalString(t.keyUnder); i64(t.timestampNanoseconds)
    }
}

extension ByteReader {
    mutating func keyExtras() throws(WireError) -> KeyExtras {
        let payload = try optionalString("key payload")
        let n = try count("alternates", minimumSize: 4)
        try charge(WireLimits.arrayCost(n, stride: MemoryLayout<String>.stride))
        var alternates: [String] = []
        alternates.reserveCapacity(n)
        for _ in 0..<n { alternates.append(try string("alternate")) }
        return KeyExtras(payload: payload, alternates: alternates, dragAction: try optionalString("drag action"))
    }

    /// An effect tag 11's fields: the kind, and an intensity in [0, 1].
    mutating func haptic() throws(WireError) -> Effect {
        let kind = try enumCase(Haptic.self, "haptic kind"), intensity = try double("haptic intensity")
        guard intensity >= 0, intensity <= 1 else {
            throw .invalidValue(field: "haptic intensity", reason: "\(intensity) is not in [0, 1]")
        }
        return .haptic(kind, intensity: intensity)
    }

    mutating func dragTouch() throws(WireError) -> DragTouch {
        let phase = try enumCase(DragTouch.Phase.self, "drag phase")
        let x = try double("touch x"), y = try double("touch y"), dx = try double("touch dx"), dy = try double("touch dy")
        guard [x, y, dx, dy].allSatisfy(\.isFinite) else {
            throw .invalidValue(field: "touch", reason: "(\(x), \(y)) moved (\(dx), \(dy)) is not finite")
        }
        return DragTouch(phase: phase, x: x, y: y, dx: dx, dy: dy, keyUnder: try optionalString("key under the touch"),
                         timestampNanoseconds: try i64("timestamp"))
    }
}
