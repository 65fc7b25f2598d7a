import ArgumentParser
import KBHost

/// Commands named wrong, caught before swift-argument-parser sees them: it would call `kbhost lsit`
/// (or `kbhost ibus instal`, which its default subcommand `run` would be given) an unexpected
/// argument and show the whole help for `kbhost help lsit` with status 0.
enum CommandNames {
    /// What is wrong with the command these arguments name (with the closest commands), or nil.
    static func problem(_ arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        if first == "help" { return path(Array(arguments.dropFirst().prefix { !$0.hasPrefix("-") })) }
        return path(wordsNamingCommands(arguments))
    }

    /// The leading words that can only name subcommands: the first, then each next one while the
    /// command named so far has subcommands. (kbhost's one default subcommand, `ibus run`, takes no
    /// argument, so a word after `ibus` is a subcommand's name or a mistake.)
    static func wordsNamingCommands(_ arguments: [String]) -> [String] {
        var subcommands = Kbhost.configuration.subcommands
        var words: [String] = []
        for word in arguments {
            guard !word.hasPrefix("-"), !subcommands.isEmpty else { break }
            words.append(word)
            guard let next = subcommands.first(where: { names($0).contains(word) }) else { break }
            subcommands = next.configuration.subcommands
        }
        return words
    }

    /// Walks `words` down the subcommands from the root; the first that names none is the problem.
    static func path(_ words: [String]) -> String? {
        var subcommands = Kbhost.configuration.subcommands
        var known = subcommands.map { $0._commandName } + ["help"]
        var said = "kbhost"
        for word in words {
            if said == "kbhost" && word == "help" {
                (subcommands, known, said) = ([], [], "kbhost help")
                continue
            }
            guard let next = subcommands.first(where: { names($0).contains(word) }) else {
                if known.isEmpty { return "\(said) has no subcommand '\(word)'" }
                if said == "kbhost" && word == "version" { return "no command 'kbhost version'; the version is `kbhost --version`" }
                let close = EditDistance.closest(to: word, among: known)
                return "no command '\(said) \(word)'"
                    + (close.isEmpty ? "; `\(said) --help` lists the commands"
                                     : "; did you mean \(close.map { "'\($0)'" }.joined(separator: " or "))?")
            }
            subcommands = next.configuration.subcommands
            known = subcommands.map { $0._commandName }
            said += " " + word
        }
        return nil
    }

    static func names(_ command: any ParsableCommand.Type) -> [String] {
        [command._commandName] + command.configuration.aliases
    }
}
