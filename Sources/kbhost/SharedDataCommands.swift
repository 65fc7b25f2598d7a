import ArgumentParser
import Foundation
import KBHost
import KBSystem
import KBWire

/// `kbhost defaults`: the containing app's side of an App Group's defaults.
struct Defaults: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read and write an App Group's defaults, as the keyboard's containing app would.",
        discussion: """
            The keyboard reads them with GroupDefaults(suiteName:) (UserDefaults(suiteName:) on iOS) and \
            writes them only with open access. Writes from both sides are atomic and never lost.
              kbhost defaults group.com.example.kb read              every key
              kbhost defaults group.com.example.kb read theme        one key's value
              kbhost defaults group.com.example.kb write theme dark
              kbhost defaults group.com.example.kb write size 14 --type int
              kbhost defaults group.com.example.kb delete theme
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable { case read, write, delete }
    enum ValueType: String, ExpressibleByArgument, CaseIterable { case string, int, double, bool, data }

    @Argument(help: "The App Group, e.g. group.com.example.keyboard.") var group: String
    @Argument(help: "read, write or delete.") var action: Action
    @Argument(help: "The key (optional for read).") var key: String?
    @Argument(help: "The value to write.") var value: String?
    @Option(help: "The value's type for write: string, int, double, bool or data (base64).") var type: ValueType = .string
    @Flag(help: "Print JSON (read).") var json = false

    func validate() throws {
        if let problem = KeyboardManifest.groupNameProblem(group) {
            throw ValidationError("\(TerminalText.quoted(group)) is not an App Group name (like group.com.example.keyboard): it \(problem)")
        }
        switch action {
        case .read: guard value == nil else { throw ValidationError("read takes at most a key") }
        case .write:
            guard let key, !key.isEmpty, let value else { throw ValidationError("write takes a key and a value") }
            _ = try parse(value)
        case .delete: guard key != nil, value == nil else { throw ValidationError("delete takes one key") }
        }
    }

    func parse(_ text: String) throws -> DefaultValue {
        switch type {
        case .string: return .string(text)
        case .int:
            guard let i = Int64(text) else { throw ValidationError("'\(text)' is not an integer") }
            return .integer(i)
        case .double:
            guard let d = Double(text), d.isFinite else { throw ValidationError("'\(text)' is not a finite number") }
            return .double(d)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1", "on": return .bool(true)
            case "false", "no", "0", "off": return .bool(false)
            default: throw ValidationError("'\(text)' is not a boolean (true or false)")
            }
        case .data:
            guard let d = Data(base64Encoded: text) else { throw ValidationError("'\(text)' is not base64") }
            return .data(Array(d))
        }
    }

    func run() throws {
        let containers = Containers(home: SettingsStore.defaultDirectory())
        let store = containers.groupDefaults(group)
        if let warning = Defaults.unknownGroup(group, containers: containers, registry: try Context.make().registry) {
            Console.err("kbhost: warning: \(warning)")
        }
        do {
            switch action {
            case .read:
                let values = try store.load()
                if let key {
                    guard let v = values[key] else {
                        throw exitWithError("\(group) has no key '\(key)'", status: Kbhost.Exit.noSuchKey)
                    }
                    if json { try printJSON(DefaultsEntry(v)) } else { Console.out(DefaultsEntry(v).text) }
                } else if json {
                    try printJSON(values.mapValues(DefaultsEntry.init))
                } else {
                    // One line a key: keys and values (a keyboard with open access writes them) are escaped for one line.
                    for k in values.keys.sorted() {
                        let e = DefaultsEntry(values[k]!)
                        Console.out("\(TerminalText.line(k)) = \(TerminalText.line(e.text)) (\(e.type))")
                    }
                }
            case .write:
                try containers.makeRoot()
                try store.set(try parse(value!), forKey: key!)
            case .delete:
                guard try store.load()[key!] != nil else {
                    throw exitWithError("\(group) has no key '\(key!)'", status: Kbhost.Exit.noSuchKey)
                }
                try store.set(nil, forKey: key!)
            }
        } catch let error as SystemError {
            throw exitWithError("\(error)", status: Kbhost.Exit.badSettings)
        } catch let error as CorruptDefaults {
            throw exitWithError("\(error)", status: Kbhost.Exit.badSettings)
        } catch let error as PathRefusal {
            throw exitWithError("\(error)", status: Kbhost.Exit.refused)
        }
    }
}

extension Defaults {
    /// What to say of a group no keyboard declares (com.apple.security.application-groups) and
    /// nothing has written yet, most likely mistyped: the declared groups closest to it. The command
    /// still runs (a containing app may write before its keyboard is installed). Nil for a known group.
    static func unknownGroup(_ group: String, containers: Containers, registry: KeyboardRegistry) -> String? {
        let declared = Array(Set(registry.keyboards.flatMap(\.manifest.applicationGroups))).sorted()
        guard !declared.contains(group), !FileManager.default.fileExists(atPath: containers.group(group)) else { return nil }
        let close = EditDistance.closest(to: group, among: declared)
        return "no keyboard declares the App Group \(TerminalText.quoted(group)) and it has no data yet"
            + (close.isEmpty ? "" : "; did you mean \(close.joined(separator: " or "))?")
    }
}

/// One value of a group's defaults: its type, and in JSON the value as that type
/// (`{"type": "int", "value": 14}`; data as base64 text).
struct DefaultsEntry: Encodable {
    var type: String
    var value: DefaultValue

    init(_ v: DefaultValue) {
        type = v.typeName
        value = v
    }

    /// The value as text, for people.
    var text: String {
        switch value {
        case .bool(let b): b ? "true" : "false"
        case .integer(let i): String(i)
        case .double(let d): String(d)
        case .string(let s): s
        case .data(let d): Data(d).base64EncodedString()
        }
    }

    enum CodingKeys: String, CodingKey { case type, value }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        switch value {
        case .bool(let b): try c.encode(b, forKey: .value)
        case .integer(let i): try c.encode(i, forKey: .value)
        case .double(let d): try c.encode(d, forKey: .value)
        case .string, .data: try c.encode(text, forKey: .value)
        }
    }
}

/// `kbhost pasteboard`: the host's general pasteboard.
struct PasteboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pasteboard",
        abstract: "Read or write the general pasteboard keyboards with open access can use.",
        discussion: """
              kbhost pasteboard                 print it
              kbhost pasteboard write TEXT      replace it (- reads standard input)
              kbhost pasteboard clear
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable { case read, write, clear }

    @Argument(help: "read (the default), write or clear.") var action: Action = .read
    @Argument(help: "The text for write; - for standard input.") var text: String?

    func validate() throws {
        if action == .write && text == nil { throw ValidationError("write takes the text (or - for standard input)") }
        if action != .write && text != nil { throw ValidationError("\(action.rawValue) takes no text") }
    }

    func run() throws {
        let pasteboard = Pasteboard(home: SettingsStore.defaultDirectory())
        do {
            switch action {
            case .read:
                if let s = try pasteboard.read() { Console.out(s) }
            case .write:
                let value = text == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) : text!
                try pasteboard.write(value)
            case .clear:
                try pasteboard.write(nil)
            }
        } catch {
            throw exitWithError("\(error)", status: Kbhost.Exit.badSettings)
        }
    }
}

