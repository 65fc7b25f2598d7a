import KBText
import Testing

// Shared helpers for the KBText tests.

/// Strings whose grapheme clusters span several UTF-16 code units.
enum Sample {
    static let thumbsUpMedium = "👍🏽"         // U+1F44D U+1F3FD: 4 UTF-16 units, 1 cluster
    static let flagJapan = "🇯🇵"              // two regional indicators: 4 units, 1 cluster
    static let family = "👨‍👩‍👧"      // man ZWJ woman ZWJ girl: 8 units, 1 cluster
    static let eAcute = "e\u{301}"           // e + combining acute: 2 units, 1 cluster
    static let nihon = "日本"                 // 2 units, 2 clusters
    static let hangulJamo = "\u{1100}\u{1161}" // conjoining jamo ᄀ+ᅡ: 2 units, 1 cluster
}

/// The UTF-16 offsets at which `text` may be split without splitting a cluster.
func clusterBoundaries(of text: String) -> Set<Int> {
    var boundaries: Set<Int> = [0]
    var offset = 0
    for character in text {
        offset += character.utf16.count
        boundaries.insert(offset)
    }
    return boundaries
}

/// Checks the invariants TextBuffer documents: selection and marked range lie
/// inside the text and on cluster boundaries; a marked range is non-empty and
/// contains the selection.
func expectInvariants(_ buffer: TextBuffer, sourceLocation: SourceLocation = #_sourceLocation) {
    let count = buffer.text.utf16.count
    let boundaries = clusterBoundaries(of: buffer.text)
    let s = buffer.selection
    #expect(s.location >= 0 && s.length >= 0 && s.end <= count,
            "selection \(s) outside text of \(count) units", sourceLocation: sourceLocation)
    #expect(boundaries.contains(s.location) && boundaries.contains(s.end),
            "selection \(s) splits a cluster of \(buffer.text.debugDescription)", sourceLocation: sourceLocation)
    #expect(buffer.utf16Count == count, sourceLocation: sourceLocation)
    if let m = buffer.markedRange {
        #expect(m.location >= 0 && m.length > 0 && m.end <= count,
                "marked range \(m) outside text of \(count) units", sourceLocation: sourceLocation)
        #expect(boundaries.contains(m.location) && boundaries.contains(m.end),
                "marked range \(m) splits a cluster of \(buffer.text.debugDescription)", sourceLocation: sourceLocation)
        #expect(m.location <= s.location && s.end <= m.end,
                "marked range \(m) does not contain selection \(s)", sourceLocation: sourceLocation)
    }
}

/// A buffer holding `text` with the insertion point at a UTF-16 offset.
func buffer(_ text: String, cursorAt offset: Int? = nil) -> TextBuffer {
    TextBuffer(text: text, selection: offset.map { UTF16Range(location: $0, length: 0) })
}
