import Foundation
import FoundationXML

/// A strict reader of XML property lists: libxml2 (through FoundationXML's XMLParser)
/// decides well-formedness — content after the root element, two roots, a missing end
/// tag, NULs and other characters XML forbids are errors — and this builds the values,
/// refusing what a property list may not hold: unknown elements, text between values,
/// a key twice in one dictionary, nesting deeper than `PropertyList.Limits.depth`,
/// strings longer than `Limits.stringBytes`. Declarations of entities are refused
/// before libxml2 sees them (a plist's DTD declares none, so none can be expanded).
enum XMLPropertyList {
    static func read(_ input: [UInt8]) throws(PropertyListProblem) -> PropertyList {
        var bytes = input[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }  // a UTF-8 byte order mark
        guard let first = bytes.first(where: { !isSpace($0) }), first == UInt8(ascii: "<") else {
            throw PropertyListProblem(input.isEmpty ? "is empty" : "is neither an XML nor a binary property list")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw PropertyListProblem("is not UTF-8 text: an XML property list is read only as UTF-8")
        }
        // No NUL: XML allows none, and NULs would let libxml2 take the bytes for UTF-16 or UCS-4.
        guard !bytes.contains(0) else { throw PropertyListProblem("holds a NUL byte, a character XML does not allow") }
        if let problem = prologProblem(bytes) { throw PropertyListProblem(problem) }

        let builder = XMLPropertyListBuilder()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = builder
        parser.shouldResolveExternalEntities = false
        _ = parser.parse()  // its result misses some errors: the builder records every one
        return try builder.finish()
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// What the bytes may not hold before libxml2 sees them: an XML declaration that does not
    /// end or names an encoding other than UTF-8 (libxml2 would decode the bytes differently,
    /// and crashed switching to UTF-7), declarations of a DTD of its own (entities, which
    /// could expand), and processing instructions other than the XML declaration
    /// (FoundationXML's handler of an empty one dereferences NULL).
    static func prologProblem(_ bytes: ArraySlice<UInt8>) -> String? {
        // The XML declaration, whole, in the first KiB; every encoding it names is UTF-8 (libxml2
        // switches encodings as it reads the declaration, and crashes on some it cannot switch to).
        let head = bytes.prefix(1024)
        if head.starts(with: Array("<?xml".utf8)) {
            guard let end = head.indices.first(where: { head[$0] == UInt8(ascii: "?") && $0 + 1 < head.endIndex && head[$0 + 1] == UInt8(ascii: ">") })
            else { return "has an XML declaration (<?xml …) that does not end with ?>" }
            var declaration = String(decoding: head[..<end], as: UTF8.self)[...]
            while let e = declaration.range(of: "encoding") {
                let value = declaration[e.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
                    .prefix { $0 != "\"" && $0 != "'" }
                guard value.lowercased() == "utf-8" else {
                    return "declares the encoding \(TerminalText.quoted(value)); an XML property list is read only as UTF-8"
                }
                declaration = declaration[e.upperBound...]
            }
        }
        let declarations = ["<!ENTITY", "<!ELEMENT", "<!ATTLIST", "<!NOTATION"].map { Array($0.utf8) }
        let xmlDeclaration = Array("<?xml".utf8)
        var i = bytes.startIndex
        while let at = bytes[i...].firstIndex(of: UInt8(ascii: "<")) {
            let next = bytes.index(after: at)
            i = next
            guard next < bytes.endIndex else { break }
            if bytes[next] == UInt8(ascii: "?") {
                let after = at + xmlDeclaration.count
                if at == bytes.startIndex, bytes[at...].starts(with: xmlDeclaration), after < bytes.endIndex, isSpace(bytes[after]) { continue }
                return "holds a processing instruction (<?…?>) other than its XML declaration; a property list holds none"
            }
            if bytes[next] == UInt8(ascii: "!"), declarations.contains(where: { bytes[at...].starts(with: $0) }) {
                return "declares entities or elements of its own (a DTD inside the file); a property list may not"
            }
        }
        return nil
    }

    /// libxml2's error numbers (xmlerror.h) that a hostile manifest meets most, in words.
    static func describe(libxml2 code: Int) -> String {
        switch code {
        case 3, 4: "has no root element"
        case 5, 85, 86: "has content after its root element, or its root element is not closed"
        case 6, 7, 8, 9: "holds a character XML does not allow (a NUL, a control character)"
        case 23, 26, 27: "refers to an entity that is not one of XML's five (&amp; &lt; &gt; &quot; &apos;)"
        case 31, 32, 81: "holds bytes that are not in its encoding"
        case 73, 76, 77: "has an element that is not closed, or closed by the wrong end tag"
        default: "is not well-formed XML (libxml2 error \(code))"
        }
    }
}

/// Builds a property list from XMLParser's events, or records the first problem and stops.
private final class XMLPropertyListBuilder: NSObject, XMLParserDelegate {
    enum Frame {
        case plist(PropertyList?)
        case dictionary([String: PropertyList], key: String?)
        case array([PropertyList])
        /// `<key>`, `<string>`, `<integer>`, `<real>`, `<date>`, `<data>`: their text so far.
        case text(String, element: String)
        /// `<true/>` or `<false/>`.
        case boolean(Bool)
    }

    var stack: [Frame] = []
    var containers = 0
    var result: PropertyList?
    var problem: PropertyListProblem?

    /// The key path of what is being read: each dictionary's current key, each array's next index.
    var path: [KeyPathComponent] {
        stack.compactMap { frame in
            switch frame {
            case .dictionary(_, let key?): .key(key)
            case .array(let items): .index(items.count)
            default: nil
            }
        }
    }

    func fail(_ parser: XMLParser?, _ message: String, at path: [KeyPathComponent]? = nil) {
        guard problem == nil else { return }
        problem = PropertyListProblem(message, at: path ?? self.path)
        parser?.abortParsing()
    }

    func finish() throws(PropertyListProblem) -> PropertyList {
        if let problem { throw problem }
        guard let result, stack.isEmpty else { throw PropertyListProblem("ends before its root element is closed (no </plist>)") }
        return result
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String]) {
        guard problem == nil else { return }
        guard let top = stack.last else {
            if result != nil { return fail(parser, "has a second root element <\(name)>; a property list has one") }
            guard name == "plist" else { return fail(parser, "has the root element \(TerminalText.quoted("<" + name + ">")), not <plist>") }
            stack.append(.plist(nil))
            return
        }
        switch top {
        case .text(_, let element): return fail(parser, "has an element \(TerminalText.quoted("<" + name + ">")) inside <\(element)>")
        case .boolean(let b): return fail(parser, "has an element inside <\(b)/>")
        case .plist(let value?): return fail(parser, "holds \(value.kind) and then more in <plist>; a property list holds one value")
        case .dictionary(_, let key):
            if name == "key" {
                if let key { return fail(parser, "has no value for the key \(TerminalText.quoted(key))") }
                stack.append(.text("", element: "key"))
                return
            }
            if key == nil { return fail(parser, "has \(TerminalText.quoted("<" + name + ">")) in a dictionary where a <key> belongs") }
        case .plist(nil), .array: break
        }
        switch name {
        case "dict", "array":
            containers += 1
            guard containers <= PropertyList.Limits.depth else {
                return fail(parser, "nests dictionaries and arrays more than \(PropertyList.Limits.depth) deep")
            }
            stack.append(name == "dict" ? .dictionary([:], key: nil) : .array([]))
        case "string", "integer", "real", "date", "data": stack.append(.text("", element: name))
        case "true", "false": stack.append(.boolean(name == "true"))
        case "key": fail(parser, "has a <key> outside a dictionary")
        default: fail(parser, "has the element \(TerminalText.quoted("<" + name + ">")), which is not part of a property list")
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard problem == nil else { return }
        guard case .text(var text, let element)? = stack.last else {
            if string.utf8.contains(where: { !XMLPropertyList.isSpace($0) }) {
                fail(parser, "has text \(TerminalText.quoted(string)) outside a value (a <string>, a <key>…)")
            }
            return
        }
        guard text.utf8.count + string.utf8.count <= PropertyList.Limits.stringBytes else {
            return fail(parser, "has a <\(element)> longer than \(PropertyList.Limits.stringBytes) bytes")
        }
        stack.removeLast()  // so that `text` is the only reference, and grows in place
        text += string
        stack.append(.text(text, element: element))
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        self.parser(parser, foundCharacters: String(decoding: block, as: UTF8.self))
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard problem == nil, let frame = stack.popLast() else { return }
        let value: PropertyList
        switch frame {
        case .plist(let v):
            guard let v else { return fail(parser, "has an empty <plist>") }
            result = v
            return
        case .dictionary(let d, let key):
            if let key { stack.append(frame); return fail(parser, "has no value for the key \(TerminalText.quoted(key))") }
            containers -= 1
            value = .dictionary(d)
        case .array(let items):
            containers -= 1
            value = .array(items)
        case .boolean(let b):
            value = .boolean(b)
        case .text(let text, "key"):
            guard case .dictionary(let d, nil)? = stack.last else { return fail(parser, "has a <key> outside a dictionary") }
            if d[text] != nil { return fail(parser, "appears twice in one dictionary; a key may appear once", at: path + [.key(text)]) }
            stack[stack.count - 1] = .dictionary(d, key: text)
            return
        case .text(let text, let element):
            if let problem = XMLScalars.problem(in: text, element: element) { stack.append(frame); return fail(parser, problem) }
            value = XMLScalars.value(text, element: element)
        }
        switch stack.popLast() {
        case .plist(nil)?: stack.append(.plist(value))
        case .dictionary(var d, let key?)?:
            d[key] = value
            stack.append(.dictionary(d, key: nil))
        case .array(var items)?:
            items.append(value)
            stack.append(.array(items))
        default: fail(parser, "has a value where none belongs")
        }
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        fail(parser, "declares the entity \(TerminalText.quoted(name)); a property list may not")
    }

    func parser(_ parser: XMLParser, parseErrorOccurred error: any Error) {
        let code = (error as NSError).code
        let message = code == 5 && result != nil ? "has content after its root element </plist>" : XMLPropertyList.describe(libxml2: code)
        fail(parser, "\(message) (line \(parser.lineNumber), column \(parser.columnNumber))", at: [])
    }
}

/// The text of `<string>`, `<integer>`, `<real>`, `<date>` and `<data>`, checked as a conforming reader checks it.
enum XMLScalars {
    static func problem(in text: String, element: String) -> String? {
        guard ["integer", "real", "date", "data"].contains(element) else { return nil }
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = TerminalText.quoted(t)
        switch element {
        case "integer":
            let digits = t.hasPrefix("-") || t.hasPrefix("+") ? t.dropFirst() : t[...]
            let ok = digits.hasPrefix("0x") || digits.hasPrefix("0X")
                ? UInt64(digits.dropFirst(2), radix: 16) != nil : !digits.isEmpty && UInt64(digits) != nil
            return ok ? nil : "has the <integer> \(shown), which is not a 64-bit integer"
        case "real":
            return Double(t) != nil ? nil : "has the <real> \(shown), which is not a number"
        case "date":
            // ISO 8601 as property lists write it: 2001-01-01T00:00:00Z.
            let shape = Array("dddd-dd-ddTdd:dd:ddZ")
            let ok = t.count == shape.count && zip(t, shape).allSatisfy { c, s in s == "d" ? c.isASCII && c.isNumber : c == s }
            return ok ? nil : "has the <date> \(shown), which is not a date like 2001-01-01T00:00:00Z"
        case "data":
            let compact = t.filter { !$0.isWhitespace }
            return Data(base64Encoded: compact) != nil ? nil : "has <data> that is not base64"
        default:
            return nil
        }
    }

    static func value(_ text: String, element: String) -> PropertyList {
        switch element {
        case "integer": .other(.integer)
        case "real": .other(.real)
        case "date": .other(.date)
        case "data": .other(.data)
        default: .string(text)
        }
    }
}
