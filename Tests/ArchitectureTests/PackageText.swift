/// Package.swift read as text: the targets in `Package(targets: [...])`, each
/// with its target and product dependencies and the line it is declared on.
/// Not a Swift parser: enough of one for a manifest written the way ours is
/// (string literals, `//` and `/* */` comments, nested calls and arrays).
struct PackageText {
    struct Target: Equatable {
        /// `target`, `executableTarget`, `testTarget`, `systemLibrary`, …
        var kind: String
        var name: String
        /// Dependencies that name a target of this package (string literals, `.target(name:)`, `.byName(name:)`).
        var targets: [String]
        /// `.product(name:package:)` dependencies, and string literals that name no target here.
        var products: [String]
        var path: String?
        var line: Int
        /// The manifest that declares it, for messages ("Package.swift", "SDK/Package.swift").
        var file = "Package.swift"
        /// Where it is declared: `SDK/Package.swift:40`.
        var location: String { "\(file):\(line)" }

        /// Where its sources are: `path:`, or SwiftPM's default folder.
        var sourceFolder: String { path ?? (kind == "testTarget" ? "Tests/\(name)" : "Sources/\(name)") }
        var isTest: Bool { kind == "testTarget" }
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    struct Product: Equatable {
        var name: String
        var targets: [String]
    }

    let targets: [Target]
    /// The `products:` the manifest declares (libraries and executables).
    var products: [Product] = []
    /// How many packages it depends on (`dependencies:` of `Package(...)`).
    var packageDependencies = 0

    init(_ text: String, file: String = "Package.swift") throws(ParseError) {
        let scanner = Scanner(Array(text.utf8))
        guard let call = scanner.find("Package(") else {
            throw ParseError(description: "\(file): no `Package(` call")
        }
        let open = call + "Package".utf8.count
        let args = try scanner.splitTopLevel(open + 1, scanner.matching(open))
        guard let targetsArgument = args.first(where: { scanner.label(of: $0) == "targets" }),
              let arrayOpen = scanner.firstIndex(of: UInt8(ascii: "["), in: targetsArgument) else {
            throw ParseError(description: "\(file): no `targets: [` argument in Package(...)")
        }
        var declared: [Target] = []
        for element in try scanner.splitTopLevel(arrayOpen + 1, scanner.matching(arrayOpen)) {
            guard let call = try scanner.call(element) else {
                throw ParseError(description: "\(file):\(scanner.line(at: element.lowerBound)): cannot read this target declaration")
            }
            var target = Target(kind: call.name, name: "", targets: [], products: [], path: nil, line: scanner.line(at: element.lowerBound),
                                file: file)
            for argument in call.arguments {
                switch scanner.label(of: argument) {
                case "name": target.name = scanner.stringLiteral(scanner.value(of: argument)) ?? ""
                case "path": target.path = scanner.stringLiteral(scanner.value(of: argument))
                case "dependencies":
                    let value = scanner.value(of: argument)
                    guard let listOpen = scanner.firstIndex(of: UInt8(ascii: "["), in: value) else { continue }
                    for dependency in try scanner.splitTopLevel(listOpen + 1, scanner.matching(listOpen)) {
                        if let literal = scanner.stringLiteral(dependency) {
                            target.targets.append(literal)  // by name: settled below
                        } else if let inner = try scanner.call(dependency),
                                  let nameArgument = inner.arguments.first(where: { scanner.label(of: $0) == "name" }),
                                  let name = scanner.stringLiteral(scanner.value(of: nameArgument)) {
                            if inner.name == "product" { target.products.append(name) } else { target.targets.append(name) }
                        } else {
                            throw ParseError(description: "\(file):\(scanner.line(at: dependency.lowerBound)): cannot read this dependency")
                        }
                    }
                default: break
                }
            }
            guard !target.name.isEmpty else {
                throw ParseError(description: "\(target.location): a target declaration without a name")
            }
            declared.append(target)
        }
        if let argument = args.first(where: { scanner.label(of: $0) == "dependencies" }),
           let listOpen = scanner.firstIndex(of: UInt8(ascii: "["), in: argument) {
            packageDependencies = try scanner.splitTopLevel(listOpen + 1, scanner.matching(listOpen)).count
        }
        if let argument = args.first(where: { scanner.label(of: $0) == "products" }),
           let listOpen = scanner.firstIndex(of: UInt8(ascii: "["), in: argument) {
            for element in try scanner.splitTopLevel(listOpen + 1, scanner.matching(listOpen)) {
                guard let call = try scanner.call(element),
                      let name = call.arguments.first(where: { scanner.label(of: $0) == "name" })
                          .flatMap({ scanner.stringLiteral(scanner.value(of: $0)) }),
                      let list = call.arguments.first(where: { scanner.label(of: $0) == "targets" }),
                      let open = scanner.firstIndex(of: UInt8(ascii: "["), in: scanner.value(of: list)) else {
                    throw ParseError(description: "\(file):\(scanner.line(at: element.lowerBound)): cannot read this product")
                }
                let names = try scanner.splitTopLevel(open + 1, scanner.matching(open)).compactMap { scanner.stringLiteral($0) }
                products.append(Product(name: name, targets: names))
            }
        }
        // A string literal names a target if there is one of that name, else a product (SwiftPM's byName).
        let names = Set(declared.map(\.name))
        targets = declared.map { target in
            var target = target
            target.products += target.targets.filter { !names.contains($0) }
            target.targets = target.targets.filter { names.contains($0) }
            return target
        }
    }
}

/// Bytes of Swift source, with the few moves the manifest reader needs. Every
/// scan skips string literals and comments.
private struct Scanner {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    struct Call { var name: String; var arguments: [Range<Int>] }

