/// Bytes from a terminal in raw mode, as the keys a person pressed. One read
/// may bring many keys (a paste, ssh, key repeat, a fast typist) or part of
/// one (a UTF-8 character or an escape sequence split across reads): the
/// decoder keeps what is incomplete for the next `feed`.
public struct TerminalInput {
    public enum Key: Hashable, Sendable {
        /// A printable character (a grapheme cluster's scalars arrive one by one: each is a character here).
        case character(String)
        case space, enter, backspace, tab, shiftTab, escape
        case left, right, up, down
        /// Shift-← / Shift-→.
        case shiftLeft, shiftRight
        /// Ctrl and a letter: 1 for Ctrl-A … 26 for Ctrl-Z (Tab, Enter and Backspace excepted).
        case control(UInt8)
        /// An escape sequence this decoder does not know (ignored by callers).
        case unknown
    }

    private var pending: [UInt8] = []

    public init() {}

    /// True while the bytes so far may still be the start of a longer key (a lone
    /// ESC, half a character): wait a little for more, then call `flush`.
    public var isWaiting: Bool { !pending.isEmpty }

    /// The keys these bytes complete.
    public mutating func feed(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var i = 0
        while i < pending.count {
            guard let (key, length) = Self.decode(pending[i...]) else { break }  // incomplete: wait
            keys.append(key)
            i += length
        }
        pending.removeFirst(i)
        return keys
    }

    /// No more bytes came: what is pending is what it is (a lone ESC is Escape;
    /// a broken character is dropped).
    public mutating func flush() -> [Key] {
        defer { pending = [] }
        if pending == [27] { return [.escape] }
        if pending.first == 27, pending.count > 1 { return [.escape] + feedAfterEscape() }
        return []
    }

    private mutating func feedAfterEscape() -> [Key] {
        let rest = Array(pending.dropFirst())
        pending = []
        return rest.isEmpty ? [] : feed(rest)
    }

    /// One key at the start of `bytes` and how many bytes it took; nil if incomplete.
    static func decode(_ bytes: ArraySlice<UInt8>) -> (Key, Int)? {
        let b = bytes[bytes.startIndex]
        switch b {
        case 27: return escape(bytes)
        case 13, 10: return (.enter, 1)
        case 127, 8: return (.backspace, 1)
        case 9: return (.tab, 1)
        case 32: return (.space, 1)
        case 0..<32: return (.control(b), 1)
        default: return character(bytes)
        }
    }

    static func escape(_ bytes: ArraySlice<UInt8>) -> (Key, Int)? {
        let s = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let introducer = bytes[s + 1]
        guard introducer == 91 || introducer == 79 else {  // not CSI or SS3: ESC then another key (Alt-x)
            return (.escape, 1)
        }
        // CSI/SS3: parameters (digits and ;) then one final byte in @…~.
        var j = s + 2
        while j < bytes.endIndex, (48...59).contains(bytes[j]) { j += 1 }
        guard j < bytes.endIndex else { return bytes.count > 16 ? (.unknown, bytes.count) : nil }
        let final = bytes[j]
        let parameters = String(decoding: bytes[(s + 2)..<j], as: UTF8.self)
        let length = j - s + 1
        guard (64...126).contains(final) else { return (.unknown, length) }
        let shifted = parameters.hasSuffix(";2")
        switch final {
        case 68: return (shifted ? .shiftLeft : .left, length)   // D
        case 67: return (shifted ? .shiftRight : .right, length) // C
        case 65: return (.up, length)
        case 66: return (.down, length)
        case 90: return (.shiftTab, length)                       // Z
        default: return (.unknown, length)
        }
    }

    static func character(_ bytes: ArraySlice<UInt8>) -> (Key, Int)? {
        let b = bytes[bytes.startIndex]
        let length: Int
        switch b {
        case 0..<0x80: length = 1
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return (.unknown, 1)  // never the first byte of a character
        }
        guard bytes.count >= length else { return nil }
        let slice = bytes[bytes.startIndex..<(bytes.startIndex + length)]
        let text = String(decoding: slice, as: UTF8.self)
        guard !text.unicodeScalars.contains("\u{FFFD}"), let scalar = text.unicodeScalars.first,
              !TerminalText.isControl(scalar) else { return (.unknown, length) }
        return (.character(text), length)
    }
}
