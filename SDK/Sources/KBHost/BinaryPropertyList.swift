/// A strict, bounded reader of binary property lists (bplist00), without recursion: the
/// trailer and the offset table are checked first, then the object graph is walked from
/// the top object with an explicit stack. Every offset and reference is checked against
/// the file, a reference back into the object's own contents (a cycle) is refused, and so
/// is nesting deeper than `PropertyList.Limits.depth` — also through objects shared by
/// several containers, whose height is remembered, so a small file of shared references
/// cannot make the walk exponential. Dictionary keys are strings, each once.
struct BinaryPropertyList {
    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let topObject: Int
    /// Where the offset table starts: every object lies in 8..<tableStart.
    private let tableStart: Int

    init(_ bytes: [UInt8]) throws(PropertyListProblem) {
        self.bytes = bytes
        guard bytes.count >= 8 + 1 + 32 else { throw Self.problem("is too short to hold an object and its trailer") }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw Self.problem("declares offsets of \(offsetSize) bytes and references of \(referenceSize); each must be 1 to 8")
        }
        let objects = Self.integer(bytes, at: trailer + 8, size: 8)
        let top = Self.integer(bytes, at: trailer + 16, size: 8)
        let table = Self.integer(bytes, at: trailer + 24, size: 8)
        guard objects >= 1, objects <= UInt64(trailer) else { throw Self.problem("declares \(objects) objects in \(bytes.count) bytes") }
        guard top < objects else { throw Self.problem("names object \(top) as its top, but has \(objects) objects") }
        // objects ≤ trailer < 1 MiB + 1, so the product cannot overflow.
        guard table >= 9, table <= UInt64(trailer), objects * UInt64(offsetSize) <= UInt64(trailer) - table else {
            throw Self.problem("has its offset table at byte \(table), which with \(objects) offsets does not fit before its trailer")
        }
        objectCount = Int(objects)
        topObject = Int(top)
        tableStart = Int(table)
    }

    /// A big-endian unsigned integer of `size` bytes (1 to 8) at `offset`, which the caller checked.
    private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        bytes[offset..<offset + size].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func problem(_ text: String, at path: [KeyPathComponent] = []) -> PropertyListProblem {
        PropertyListProblem("is a binary property list that " + text, at: path)
    }

    /// A container being read: its references (a dictionary's keys, then its values) and the values read so far.
    private struct Frame {
        let object: Int
        let isDictionary: Bool
        let references: [Int]
        let label: KeyPathComponent?
        var children: [PropertyList] = []
        var keys: Set<String> = []
        var height = 0
        /// Its bytes once read (`PropertyList.Limits.expandedBytes`): one, and its children's.
        var weight = 1
    }

    private enum Parsed {
        case value(PropertyList)
        case container(isDictionary: Bool, references: [Int])
    }

    func read() throws(PropertyListProblem) -> PropertyList {
        var stack: [Frame] = []
        var done: [Int: (value: PropertyList, height: Int, weight: Int)] = [:]
        var open: Set<Int> = []
        func path(_ last: KeyPathComponent?) -> [KeyPathComponent] { stack.compactMap(\.label) + (last.map { [$0] } ?? []) }

        /// The value of object `ref` if it is ready (a scalar, or a container read before); else its frame is pushed.
        func enter(_ ref: Int, label: KeyPathComponent?) throws(PropertyListProblem) -> (value: PropertyList, height: Int, weight: Int)? {
            guard ref < objectCount else {
                throw Self.problem("refers to object \(ref), but has \(objectCount) objects", at: path(label))
            }
            if let known = done[ref] {
                guard stack.count + known.height <= PropertyList.Limits.depth else {
                    throw Self.problem("nests dictionaries and arrays more than \(PropertyList.Limits.depth) deep", at: path(label))
                }
                return known
            }
            guard !open.contains(ref) else {
                throw Self.problem("refers to object \(ref) from inside itself (a cycle)", at: path(label))
            }
            switch try parse(ref, at: path(label)) {
            case .value(let value):
                let weight: Int
                switch value {
                case .string(let text): weight = 1 + text.utf8.count
                default: weight = 1  // (data is checked, then kept only as its kind)
                }
                done[ref] = (value, 0, weight)
                return (value, 0, weight)
            case .container(let isDictionary, let references):
                guard stack.count < PropertyList.Limits.depth else {
                    throw Self.problem("nests dictionaries and arrays more than \(PropertyList.Limits.depth) deep", at: path(label))
                }
                stack.append(Frame(object: ref, isDictionary: isDictionary, references: references, label: label))
                open.insert(ref)
                return nil
            }
        }

        var ready = try enter(topObject, label: nil)
        while true {
            if case let (value, height, weight)? = ready {
                guard var frame = stack.popLast() else { return value }
                // Counted as often as it is referred to: what it expands to, not what it is stored as.
                frame.weight += weight
                guard frame.weight <= PropertyList.Limits.expandedBytes else {
                    stack.append(frame)
                    throw Self.problem("holds more than \(PropertyList.Limits.expandedBytes >> 20) MiB once its shared objects are "
                                       + "counted each time they are referred to; a manifest is a few KiB", at: path(nil))
                }
                let half = frame.references.count / 2
                if frame.isDictionary && frame.children.count < half {
                    guard case .string(let key) = value else {
                        stack.append(frame)
                        throw Self.problem("has a dictionary key that is \(value.kind); keys are strings", at: path(nil))
                    }
                    guard frame.keys.insert(key).inserted else {
                        stack.append(frame)
                        throw Self.problem("has the key \(TerminalText.quoted(key)) twice in one dictionary", at: path(.key(key)))
                    }
                }
                frame.children.append(value)
                frame.height = max(frame.height, height)
                stack.append(frame)
            }
            let frame = stack[stack.count - 1]
            let next = frame.children.count
            if next < frame.references.count {
                let label: KeyPathComponent?
                if frame.isDictionary {
                    let half = frame.references.count / 2
                    if next < half { label = nil } else if case .string(let key) = frame.children[next - half] { label = .key(key) } else { label = nil }
                } else {
                    label = .index(next)
                }
                ready = try enter(frame.references[next], label: label)
                continue
            }
            stack.removeLast()
            open.remove(frame.object)
            let value: PropertyList
            if frame.isDictionary {
                let half = frame.references.count / 2
                var dictionary: [String: PropertyList] = [:]
                for i in 0..<half {
                    if case .string(let key) = frame.children[i] { dictionary[key] = frame.children[half + i] }
                }
                value = .dictionary(dictionary)
            } else {
                value = .array(frame.children)
            }
            done[frame.object] = (value, frame.height + 1, frame.weight)
            ready = (value, frame.height + 1, frame.weight)  // handed to its parent (the new top) above
        }
    }

    /// Checks that `count` bytes from `start` lie among the objects.
    private func need(_ start: Int, _ count: Int, object: Int, at path: [KeyPathComponent]) throws(PropertyListProblem) {
        guard count >= 0, start <= tableStart, count <= tableStart - start else {
            throw Self.problem("has object \(object) running past the end of its objects", at: path)
        }
    }

    /// The length of a data, string or container object whose marker is at `start` with low nibble `low`,
    /// and where its contents begin.
    private func length(_ start: Int, _ low: UInt8, object: Int, at path: [KeyPathComponent]) throws(PropertyListProblem) -> (Int, Int) {
        guard low == 0xF else { return (Int(low), start + 1) }
        try need(start + 1, 1, object: object, at: path)
        let marker = bytes[start + 1]
        guard marker >> 4 == 1, marker & 0xF <= 3 else {
            throw Self.problem("has object \(object) with a length that is not an integer", at: path)
        }
        let size = 1 << Int(marker & 0xF)
        try need(start + 2, size, object: object, at: path)
        let count = Self.integer(bytes, at: start + 2, size: size)
        guard count <= UInt64(bytes.count) else { throw Self.problem("has object \(object) claiming \(count) elements", at: path) }
        return (Int(count), start + 2 + size)
    }

    private func parse(_ ref: Int, at path: [KeyPathComponent]) throws(PropertyListProblem) -> Parsed {
        let entry = Self.integer(bytes, at: tableStart + ref * offsetSize, size: offsetSize)  // up to 2^64 - 1
        guard entry >= 8, entry < UInt64(tableStart) else {
            throw Self.problem("puts object \(ref) at byte \(entry), outside its objects (bytes 8 to \(tableStart - 1))", at: path)
        }
        let offset = Int(entry)
        let marker = bytes[offset]
        let (high, low) = (marker >> 4, marker & 0xF)
        switch high {
        case 0x0 where low == 0x8 || low == 0x9:
            return .value(.boolean(low == 0x9))
        case 0x1 where low <= 4:
            try need(offset + 1, 1 << Int(low), object: ref, at: path)
            return .value(.other(.integer))
        case 0x2 where low == 2 || low == 3:
            try need(offset + 1, 1 << Int(low), object: ref, at: path)
            return .value(.other(.real))
        case 0x3 where low == 3:
            try need(offset + 1, 8, object: ref, at: path)
            return .value(.other(.date))
        case 0x4, 0x5, 0x6:
            let (count, start) = try length(offset, low, object: ref, at: path)
            let size = high == 0x6 ? count * 2 : count
            try need(start, size, object: ref, at: path)
            guard size <= PropertyList.Limits.stringBytes else {
                throw Self.problem("has \(high == 0x4 ? "data" : "a string") longer than \(PropertyList.Limits.stringBytes) bytes", at: path)
            }
            let content = bytes[start..<start + size]
            switch high {
            case 0x4:
                return .value(.other(.data))
            case 0x5:
                guard content.allSatisfy({ $0 < 0x80 }) else { throw Self.problem("has an ASCII string with bytes that are not ASCII", at: path) }
                return .value(.string(String(decoding: content, as: UTF8.self)))
            default:
                let units = stride(from: start, to: start + size, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
                guard let s = String(validating: units, as: UTF16.self) else {
                    throw Self.problem("has a UTF-16 string that is not valid UTF-16", at: path)
                }
                return .value(.string(s))
            }
        case 0xA, 0xD:
            let (count, start) = try length(offset, low, object: ref, at: path)
            let references = high == 0xD ? count * 2 : count
            guard references <= tableStart else { throw Self.problem("has object \(ref) claiming \(count) elements", at: path) }
            try need(start, references * referenceSize, object: ref, at: path)
            var refs: [Int] = []
            refs.reserveCapacity(references)
            for i in 0..<references {  // each checked when it is followed (enter), with its key path
                refs.append(Int(clamping: Self.integer(bytes, at: start + i * referenceSize, size: referenceSize)))
            }
            return .container(isDictionary: high == 0xD, references: refs)
        default:
            throw Self.problem("has object \(ref) of a kind a manifest does not hold (marker 0x\(String(marker, radix: 16)): "
                               + "null, a set, a UID or another kind)", at: path)
        }
    }
}
