import Foundation
import KBHost
import Testing

/// A binary property list built object by object (references 2 bytes, offsets 4), so a
/// test can give it exactly one flaw: a cycle, an offset or a reference out of range…
struct BinaryPlist {
    var objects: [[UInt8]] = []

    static func head(_ kind: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0xF, 0x13] + bigEndian(UInt64(count), 8)
    }

    static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }

    @discardableResult mutating func add(_ bytes: [UInt8] = []) -> Int {
        objects.append(bytes)
        return objects.count - 1
    }

    mutating func string(_ s: String) -> Int { add(Self.head(0x5, s.utf8.count) + Array(s.utf8)) }
    mutating func bool(_ b: Bool) -> Int { add([b ? 0x09 : 0x08]) }

    static func refs(_ refs: [Int]) -> [UInt8] { refs.flatMap { bigEndian(UInt64($0), 2) } }

    @discardableResult mutating func array(_ refs: [Int], at index: Int? = nil) -> Int {
        let bytes = Self.head(0xA, refs.count) + Self.refs(refs)
        guard let index else { return add(bytes) }
        objects[index] = bytes
        return index
    }

    @discardableResult mutating func dictionary(_ pairs: [(Int, Int)], at index: Int? = nil) -> Int {
        let bytes = Self.head(0xD, pairs.count) + Self.refs(pairs.map(\.0)) + Self.refs(pairs.map(\.1))
        guard let index else { return add(bytes) }
        objects[index] = bytes
        return index
    }

    mutating func dictionary(_ pairs: [(String, Int)]) -> Int { dictionary(pairs.map { (string($0.0), $0.1) }) }

    /// The top object of a valid manifest, with `extra` pairs after its keys.
    mutating func manifest(_ extra: [(String, Int)] = []) -> Int {
        let attributes = dictionary([("PrimaryLanguage", string("en-US"))])
        let ext = dictionary([("NSExtensionPointIdentifier", string("com.apple.keyboard-service")),
                              ("NSExtensionPrincipalClass", string("K")), ("NSExtensionAttributes", attributes)])
        return dictionary([("CFBundleIdentifier", string("dev.example.Bin")), ("CFBundleExecutable", string("libK.so")),
                           ("NSExtension", ext)] + extra)
    }

    /// A valid manifest with `extra` pairs, as bytes (`bytes(top: b.manifest())` would read `b` before `manifest` changes it).
    mutating func manifestBytes(_ extra: [(String, Int)] = []) -> [UInt8] {
        let top = manifest(extra)
        return bytes(top: top)
    }

    func bytes(top: Int, objectCount: UInt64? = nil, table: UInt64? = nil, offsetSize: UInt8 = 4,
               offsets: [Int: UInt64] = [:]) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var positions: [Int] = []
        for object in objects {
            positions.append(out.count)
            out += object
        }
        let start = out.count
        for (i, p) in positions.enumerated() { out += Self.bigEndian(offsets[i] ?? UInt64(p), Int(offsetSize)) }
        out += [0, 0, 0, 0, 0, 0, offsetSize, 2]
        out += Self.bigEndian(objectCount ?? UInt64(objects.count), 8) + Self.bigEndian(UInt64(top), 8)
        out += Self.bigEndian(table ?? UInt64(start), 8)
        return out
    }
}

@Suite("Keyboard manifests: binary property lists, walked within bounds")
struct BinaryManifestTests {
    func error(_ bytes: [UInt8]) -> ManifestError? {
        do { _ = try KeyboardManifest.decode(bytes, path: "/b/Info.plist"); return nil } catch { return error }
    }

    /// A binary failure is a sentence that says "binary property list", not "BPlistError error 0".
    func expectRefused(_ bytes: [UInt8], _ expected: String, keyPath: String? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        guard let e = error(bytes) else { Issue.record("accepted", sourceLocation: sourceLocation); return }
        #expect(e.problem.hasPrefix("is a binary property list that "), "\(e)", sourceLocation: sourceLocation)
        #expect(e.problem.contains(expected), "\(e)", sourceLocation: sourceLocation)
        #expect(e.keyPath == keyPath, "\(e)", sourceLocation: sourceLocation)
        #expect(!e.description.contains("BPlistError") && e.description.count < 300, sourceLocation: sourceLocation)
    }

