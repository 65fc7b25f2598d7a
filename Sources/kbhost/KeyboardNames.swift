import ArgumentParser
import Foundation
import KBHost

/// How commands take a keyboard: its identifier, or a display name only one keyboard has
/// (any case); shells complete the identifiers.
enum KeyboardName {
    static let help = ArgumentHelp("Keyboards: identifiers (dev.kbhost.Calculator), or display names only one keyboard has.",
                                   valueName: "keyboard")
    static let one = ArgumentHelp("A keyboard: its identifier, or a display name only one keyboard has.", valueName: "keyboard")

    /// Every known keyboard's identifier that begins with what is typed, found as `kbhost list --all --ids` finds them.
    static let completion = CompletionKind.custom { _, _, prefix in
        let installation = Installation.current()
        let home = SettingsStore.defaultDirectory()
        guard let registry = try? KeyboardRegistry.discover(installation: installation, home: home) else { return [] }
        return registry.keyboards.map(\.identifier).filter { $0.hasPrefix(prefix) }
    }
}

/// How `current`, `next` and `set` show a keyboard: its identifier, which every command takes
/// (`kbhost set "$(kbhost current)"`); with --verbose its display name first; with --json the
/// whole row, both included.
struct KeyboardOutput: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print the display name and the identifier: Name (identifier).") var verbose = false
    @Flag(help: "Print JSON for scripts: the keyboard's row, as list --json has it.") var json = false

    func show(_ id: String, context: Context, settings: KeyboardSettings) throws {
        guard let entry = context.registry.entry(id) else {
            throw exitWithError("the current keyboard \(TerminalText.line(id)) is not installed any more", status: Kbhost.Exit.keyboardNotFound)
        }
        if json { return try printJSON(KeyboardRow(entry, settings: settings)) }
        let shown = TerminalText.line(entry.identifier)
        Console.out(verbose ? "\(context.name(id)) (\(shown))" : shown)
    }
}
