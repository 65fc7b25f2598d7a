package import KBText

/// What one call into a keyboard may send back: the limits kbhost_keyboard.h
/// documents as KBH_MAX_CALL_EFFECTS, KBH_MAX_CALL_BYTES and KBH_MAX_CALL_MEMORY
/// (copied here because the wire may not import the header; KBExtensionRuntimeTests
/// fails when they differ). Everything a selector does before it returns goes back
/// as one reply, so these bound one reply: the worker refuses a call that goes over
/// them with a clear failure, and the host refuses a reply that does while it decodes
/// it, before it holds more than the limits allow.
///
/// Sized from ordinary use, with room to spare: one insertion of a 2 MiB document,
/// 300,000 one-letter insertions in one action (consecutive insertions travel as one
/// effect), a layout of 100,000 keys (about 5 MB on the wire, 40 MB in the host).
package enum WireLimits {
    /// The most effects one reply carries (consecutive insertions count as one).
    package static let maximumEffects = 65_536
    /// The most bytes one call's effects take on the wire.
    package static let maximumEffectBytes = 8 << 20
    /// The most memory the host spends on one reply's effects, as `ByteReader`
    /// counts it while it decodes them: each effect and layout row at its in-memory
    /// size, each key at `keyCost`, each string longer than 15 bytes (shorter ones
    /// live inline) at its UTF-8 size plus `stringOverhead`, and a key's identifier
    /// twice (the host's index copies it).
    package static let maximumEffectMemory = 48 << 20
    /// The most work one call's edits may cost the host, in UTF-16 code units: each edit after
    /// the first counted at the length of the document it leaves (KBH_MAX_CALL_EDIT_WORK). The
    /// host keeps the whole document, and an edit of text that is not all ASCII takes it time in
    /// proportion to the document's length (a String finds a UTF-16 offset by walking it), so
    /// 64,000 one-letter edits in one call to a document of 200,000 characters held the host for
    /// 43 s while the keyboard's side, which edits a window, took a fraction of a second. At this
    /// limit a call's edits cost the host about 0.2 s (3 ns a unit, measured). One edit always
    /// passes, whatever the document; the host counts before it applies any.
    package static let maximumEditWork = 64 << 20

    /// What a key costs the host: decoded (a `WireKey`, 120 bytes), then again as
    /// the host's own layout (KBHost's `KeyboardLayout.Key`) and its two entries
    /// in that layout's index by label and identifier (KBHostTests checks that
    /// these fit). Measured: a layout of 100,000 keys raises `kbhost type`'s
    /// peak RSS by 39 MB over typing one key, frame included; it is counted as 40 MB.
    package static let keyCost = 400
    /// What a key's extras (`Effect.setKeyExtras`) cost the host besides their strings: the
    /// effect's box, then the entry in the host's layout's table of extras (a table half full
    /// on average), with room to spare.
    package static let keyExtrasCost = 160
    /// Header and terminator of a string's heap storage.
    package static let stringOverhead = 33
    /// The longest string Swift keeps inline, without heap storage (UTF-8 bytes).
    package static let inlineStringBytes = 15
    /// Header of an array's heap storage.
    package static let arrayOverhead = 32

    /// What a string of `utf8Count` bytes costs the host once decoded.
    @inlinable
    package static func stringCost(_ utf8Count: Int) -> Int {
        utf8Count > inlineStringBytes ? utf8Count + stringOverhead : 0
    }

    /// The index entry "id:IDENTIFIER" the host makes for a key (a string of its own when long).
    @inlinable
    package static func identifierIndexCost(_ utf8Count: Int) -> Int { stringCost(utf8Count + 3) }

    /// What an array of `count` elements of `stride` bytes costs the host once decoded.
    @inlinable
    package static func arrayCost(_ count: Int, stride: Int) -> Int {
        count > 0 ? arrayOverhead + count * stride : 0
    }

    /// The wire size and the host's decoded cost of a list of effects, counted
    /// exactly as `ByteReader` counts them while it decodes the same list.
    package static func measure(_ effects: [Effect]) -> (bytes: Int, memory: Int) {
        var bytes = 4, memory = arrayCost(effects.count, stride: MemoryLayout<Effect>.stride)
        func string(_ s: String) {
            let n = s.utf8.count
            bytes += 4 + n
            memory += stringCost(n)
        }
        for effect in effects {
            bytes += 1
            switch effect {
            case .edit(let edit):
                bytes += 1
                switch edit {
                case .insertText(let s): string(s)
                case .deleteBackward, .unmarkText: break
                case .adjustTextPosition: bytes += 8
                case .setMarkedText(let s, _): string(s); bytes += 16
                }
            case .setLayout(let layout):
                string(layout.display)
                bytes += 4
                memory += arrayCost(layout.rows.count, stride: MemoryLayout<[WireKey]>.stride)
                for row in layout.rows {
                    bytes += 4
                    memory += arrayCost(row.count, stride: keyCost)
                    for key in row {
                        string(key.identifier); string(key.label)
                        memory += identifierIndexCost(key.identifier.utf8.count)
                        bytes += 1 + 8 + 4 + 1
                        for action in [key.action, key.touchDownAction, key.longPressAction, key.doubleTapAction] {
                            if let action { string(action) }
                        }
                    }
                }
            case .setDisplay(let s), .setPasteboard(let s), .playSound(let s): string(s)
            case .log(_, let message): bytes += 1; string(message)
            case .advanceToNextInputMode, .dismissKeyboard, .playInputClick: break
            case .haptic: bytes += 1 + 8
            case .setKeyExtras(let change):
                bytes += 8 + 1 + 4 + 1
                memory += keyExtrasCost + arrayCost(change.extras.alternates.count, stride: MemoryLayout<String>.stride)
                if let payload = change.extras.payload { string(payload) }
                change.extras.alternates.forEach(string)
                if let action = change.extras.dragAction { string(action) }
            }
        }
        return (bytes, memory)
    }

    /// Why one call's effects may not travel as a reply, nil when they may:
    /// the sentence a keyboard author reads when their keyboard goes over.
    package static func violation(_ effects: [Effect]) -> String? {
        if effects.count > maximumEffects {
            return "made \(effects.count) changes in one call; one call may make at most \(maximumEffects) (KBH_MAX_CALL_EFFECTS)"
        }
        let (bytes, memory) = measure(effects)
        if bytes > maximumEffectBytes {
            return "sent \(mebibytes(bytes)) of changes in one call; one call may send at most \(mebibytes(maximumEffectBytes)) (KBH_MAX_CALL_BYTES)"
        }
        if memory > maximumEffectMemory {
            return "made changes in one call that would take the host \(mebibytes(memory)) to hold; at most \(mebibytes(maximumEffectMemory)) (KBH_MAX_CALL_MEMORY)"
        }
        return nil
    }

    /// Why one call's edits may not be applied to `document`, nil when they may: the sentence
    /// a keyboard author reads. Counts by applying them to a copy of it, as the host would, so
    /// the count is exact and what it costs is bounded too: it stops at the first edit past the
    /// limit. (A count from the effects alone cannot be exact: a deletion at the start of the
    /// text removes nothing, and an insertion undone at once leaves the length as it was.)
    package static func editWorkViolation(_ effects: [Effect], document: TextBuffer,
                                          timeIsUp: () -> Bool = { false }) -> String? {
        var edits = 0
        for effect in effects { if case .edit = effect { edits += 1 } }
        guard edits > 1 else { return nil }
        var buffer = document, work = 0, applied = 0
        for case .edit(let edit) in effects {
            edit.apply(to: &buffer)
            if applied > 0 { work += buffer.utf16Count }
            applied += 1
            if work > maximumEditWork {
                return "made \(edits) edits in one call to a document of \(document.utf16Count) UTF-16 code units; "
                    + "one call's edits, each after the first counted at the length of the document it leaves, may come to "
                    + "at most \(maximumEditWork) (KBH_MAX_CALL_EDIT_WORK): make fewer, larger edits (consecutive insertions travel as one)"
            }
            // What an edit costs is not its length alone: at the end of a long run of regional
            // indicators every cluster boundary is found by walking back over the run, and 32
            // edits within the count above took the host 3.6 s (eighth red team, A).
            if applied < edits, timeIsUp() {
                return "made \(edits) edits in one call whose check took the host more than \(maximumEditCheckMilliseconds) ms "
                    + "after \(applied) of them (KBH_MAX_CALL_EDIT_WORK): make fewer, larger edits"
            }
        }
        return nil
    }

    /// The host's time for checking one call's edits (on a copy, before any is applied).
    package static let maximumEditCheckMilliseconds = 250

    /// "8.0 MiB", without Foundation.
    static func mebibytes(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + (1 << 19)) >> 20
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}
