/// What ARCHITECTURE.md says against what Package.swift and the sources do.
/// Every problem is one message that names the line to change and says how.
enum ArchitectureCheck {
    /// The groups the module map may use (ARCHITECTURE.md, "Module map").
    static let groups: Set<String> = ["pure", "system", "frontend", "sandbox", "abi", "extension", "host", "sdk", "testing",
                                      "executable", "plugin", "test"]

    /// One `import` line of a Swift file.
    struct Import: Equatable {
        var file: String
        var line: Int
        var module: String
    }

    // MARK: The module map

    static func mapProblems(_ map: ArchitectureText, _ package: PackageText) -> [String] {
        var problems = map.unreadable
        let where_ = map.mapLines.map { "the module map (ARCHITECTURE.md:\($0.lowerBound)–\($0.upperBound))" } ?? "ARCHITECTURE.md (it has no ```text module-map block)"
        var seen: [String: Int] = [:]
        for entry in map.entries {
            if let first = seen[entry.name] {
                problems.append("ARCHITECTURE.md:\(entry.line): `\(entry.name)` is already described on line \(first); remove one of the two lines")
            }
            seen[entry.name] = seen[entry.name] ?? entry.line
            if !groups.contains(entry.group) {
                problems.append("ARCHITECTURE.md:\(entry.line): `\(entry.group)` is not a group; use one of \(groups.sorted().joined(separator: ", "))")
            }
        }
        let entries = Dictionary(map.entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for target in package.targets {
            guard let entry = entries[target.name] else {
                let expected = ArchitectureText.line(name: target.name, group: guessedGroup(target),
                                                     targets: target.targets, products: target.products)
                problems.append("ARCHITECTURE.md has no line for target `\(target.name)` (Package.swift:\(target.line)); add this line to \(where_): `\(expected)`")
                continue
            }
            let group = target.isTest ? "test" : entry.group == "test" ? guessedGroup(target) : entry.group
            let expected = ArchitectureText.line(name: target.name, group: group, targets: target.targets, products: target.products)
            if Set(entry.targets) != Set(target.targets) || entry.targets.count != target.targets.count
                || Set(entry.products) != Set(target.products) {
                let missing = (target.targets + target.products).filter { !(entry.targets + entry.products).contains($0) }
                let extra = (entry.targets + entry.products).filter { !(target.targets + target.products).contains($0) }
                var why: [String] = []
                if !missing.isEmpty { why.append("Package.swift:\(target.line) also declares \(missing.joined(separator: ", "))") }
                if !extra.isEmpty { why.append("Package.swift:\(target.line) does not declare \(extra.joined(separator: ", "))") }
                if why.isEmpty { why.append("a dependency is listed twice, or a product is listed as a target (products go after `+`)") }
                problems.append("ARCHITECTURE.md:\(entry.line): the dependencies of `\(target.name)` differ (\(why.joined(separator: "; "))); change the line to: `\(expected)`")
            } else if (entry.group == "test") != target.isTest {
                problems.append("ARCHITECTURE.md:\(entry.line): `\(target.name)` is \(target.isTest ? "" : "not ")a test target (Package.swift:\(target.line)); change the line to: `\(expected)`")
            }
        }
        let declared = Set(package.targets.map(\.name))
        for entry in map.entries where !declared.contains(entry.name) {
            problems.append("ARCHITECTURE.md:\(entry.line): Package.swift declares no target `\(entry.name)`; remove this line, or correct the name")
        }
        return problems
    }

    private static func guessedGroup(_ target: PackageText.Target) -> String {
        if target.isTest { return "test" }
        if target.sourceFolder.hasPrefix("Plugins/") { return "plugin" }
        if target.kind == "executableTarget" { return "executable" }
        return "GROUP"
    }

    // MARK: The rules

    static func ruleProblems(_ map: ArchitectureText, _ package: PackageText,
                             imports: (PackageText.Target) -> [Import]) -> [String] {
        var problems: [String] = []
        let byName = Dictionary(package.targets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var importsCache: [String: [Import]] = [:]
        var reported: Set<String> = []
        for rule in map.rules {
            let subjects = members(of: rule.subject, map, byName)
            guard !subjects.isEmpty else {
                problems.append("ARCHITECTURE.md:\(rule.line): `\(rule.subject)` is neither a target nor a group of the module map; correct the rule `\(rule.text)`")
                continue
            }
            for subject in subjects {
                let paths = reachable(from: subject, byName)
                for forbidden in rule.forbidden {
                    if byName[forbidden] != nil {
                        guard let path = paths[forbidden] else { continue }
                        let key = "\(rule.line) \(subject) \(forbidden)"
                        guard reported.insert(key).inserted else { continue }
                        problems.append("ARCHITECTURE.md:\(rule.line) says `\(rule.text)`, but \(describe(path, byName)): "
                                        + "remove that dependency, or, if the arrow is meant to exist, change the rule")
                        continue
                    }
                    for (target, path) in paths.sorted(by: { $0.key < $1.key }) {
                        guard let declared = byName[target] else { continue }
                        let found = importsCache[target] ?? imports(declared)
                        importsCache[target] = found
                        // Foundation stands for its parts too (FoundationEssentials, …): any of them loads it.
                        for hit in found where hit.module == forbidden || (forbidden == "Foundation" && hit.module.hasPrefix(forbidden)) {
                            let key = "\(rule.line) \(hit.file):\(hit.line)"
                            guard reported.insert(key).inserted else { continue }
                            let via = path.count > 1 ? " (\(path.joined(separator: " → ")))" : ""
                            problems.append("\(hit.file):\(hit.line) imports \(hit.module), but ARCHITECTURE.md:\(rule.line) says "
                                            + "`\(rule.text)`\(via): remove the import, or, if it is meant to be there, change the rule")
                        }
                    }
                }
            }
        }
        return problems
    }

    /// Whether some rule forbids `forbidden` to `target`, directly or through a subject that reaches it.
    static func isForbidden(_ forbidden: String, to target: String, _ map: ArchitectureText, _ package: PackageText) -> Bool {
        let byName = Dictionary(package.targets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return map.rules.contains { rule in
            rule.forbidden.contains(forbidden)
                && members(of: rule.subject, map, byName).contains { reachable(from: $0, byName)[target] != nil }
        }
    }

    private static func members(of subject: String, _ map: ArchitectureText,
                                _ byName: [String: PackageText.Target]) -> [String] {
        if byName[subject] != nil { return [subject] }
        return map.entries.filter { $0.group == subject && byName[$0.name] != nil }.map(\.name)
    }

    /// Every target `start` reaches (itself included), each with a shortest path to it.
    private static func reachable(from start: String, _ byName: [String: PackageText.Target]) -> [String: [String]] {
        var paths = [start: [start]]
        var queue = [start]
        while !queue.isEmpty {
            let name = queue.removeFirst()
            for next in byName[name]?.targets ?? [] where paths[next] == nil {
                paths[next] = paths[name]! + [next]
                queue.append(next)
            }
        }
        return paths
    }

    private static func describe(_ path: [String], _ byName: [String: PackageText.Target]) -> String {
        let steps = zip(path, path.dropFirst()).map { from, to in
            "\(from) → \(to) (Package.swift:\(byName[from]?.line ?? 0))"
        }
        return steps.joined(separator: ", ")
    }

    // MARK: Imports

    /// The module an `import` line names (`import Foundation`, `@preconcurrency import
    /// Foundation`, `public import struct Foundation.Date` → Foundation), or nil.
    static func importedModule(_ line: Substring) -> String? {
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
        while let first = words.first, first.hasPrefix("@") || ["public", "package", "internal", "fileprivate", "private"].contains(first) {
            words = words.dropFirst()
        }
        guard words.first == "import" else { return nil }
        words = words.dropFirst()
        if let kind = words.first, ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"].contains(kind) {
            words = words.dropFirst()
        }
        guard let path = words.first else { return nil }
        return path.split(separator: ".").first.map(String.init)
    }
}
