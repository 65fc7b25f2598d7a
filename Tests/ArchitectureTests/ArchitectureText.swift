/// ARCHITECTURE.md's machine-readable parts: the lines of its ```` ```text module-map ````
/// and ```` ```text rules ```` blocks, each with its line number.
struct ArchitectureText {
    struct Entry: Equatable {
        var name: String
        var group: String
        var targets: [String]
        var products: [String]
        var line: Int
    }

    struct Rule: Equatable {
        /// A target or a group.
        var subject: String
        /// Targets it must not reach, or modules (not targets) no file of it may import.
        var forbidden: [String]
        var line: Int
        var text: String
    }

    var entries: [Entry] = []
    var rules: [Rule] = []
    /// Lines of the map that are not `name group dependencies`.
    var unreadable: [String] = []
    /// The lines the map starts and ends on (its fences), for messages.
    var mapLines: ClosedRange<Int>?

    init(_ text: String) {
        var block: String?
        var opened = 0
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = raw.trimmingWhitespace
            if line.hasPrefix("```") {
                if block == nil {
                    let info = line.dropFirst(3).split(separator: " ").map(String.init)
                    block = info.count >= 2 ? info[1] : ""
                    opened = number
                } else {
                    if block == "module-map" { mapLines = opened...number }
                    block = nil
                }
                continue
            }
            guard let block, !line.isEmpty, !line.hasPrefix("#") else { continue }
            switch block {
            case "module-map":
                let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
                guard words.count == 3 else {
                    unreadable.append("ARCHITECTURE.md:\(number): `\(line)` is not `NAME GROUP DEPENDENCIES` (`-` for none)")
                    continue
                }
                let sides = words[2].split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false)
                entries.append(Entry(name: words[0], group: words[1], targets: Self.names(sides[0]),
                                     products: sides.count > 1 ? Self.names(sides[1]) : [], line: number))
            case "rules":
                let parts = line.split(separator: " never reaches ", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else {
                    unreadable.append("ARCHITECTURE.md:\(number): `\(line)` is not `SUBJECT never reaches NAME, NAME…`")
                    continue
                }
                rules.append(Rule(subject: parts[0].trimmingWhitespace, forbidden: Self.names(parts[1]), line: number, text: line))
            default: continue
            }
        }
    }

    private static func names(_ list: Substring) -> [String] {
        list.split(separator: ",").map(\.trimmingWhitespace).filter { !$0.isEmpty && $0 != "-" }
    }

    /// How a map line should read: the columns as wide as the map's own.
    static func line(name: String, group: String, targets: [String], products: [String]) -> String {
        var text = name.padded(to: 22) + group.padded(to: 12) + (targets.isEmpty ? "-" : targets.joined(separator: ", "))
        if !products.isEmpty { text += " + " + products.joined(separator: ", ") }
        return text
    }
}

extension StringProtocol {
    var trimmingWhitespace: String {
        String(drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }

    func padded(to width: Int) -> String {
        count + 1 >= width ? String(self) + " " : String(self) + String(repeating: " ", count: width - count)
    }
}
