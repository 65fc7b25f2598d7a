import Foundation

/// A property list as kbhost reads manifests: built by kbhost's own strict readers
/// (`XMLPropertyList`, `BinaryPropertyList`), never by Foundation's, whose recursive
/// parsers a deep file crashes and whose lenient XML accepts what libxml2 rejects.
/// What was checked is exactly what is decoded: there is no second parser to disagree.
enum PropertyList: Sendable, Equatable {
    case dictionary([String: PropertyList])
    case array([PropertyList])
    case string(String)
    case boolean(Bool)
    /// An integer, a real, a date or data: checked, then kept only as its kind (kbhost reads none).
    case other(Kind)

    enum Kind: String, Sendable {
        case integer = "an integer", real = "a real number", date = "a date", data = "data"
    }

    /// What this is, for errors: "a dictionary", "an array", "a string"…
    var kind: String {
        switch self {
        case .dictionary: "a dictionary"
        case .array: "an array"
        case .string: "a string"
        case .boolean: "a boolean"
        case .other(let kind): kind.rawValue
        }
    }

    /// The limits every manifest is read within, before anything else looks at it.
    enum Limits {
        /// The largest manifest read (a real Info.plist is a few KiB).
        static let bytes = 1 << 20
        /// Dictionaries and arrays inside one another, the root included.
        static let depth = 32
        /// The longest string, key or data value, in bytes (UTF-8 for XML, as stored for binary).
        static let stringBytes = 64 << 10
        /// The most a manifest may hold once read, in bytes of its strings and data and one per value: a
        /// binary one refers to one object as often as it likes, and 80 KB naming one 60 KB path 20,000
        /// times made every `kbhost` command that read it take 6–36 s (twenty-fifth red team, H).
        static let expandedBytes = 1 << 20
    }

    /// Reads a manifest's bytes: a binary property list (bplist00) or an XML one, within `Limits`.
    static func read(_ bytes: [UInt8]) throws(PropertyListProblem) -> PropertyList {
        guard bytes.count <= Limits.bytes else {
            throw PropertyListProblem("is \(bytes.count) bytes long; a manifest is at most \(Limits.bytes) bytes (1 MiB)")
        }
        if bytes.starts(with: Array("bplist".utf8)) {
            guard bytes.starts(with: Array("bplist00".utf8)) else {
                let version = String(decoding: bytes.dropFirst(6).prefix(2), as: UTF8.self)
                throw PropertyListProblem("is a binary property list of version \(TerminalText.quoted(version)); kbhost reads version 00 (bplist00)")
            }
            return try BinaryPropertyList(bytes).read()
        }
        return try XMLPropertyList.read(bytes)
    }
}

/// One step of a key path: a dictionary's key or an array's index.
enum KeyPathComponent: Sendable, Equatable {
    case key(String)
    case index(Int)

    /// A key path as plutil writes it: keys joined by dots, indexes in brackets
    /// (`NSExtension.NSExtensionAttributes.PrimaryLanguage`, `KBHostReadOnlyPaths[0]`);
    /// each key cut to 100 characters, so that a huge key cannot make a huge message.
    static func render(_ path: [KeyPathComponent]) -> String? {
        guard !path.isEmpty else { return nil }
        var text = ""
        for component in path {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += key.count > 100 ? String(key.prefix(100)) + "…" : key
            case .index(let i):
                text += "[\(i)]"
            }
        }
        return text
    }
}

/// What is wrong with a property list, and where: its key path, and what was expected.
struct PropertyListProblem: Error, Equatable {
    var path: [KeyPathComponent]
    var problem: String

    init(_ problem: String, at path: [KeyPathComponent] = []) {
        self.path = path
        self.problem = problem
    }

    /// As a manifest's error, naming its file.
    func manifestError(file: String) -> ManifestError {
        ManifestError(file: file, keyPath: KeyPathComponent.render(path), problem: problem)
    }
}

/// A dictionary of a property list with the key path that led to it, read the way a
/// manifest's keys are: each value of the expected type, or an error naming its key path.
struct PropertyListFields {
    let values: [String: PropertyList]
    let path: [KeyPathComponent]

    init(_ value: PropertyList, path: [KeyPathComponent] = []) throws(PropertyListProblem) {
        guard case .dictionary(let values) = value else {
            throw PropertyListProblem(path.isEmpty ? "holds \(value.kind) at its root; a manifest is a dictionary"
                                                   : "expected a dictionary, found \(value.kind)", at: path)
        }
        self.values = values
        self.path = path
    }

    private func value(_ key: String, required: Bool) throws(PropertyListProblem) -> PropertyList? {
        guard let value = values[key] else {
            if required { throw PropertyListProblem("is missing", at: path + [.key(key)]) }
            return nil
        }
        return value
    }

    private func mismatch(_ key: String, expected: String, found: PropertyList) -> PropertyListProblem {
        PropertyListProblem("expected \(expected), found \(found.kind)", at: path + [.key(key)])
    }

    func string(_ key: String, required: Bool = false) throws(PropertyListProblem) -> String? {
        guard let value = try value(key, required: required) else { return nil }
        guard case .string(let s) = value else { throw mismatch(key, expected: "a string", found: value) }
        return s
    }

    func bool(_ key: String) throws(PropertyListProblem) -> Bool? {
        guard let value = try value(key, required: false) else { return nil }
        guard case .boolean(let b) = value else { throw mismatch(key, expected: "a boolean (<true/> or <false/>)", found: value) }
        return b
    }

    func dictionary(_ key: String, required: Bool = false) throws(PropertyListProblem) -> PropertyListFields? {
        guard let value = try value(key, required: required) else { return nil }
        guard case .dictionary = value else { throw mismatch(key, expected: "a dictionary", found: value) }
        return try PropertyListFields(value, path: path + [.key(key)])
    }

    func strings(_ key: String) throws(PropertyListProblem) -> [String]? {
        guard let value = try value(key, required: false) else { return nil }
        guard case .array(let items) = value else { throw mismatch(key, expected: "an array of strings", found: value) }
        var result: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else {
                throw PropertyListProblem("expected a string, found \(item.kind)", at: path + [.key(key), .index(i)])
            }
            result.append(s)
        }
        return result
    }
}
