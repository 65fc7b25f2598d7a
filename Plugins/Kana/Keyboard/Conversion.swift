/// A reading being converted: anthy's segments, the candidate chosen for
/// each, and the segment the user is working on.
struct Conversion: Equatable, Sendable {
    /// The whole reading, to go back to (delete).
    let reading: String
    private(set) var segments: [Segment]
    private(set) var choices: [Int]
    private(set) var current = 0

    init(reading: String, segments: [Segment]) {
        self.reading = reading
        self.segments = segments.isEmpty ? [Segment(reading: reading, candidates: [reading])] : segments
        choices = Array(repeating: 0, count: self.segments.count)
    }

    var currentSegment: Segment { segments[current] }
    var currentChoice: Int { choices[current] }
    var isLastSegment: Bool { current == segments.count - 1 }

    /// The chosen candidates, one after the other: the marked text.
    var text: String {
        zip(segments, choices).map { $0.candidates[$1] }.joined()
    }

    /// Where the current segment is in `text`, in UTF-16 code units.
    var currentRange: Range<Int> {
        var start = 0
        for i in 0..<current { start += segments[i].candidates[choices[i]].utf16.count }
        return start ..< start + segments[current].candidates[choices[current]].utf16.count
    }

    /// The next candidate of the current segment (after the last, the first again).
    mutating func nextCandidate() {
        choices[current] = (choices[current] + 1) % segments[current].candidates.count
    }

    mutating func choose(_ candidate: Int) {
        guard segments[current].candidates.indices.contains(candidate) else { return }
        choices[current] = candidate
    }

    /// Moves to another segment; false at either end.
    @discardableResult
    mutating func moveSegment(by offset: Int) -> Bool {
        guard segments.indices.contains(current + offset) else { return false }
        current += offset
        return true
    }

    /// New segments after a resize of the current one: the choices before it
    /// stay, the resized segment and those after it start from their best candidate.
    mutating func replaceSegments(_ new: [Segment]) {
        guard !new.isEmpty else { return }
        let kept = choices.prefix(current)
        segments = new
        current = min(current, new.count - 1)
        choices = (0..<new.count).map { i in
            i < kept.count && new[i].candidates.indices.contains(kept[i]) ? kept[i] : 0
        }
    }
}
