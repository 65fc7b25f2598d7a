import KBText
import KBWire

/// What the two wire fuzzers share: an input is a byte stream as it arrives on the socket,
/// frame headers included, cut into reads where the input's first byte says; every frame
/// the reader yields is decoded. Whatever the bytes: the reader yields frames within its
/// bound or throws `frameTooLarge` for a header over it, and each frame decodes to a value
/// or throws a short `WireError` — never a trap, a hang (libFuzzer's -timeout) or an
/// allocation past -malloc_limit_mb / -rss_limit_mb.
package enum WireFuzzing {
    /// Feeds `input` to a `FrameReader` in reads of the sizes its first byte picks
    /// (1 to 64 bytes, or all at once), handing each whole frame to `check`.
    package static func stream(_ input: UnsafeBufferPointer<UInt8>, _ check: ([UInt8]) -> Void) {
        guard let first = input.first else { return }
        let stream = UnsafeBufferPointer(rebasing: input.dropFirst())
        let step = first == 0 ? max(stream.count, 1) : Int(first & 63) + 1
        var reader = FrameReader()
        var offset = 0
        while offset < stream.count {
            let n = min(step, stream.count - offset)
            reader.append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: stream[offset ..< offset + n])))
            offset += n
            do {
                while let frame = try reader.nextFrame() {
                    precondition(frame.count <= reader.maximumFrameSize, "a frame of \(frame.count) bytes passed the bound")
                    check(frame)
                }
            } catch {
                guard case .frameTooLarge(let length, let maximum) = error, length > maximum else {
                    preconditionFailure("the frame reader threw \(error)")
                }
                return  // the host ends the keyboard here
            }
        }
        precondition(reader.pendingByteCount <= stream.count, "the reader holds more than it was given")
    }

    /// A refusal stays short and names what was wrong, whatever the input.
    package static func checkRefusal(_ error: WireError) {
        let text = error.description
        precondition(!text.isEmpty && text.utf8.count < 400, "an error of \(text.utf8.count) bytes")
    }

    /// The buffer invariants TextBuffer promises after any edit.
    package static func checkBuffer(_ b: TextBuffer) {
        precondition(b.utf16Count == b.text.utf16.count, "utf16Count \(b.utf16Count) for a text of \(b.text.utf16.count)")
        precondition(b.selection.location >= 0 && b.selection.length >= 0 && b.selection.end <= b.utf16Count,
                     "selection \(b.selection) outside a text of \(b.utf16Count)")
        if let m = b.markedRange {
            precondition(m.location >= 0 && m.length > 0 && m.end <= b.utf16Count, "marked range \(m) outside the text")
            precondition(m.location <= b.selection.location && b.selection.end <= m.end,
                         "marked range \(m) does not contain the selection \(b.selection)")
        }
    }

    /// What the host does with a reply's effects, short of a session: the edits applied
    /// in order to a document (a small one, so that offsets fall inside and outside it),
    /// and every layout indexed by name as `KeyboardLayout` indexes it.
    package static func apply(_ effects: [Effect]) {
        var buffer = TextBuffer(text: "ab👍🏽 cd\u{301}", selection: UTF16Range(location: 3, length: 2))
        // The host counts the edits' work on a copy first (KBH_MAX_CALL_EDIT_WORK): a short document never goes over.
        precondition(WireLimits.editWorkViolation(effects, document: buffer) == nil, "the edits of a short document went over")
        for effect in effects {
            switch effect {
            case .edit(let edit):
                edit.apply(to: &buffer)
                checkBuffer(buffer)
            case .setLayout(let layout):
                let names = KeyNaming.index(layout.rows, label: \.label, identifier: \.identifier, role: \.role)
                for (name, position) in names {
                    precondition(layout.rows.indices.contains(position.row)
                                 && layout.rows[position.row].indices.contains(position.column), "\(name) names no key")
                }
            default: break
            }
        }
    }
}
