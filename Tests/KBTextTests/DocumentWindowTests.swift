import KBText
import Testing

/// DocumentWindow: the bounded view of a document a keyboard reads from.
@Suite("DocumentWindow")
struct DocumentWindowTests {

    /// Checks what must hold for any cut: the window is the document's text
    /// from `start`, selection and marked range are the document's shifted by
    /// `start`, and the truncation flags say whether text was left out.
    func expectFaithfulCut(_ document: TextBuffer, limit: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let (window, start) = DocumentWindow.cut(from: document, limit: limit)
        let b = window.buffer
        let docUnits = Array(document.text.utf16), winUnits = Array(b.text.utf16)
        #expect(start >= 0 && start + winUnits.count <= docUnits.count, sourceLocation: sourceLocation)
        #expect(Array(docUnits[start ..< start + winUnits.count]) == winUnits,
                "window is not the document's text from \(start)", sourceLocation: sourceLocation)
        let docBoundaries = clusterBoundaries(of: document.text)
        #expect(docBoundaries.contains(start) && docBoundaries.contains(start + winUnits.count),
                "window splits a cluster", sourceLocation: sourceLocation)
        #expect(b.selection == UTF16Range(location: document.selection.location - start, length: document.selection.length),
                sourceLocation: sourceLocation)
        #expect(b.markedRange == document.markedRange.map { UTF16Range(location: $0.location - start, length: $0.length) },
                "marked text is not wholly inside the window", sourceLocation: sourceLocation)
        #expect(window.truncatedBefore == (start > 0), sourceLocation: sourceLocation)
        #expect(window.truncatedAfter == (start + winUnits.count < docUnits.count), sourceLocation: sourceLocation)
        // Bounded: the limit each side, plus at most one cluster's widening each side (no marked text here).
        if document.markedRange == nil {
            let longestCluster = document.text.map { $0.utf16.count }.max() ?? 0
            #expect(winUnits.count <= document.selection.length + 2 * limit + 2 * longestCluster,
                    sourceLocation: sourceLocation)
        }
        expectInvariants(b, sourceLocation: sourceLocation)
    }

    @Test("The default limit is 512 UTF-16 units each side")
    func defaultLimit() {
        #expect(DocumentWindow.defaultLimit == 512)
        let doc = TextBuffer(text: String(repeating: "a", count: 3000), selection: UTF16Range(location: 1500, length: 0))
        let (window, start) = DocumentWindow.cut(from: doc)
        #expect(start == 988)
        #expect(window.buffer.utf16Count == 1024)
    }

    @Test("A short document fits whole in its window, with no truncation")
    func shortDocumentFitsWhole() {
        let doc = TextBuffer(text: "hello world", selection: UTF16Range(location: 5, length: 1))
        let (window, start) = DocumentWindow.cut(from: doc, limit: 100)
        #expect(start == 0)
        #expect(window.buffer == doc)
        #expect(!window.truncatedBefore && !window.truncatedAfter)
        #expect(window.contextBefore == "hello")
        #expect(window.selectedText == " ")
        #expect(window.contextAfter == "world")
    }

    @Test("A long document is cut to the limit on each side and flagged truncated on both")
    func longDocumentIsBoundedBothSides() {
        let doc = TextBuffer(text: String(repeating: "abcd", count: 500), selection: UTF16Range(location: 1000, length: 0))
        let (window, start) = DocumentWindow.cut(from: doc, limit: 10)
        #expect(start == 990)
        #expect(window.buffer.text == "cdabcdabcdabcdabcdab")
        #expect(window.buffer.selection == UTF16Range(location: 10, length: 0))
        #expect(window.truncatedBefore && window.truncatedAfter)
        expectFaithfulCut(doc, limit: 10)
    }

    @Test("Near the start only the end is truncated; near the end only the start")
    func truncationFlagsNearEnds() {
        let text = String(repeating: "x", count: 100)
        let (head, headStart) = DocumentWindow.cut(from: buffer(text, cursorAt: 3), limit: 10)
        #expect(headStart == 0 && !head.truncatedBefore && head.truncatedAfter)
        #expect(head.buffer.utf16Count == 13)
        let (tail, tailStart) = DocumentWindow.cut(from: buffer(text, cursorAt: 95), limit: 10)
        #expect(tailStart == 85 && tail.truncatedBefore && !tail.truncatedAfter)
        #expect(tail.buffer.utf16Count == 15)
    }

    @Test("The window covers a long selection whole, plus the limit each side")
    func windowCoversSelection() {
        let doc = TextBuffer(text: String(repeating: "y", count: 300), selection: UTF16Range(location: 100, length: 50))
        let (window, start) = DocumentWindow.cut(from: doc, limit: 5)
        #expect(start == 95)
        #expect(window.buffer.utf16Count == 60)
        #expect(window.selectedText == String(repeating: "y", count: 50))
    }

    @Test("The window never splits 👍🏽: a cut inside it widens to the whole emoji")
    func windowNeverSplitsEmoji() {
        let text = String(repeating: Sample.thumbsUpMedium, count: 20)   // 80 units
        let doc = buffer(text, cursorAt: 40)
        let (window, start) = DocumentWindow.cut(from: doc, limit: 5)
        #expect(start == 32)                     // 40 - 5 = 35, inside the emoji at 32..<36
        #expect(window.buffer.utf16Count == 16)  // 45 is inside the emoji at 44..<48
        #expect(window.buffer.text == String(repeating: Sample.thumbsUpMedium, count: 4))
        for limit in 0...9 { expectFaithfulCut(doc, limit: limit) }
    }

    @Test("The marked text is always wholly inside the window, however small the limit")
    func markedTextWhollyInsideWindow() {
        var doc = TextBuffer(text: String(repeating: "x", count: 100) + String(repeating: "z", count: 100),
                             selection: UTF16Range(location: 100, length: 0))
        let marked = String(repeating: "か", count: 40)
        doc.setMarkedText(marked, selectedRange: UTF16Range(location: 0, length: 0))
        #expect(doc.selection.location == 100)
        let (window, start) = DocumentWindow.cut(from: doc, limit: 3)
        #expect(start == 97)
        #expect(window.markedText == marked)
        #expect(window.buffer.markedRange == UTF16Range(location: 3, length: 40))
        #expect(window.buffer.utf16Count == 3 + 40)   // widened past the limit to the marked text's end
        #expect(window.truncatedBefore && window.truncatedAfter)
        expectFaithfulCut(doc, limit: 3)
        expectFaithfulCut(doc, limit: 0)
    }

    @Test("Random documents cut faithfully at every limit", arguments: [11, 22, 33] as [UInt64])
    func randomCutsAreFaithful(seed: UInt64) {
        let pieces = ["a", "b", " ", "日", Sample.thumbsUpMedium, Sample.flagJapan, Sample.family, Sample.eAcute]
        var rng = SplitMix64(seed: seed)
        for _ in 0..<60 {
            let text = (0..<Int.random(in: 0...40, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            var doc = TextBuffer(text: text)
            doc.select(UTF16Range(location: Int.random(in: 0...doc.utf16Count, using: &rng),
                                  length: Int.random(in: 0...4, using: &rng)))
            if Bool.random(using: &rng) {
                doc.setMarkedText(pieces.randomElement(using: &rng)! + "m",
                                  selectedRange: UTF16Range(location: Int.random(in: 0...3, using: &rng), length: 0))
            }
            for limit in [0, 1, 2, 3, 7, 16, 1000] { expectFaithfulCut(doc, limit: limit) }
        }
    }

    @Test("contextBefore, contextAfter and selectedText are nil when empty")
    func readsAreNilWhenEmpty() {
        let empty = DocumentWindow()
        #expect(empty.contextBefore == nil && empty.contextAfter == nil && empty.selectedText == nil)
        #expect(empty.markedText == nil)
        let atStart = DocumentWindow(buffer: buffer("abc", cursorAt: 0))
        #expect(atStart.contextBefore == nil)
        #expect(atStart.contextAfter == "abc")
        #expect(atStart.selectedText == nil)
        let atEnd = DocumentWindow(buffer: buffer("abc"))
        #expect(atEnd.contextBefore == "abc")
        #expect(atEnd.contextAfter == nil)
    }

    @Test("Reads report emoji and marked text whole")
    func readsReportClustersWhole() {
        var b = buffer(Sample.flagJapan + Sample.family, cursorAt: 4)
        b.setMarkedText("に", selectedRange: UTF16Range(location: 1, length: 0))
        let window = DocumentWindow(buffer: b)
        #expect(window.contextBefore == Sample.flagJapan + "に")
        #expect(window.contextAfter == Sample.family)
        #expect(window.markedText == "に")
        #expect(window.selectedText == nil)
    }

    @Test("hasText is false only for an empty document")
    func hasTextFalseOnlyWhenEmpty() {
        #expect(!DocumentWindow.cut(from: TextBuffer(), limit: 10).window.hasText)
        #expect(DocumentWindow.cut(from: TextBuffer(text: "a"), limit: 10).window.hasText)
    }

    @Test("hasText is true when the document's text lies only outside the window")
    func hasTextTrueWhenTextOnlyOutsideWindow() {
        let (end, _) = DocumentWindow.cut(from: TextBuffer(text: "abc"), limit: 0)
        #expect(end.buffer.text.isEmpty)
        #expect(end.truncatedBefore && !end.truncatedAfter)
        #expect(end.hasText)
        #expect(end.contextBefore == nil)
        let (start, _) = DocumentWindow.cut(from: buffer("abc", cursorAt: 0), limit: 0)
        #expect(start.buffer.text.isEmpty && start.truncatedAfter && start.hasText)
        #expect(DocumentWindow(buffer: TextBuffer(), truncatedBefore: true).hasText)
        #expect(DocumentWindow(buffer: TextBuffer(), truncatedAfter: true).hasText)
    }

    @Test("A keyboard's edits apply to the window so reads are fresh at once")
    func editsApplyToWindow() {
        var (window, _) = DocumentWindow.cut(from: TextBuffer(text: "hello"), limit: 512)
        window.buffer.insertText(" " + Sample.thumbsUpMedium)
        #expect(window.contextBefore == "hello " + Sample.thumbsUpMedium)
        window.buffer.deleteBackward()
        #expect(window.contextBefore == "hello ")
    }
}