/// `kbhost replacements`: the user's text replacements (the supplementary lexicon).
struct Replacements: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, add or remove text replacements (\"omw\" → \"On my way!\") keyboards get as their supplementary lexicon.",
        discussion: """
              kbhost replacements                       list them
              kbhost replacements add omw "On my way!"
              kbhost replacements remove omw
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable { case list, add, remove }

    @Argument(help: "list (the default), add or remove.") var action: Action = .list
    @Argument(help: "The shortcut.") var shortcut: String?
    @Argument(help: "The phrase it stands for (add).") var phrase: String?
    @Flag(help: "Print JSON (list).") var json = false

    func validate() throws {
        switch action {
        case .list: guard shortcut == nil else { throw ValidationError("list takes no arguments") }
        case .add:
            guard let shortcut, let phrase else { throw ValidationError("add takes a shortcut and a phrase") }
            guard !shortcut.isEmpty, !shortcut.contains(where: { $0.isWhitespace }) else {
                throw ValidationError("a shortcut is one word without spaces, not '\(shortcut)'")
            }
            guard !phrase.isEmpty, !phrase.contains("\n"), !phrase.contains("\t") else {
                throw ValidationError("a phrase is one line of text (no tabs)")
            }
        case .remove: guard shortcut != nil, phrase == nil else { throw ValidationError("remove takes one shortcut") }
        }
    }

    func run() throws {
        let context = try Context.make()
        switch action {
        case .list:
            let all = try context.settings().textReplacements
            if json { try printJSON(all) } else {
                for k in all.keys.sorted() { Console.out("\(k) → \(all[k]!)") }
            }
        case .add:
            try context.update { $0.textReplacements[shortcut!] = phrase! }
        case .remove:
            try context.update { settings in
                guard settings.textReplacements.removeValue(forKey: shortcut!) != nil else {
                    throw CommandFailure("there is no text replacement '\(shortcut!)'", status: Kbhost.Exit.noSuchKey)
                }
            }
        }
    }
}