    @Test func aBuiltOneAndFoundationsOwnAreRead() throws {
        var b = BinaryPlist()
        let top = b.manifest()
        #expect(try KeyboardManifest.decode(b.bytes(top: top), path: "/b/Info.plist").bundleIdentifier == "dev.example.Bin")
        let object: [String: Any] = ["CFBundleIdentifier": "dev.example.Found", "CFBundleExecutable": "libF.so",
                                     "NSExtension": ["NSExtensionPointIdentifier": "com.apple.keyboard-service",
                                                     "NSExtensionPrincipalClass": "F", "NSExtensionAttributes": ["IsASCIICapable": true]],
                                     "Other": [1, 2.5, Date(timeIntervalSince1970: 0), Data([1, 2]), "ünïcödé"]]
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        #expect(try KeyboardManifest.decode(data, path: "/b/Info.plist").isASCIICapable)
    }

    /// `levels` arrays in one another under the key Z; with `shared`, each holds the next twice.
    func nested(_ levels: Int, shared: Bool = false) -> [UInt8] {
        var b = BinaryPlist()
        var inner = b.array([])
        for _ in 1..<levels { inner = b.array(shared ? [inner, inner] : [inner]) }
        return b.manifestBytes([("Z", inner)])
    }

    @Test func depthIsBoundedAlsoThroughSharedObjects() throws {
        #expect(error(nested(31)) == nil, "the root and 31 arrays")
        expectRefused(nested(32), "more than 32 deep", keyPath: "Z" + String(repeating: "[0]", count: 31))
        expectRefused(nested(10_000), "more than 32 deep", keyPath: "Z" + String(repeating: "[0]", count: 31))
        // 2^31 paths through 31 shared arrays: read once each, so at once; and refused, since what a manifest
        // holds once read counts a shared object each time it is referred to (twenty-fifth red team); 2^11 are fine.
        let start = Date()
        #expect(error(nested(12, shared: true)) == nil)
        expectRefused(nested(31, shared: true), "more than 1 MiB once its shared objects are counted", keyPath: "Z" + String(repeating: "[0]", count: 10))
        expectRefused(nested(32, shared: true), "more than 32 deep", keyPath: "Z" + String(repeating: "[0]", count: 31))
        #expect(Date().timeIntervalSince(start) < 2)
    }

    @Test func cyclesAreRefused() throws {
        var b = BinaryPlist()
        let selfish = b.add()
        b.array([selfish], at: selfish)
        expectRefused(b.manifestBytes([("Z", selfish)]), "refers to object \(selfish) from inside itself", keyPath: "Z[0]")
        var c = BinaryPlist()
        let a = c.add(), d = c.add()
        c.array([d], at: a)
        c.dictionary([(c.string("back"), a)], at: d)
        expectRefused(c.manifestBytes([("Z", a)]), "(a cycle)", keyPath: "Z[0].back")
        var r = BinaryPlist()
        let root = r.add()
        r.dictionary([(r.string("me"), root)], at: root)
        expectRefused(r.bytes(top: root), "(a cycle)", keyPath: "me")
    }