    func line(at index: Int) -> Int { bytes[..<min(index, bytes.count)].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) } }

    func find(_ needle: String) -> Int? {
        let n = Array(needle.utf8)
        var i = 0
        while i + n.count <= bytes.count {
            if let skipped = skipTrivia(i), skipped != i { i = skipped; continue }
            if bytes[i] == UInt8(ascii: "\"") { i = endOfString(i); continue }
            if bytes[i..<i + n.count].elementsEqual(n) { return i }
            i += 1
        }
        return nil
    }

    /// Past a comment starting at `i`, or nil if none starts there.
    private func skipTrivia(_ i: Int) -> Int? {
        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "/") else { return nil }
        if bytes[i + 1] == UInt8(ascii: "/") {
            var j = i
            while j < bytes.count && bytes[j] != 0x0A { j += 1 }
            return j
        }
        if bytes[i + 1] == UInt8(ascii: "*") {
            var j = i + 2
            while j + 1 < bytes.count && !(bytes[j] == UInt8(ascii: "*") && bytes[j + 1] == UInt8(ascii: "/")) { j += 1 }
            return min(j + 2, bytes.count)
        }
        return nil
    }

    /// Past the string literal that opens at `i` (`"…"` or `"""…"""`).
    private func endOfString(_ i: Int) -> Int {
        let quote = UInt8(ascii: "\"")
        if i + 2 < bytes.count && bytes[i + 1] == quote && bytes[i + 2] == quote {
            var j = i + 3
            while j + 2 < bytes.count && !(bytes[j] == quote && bytes[j + 1] == quote && bytes[j + 2] == quote) { j += 1 }
            return min(j + 3, bytes.count)
        }
        var j = i + 1
        while j < bytes.count && bytes[j] != quote && bytes[j] != 0x0A {
            j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1
        }
        return min(j + 1, bytes.count)
    }

    /// The index of the bracket that closes the one at `open`.
    func matching(_ open: Int) throws(PackageText.ParseError) -> Int {
        var depth = 0
        var i = open
        while i < bytes.count {
            if let skipped = skipTrivia(i) { i = skipped; continue }
            switch bytes[i] {
            case UInt8(ascii: "\""): i = endOfString(i); continue
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { return i }
            default: break
            }
            i += 1
        }
        throw PackageText.ParseError(description: "Package.swift:\(line(at: open)): this bracket is never closed")
    }

    /// The comma-separated items between `start` and `end`, each without the
    /// comments and white space around it; empty items (a trailing comma) dropped.
    func splitTopLevel(_ start: Int, _ end: Int) throws(PackageText.ParseError) -> [Range<Int>] {
        var items: [Range<Int>] = []
        var itemStart = start
        var significantEnd = start  // just past the item's last byte that is not white space or comment
        var i = start
        func close() {
            let item = trimmed(itemStart..<max(itemStart, significantEnd))
            if !item.isEmpty { items.append(item) }
        }
        while i < end {
            if let skipped = skipTrivia(i) { i = skipped; continue }
            switch bytes[i] {
            case UInt8(ascii: "\""):
                i = endOfString(i)
                significantEnd = i
                continue
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                i = try matching(i) + 1
                significantEnd = i
                continue
            case UInt8(ascii: ","):
                close()
                itemStart = i + 1
            case 0x20, 0x0A, 0x09, 0x0D: break
            default: significantEnd = i + 1
            }
            i += 1
        }
        close()
        return items
    }

    /// The range without leading and trailing white space and comments.
    func trimmed(_ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        while lower < range.upperBound {
            if let skipped = skipTrivia(lower) { lower = skipped; continue }
            guard bytes[lower] == 0x20 || bytes[lower] == 0x0A || bytes[lower] == 0x09 || bytes[lower] == 0x0D else { break }
            lower += 1
        }
        var upper = range.upperBound
        while upper > lower, [0x20, 0x0A, 0x09, 0x0D].contains(bytes[upper - 1]) { upper -= 1 }
        return lower..<max(lower, upper)
    }

    func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        var i = range.lowerBound
        while i < range.upperBound {
            if bytes[i] == UInt8(ascii: "\"") { i = endOfString(i); continue }
            if bytes[i] == byte { return i }
            i += 1
        }
        return nil
    }

    private func isIdentifier(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_")
    }

    /// `label` of an argument `label: value`, or nil.
    func label(of argument: Range<Int>) -> String? {
        var i = argument.lowerBound
        while i < argument.upperBound && isIdentifier(bytes[i]) { i += 1 }
        guard i > argument.lowerBound, i < argument.upperBound, bytes[i] == UInt8(ascii: ":") else { return nil }
        return String(decoding: bytes[argument.lowerBound..<i], as: UTF8.self)
    }

    /// The value of an argument, without its label.
    func value(of argument: Range<Int>) -> Range<Int> {
        guard let label = label(of: argument) else { return argument }
        return trimmed(argument.lowerBound + label.utf8.count + 1..<argument.upperBound)
    }

    /// The contents of a range that is exactly one plain string literal.
    func stringLiteral(_ range: Range<Int>) -> String? {
        let r = trimmed(range)
        guard r.count >= 2, bytes[r.lowerBound] == UInt8(ascii: "\""), endOfString(r.lowerBound) == r.upperBound else { return nil }
        return String(decoding: bytes[r.lowerBound + 1..<r.upperBound - 1], as: UTF8.self)
    }

    /// `.name(arguments…)`, or nil if the range is not one such call.
    func call(_ range: Range<Int>) throws(PackageText.ParseError) -> Call? {
        let r = trimmed(range)
        guard r.count > 1, bytes[r.lowerBound] == UInt8(ascii: ".") else { return nil }
        var i = r.lowerBound + 1
        while i < r.upperBound && isIdentifier(bytes[i]) { i += 1 }
        guard i < r.upperBound, bytes[i] == UInt8(ascii: "("), try matching(i) == r.upperBound - 1 else { return nil }
        return Call(name: String(decoding: bytes[r.lowerBound + 1..<i], as: UTF8.self),
                    arguments: try splitTopLevel(i + 1, r.upperBound - 1))
    }
}