    @Test func offsetsReferencesAndTheTrailerAreChecked() throws {
        var b = BinaryPlist()
        let top = b.manifest()
        let count = UInt64(b.objects.count)
        let language = "NSExtension.NSExtensionAttributes.PrimaryLanguage"  // object 0
        expectRefused(b.bytes(top: top, offsets: [0: 1_000_000]), "puts object 0 at byte 1000000, outside its objects", keyPath: language)
        expectRefused(b.bytes(top: top, offsets: [0: 3]), "outside its objects", keyPath: language)
        // An 8-byte offset past Int.max trapped (found by scripts/fuzz-manifests; kept in regressions/).
        expectRefused(b.bytes(top: top, offsetSize: 8, offsets: [0: .max]), "puts object 0 at byte 18446744073709551615", keyPath: language)
        expectRefused(b.bytes(top: Int(count) + 5), "names object \(count + 5) as its top")
        expectRefused(b.bytes(top: top, objectCount: 1 << 63), "declares 9223372036854775808 objects")
        expectRefused(b.bytes(top: top, table: 1 << 40), "does not fit before its trailer")
        expectRefused(b.bytes(top: top, offsetSize: 0), "each must be 1 to 8")
        var r = BinaryPlist()
        expectRefused(r.manifestBytes([("Z", 60_000)]), "refers to object 60000", keyPath: "Z")
        let full = b.bytes(top: top)
        for cut in [9, 40, full.count / 2, full.count - 33, full.count - 1] {
            #expect(error(Array(full.prefix(cut))) != nil, "cut at \(cut)")
        }
        expectRefused(Array("bplist00".utf8), "too short")
    }

    @Test func keysAreStringsEachOnce() throws {
        var b = BinaryPlist()
        let other = b.string("dev.example.Other")
        expectRefused(b.manifestBytes([("CFBundleIdentifier", other)]),
                      "has the key 'CFBundleIdentifier' twice", keyPath: "CFBundleIdentifier")
        var s = BinaryPlist()
        let key = s.string("Z")
        let twice = s.dictionary([(key, s.bool(true)), (key, s.bool(false))])
        expectRefused(s.manifestBytes([("Z", twice)]), "has the key 'Z' twice", keyPath: "Z.Z")
        var i = BinaryPlist()
        let number = i.add([0x10, 7])
        let keyedByNumber = i.dictionary([(number, i.bool(true))])
        expectRefused(i.manifestBytes([("Z", keyedByNumber)]), "key that is an integer", keyPath: "Z")
    }

    @Test func lengthsKindsAndStringsAreChecked() throws {
        /// A manifest whose key Z holds `object`, the last object before the offset table.
        func with(_ object: [UInt8]) -> [UInt8] {
            var probe = BinaryPlist()
            _ = probe.manifest([("Z", 0)])
            var b = BinaryPlist()
            let top = b.manifest([("Z", probe.objects.count)])
            b.add(object)
            return b.bytes(top: top)
        }
        expectRefused(with([0x5F, 0x13] + BinaryPlist.bigEndian(1 << 62, 8)), "claiming", keyPath: "Z")
        expectRefused(with([0xAF, 0x13] + BinaryPlist.bigEndian(1 << 61, 8)), "claiming", keyPath: "Z")
        expectRefused(with([0x5E] + Array("short".utf8)), "running past the end of its objects", keyPath: "Z")
        expectRefused(with([0x5F, 0x44]), "a length that is not an integer", keyPath: "Z")
        expectRefused(with(BinaryPlist.head(0x5, 70_000) + Array(repeating: 0x61, count: 70_000)), "longer than 65536 bytes", keyPath: "Z")
        expectRefused(with([0x61, 0xD8, 0x00]), "not valid UTF-16", keyPath: "Z")
        expectRefused(with([0x52, 0xC3, 0xA9]), "not ASCII", keyPath: "Z")
        for marker: [UInt8] in [[0x00], [0x0F], [0xC0], [0x80, 0x01], [0x71, 0x61], [0x15] + Array(repeating: 0, count: 32)] {
            expectRefused(with(marker), "of a kind a manifest does not hold", keyPath: "Z")
        }
        #expect(error(with([0x61, 0x00, 0xE9])) == nil, "UTF-16 is read")
    }

    @Test func typesAreCheckedWithKeyPaths() throws {
        var b = BinaryPlist()
        let paths = b.array([b.string("/usr/share/k"), b.add([0x10, 7])])
        let e = try #require(error(b.manifestBytes([("KBHostReadOnlyPaths", paths)])))
        #expect(e.description == "/b/Info.plist: KBHostReadOnlyPaths[1] expected a string, found an integer")
        #expect(try #require(error(Array("bplist15".utf8) + Array(repeating: 0, count: 40))).problem.contains("version '15'"))
    }
}
