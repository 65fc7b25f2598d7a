import ArgumentParser
import Foundation
import KBHost

struct Enable: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Enable keyboards (added at the end of the globe key's order).")
    @Argument(help: KeyboardName.help, completion: KeyboardName.completion) var keyboards: [String]

    func run() throws {
        let context = try Context.make()
        let ids = try keyboards.map { name in try report { try context.entry(name).identifier } }
        try context.update { settings in
            for id in ids { settings.enable(id) }
        }
    }
}

struct Disable: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Disable keyboards. The system keyboard cannot be disabled while it is the only one enabled.")
    @Argument(help: KeyboardName.help, completion: KeyboardName.completion) var keyboards: [String]

    func run() throws {
        let context = try Context.make()
        try context.update { settings in
            for name in keyboards {
                let id = try context.enabledIdentifier(name, in: settings)
                if let problem = settings.disableProblem(id) {
                    throw CommandFailure("\(context.name(id)) \(problem)", status: Kbhost.Exit.refused)
                }
                settings.disable(id, registry: context.registry)
            }
        }
    }
}

struct Order: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put enabled keyboards first, in the order given; the others keep their order after them.")
    @Argument(help: KeyboardName.help, completion: KeyboardName.completion) var keyboards: [String]

    func run() throws {
        let context = try Context.make()
        try context.update { settings in
            let ids = try keyboards.map { try context.enabledIdentifier($0, in: settings, hint: "; enable it first") }
            settings.putFirst(ids)
        }
    }
}

struct SetCurrent: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Make an enabled keyboard the current one (the input mode list) and print its identifier.")
    @Argument(help: KeyboardName.help, completion: KeyboardName.completion) var keyboard: String
    @OptionGroup var output: KeyboardOutput

    func run() throws {
        let context = try Context.make()
        let id = try report { try context.entry(keyboard).identifier }
        let settings = try context.update { settings in
            guard settings.enabled.contains(id) else {
                throw CommandFailure("\(id) is not enabled; enable it first", status: Kbhost.Exit.notEnabled)
            }
            settings.current = id
        }
        try output.show(settings.current, context: context, settings: settings)
    }
}

struct Next: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Switch to the next enabled keyboard (the globe key) and print its identifier.",
        discussion: "Keyboards that may not serve the field are skipped; the system keyboard serves when none may.")
    @OptionGroup var field: FieldOptions
    @OptionGroup var output: KeyboardOutput

    func run() throws {
        let context = try Context.make()
        let settings = try context.update { settings in
            settings.current = InputModes.next(settings, registry: context.registry, field: field.field)
        }
        try output.show(settings.current, context: context, settings: settings)
    }
}

struct Access: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Grant or revoke full (open) access; only for keyboards whose manifest requests it.")
    @Argument(help: KeyboardName.one, completion: KeyboardName.completion) var keyboard: String
    @Argument(help: "on or off.", completion: .list(["on", "off"])) var state: String

    func validate() throws {
        guard state == "on" || state == "off" else { throw ValidationError("access takes 'on' or 'off', not '\(state)'") }
    }

    func run() throws {
        let context = try Context.make()
        let entry = try report { try context.entry(keyboard) }
        let id = entry.identifier
        guard entry.manifest.requestsOpenAccess else {
            throw exitWithError("\(context.name(id)) does not request open access (RequestsOpenAccess in \(TerminalText.line(entry.manifest.path)))",
                                status: Kbhost.Exit.refused)
        }
        try context.update { settings in
            settings.setFullAccess(state == "on", for: id)
        }
    }
}

struct Reset: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Back to the system keyboard alone, with no full-access grants (like Android's `ime reset`).",
        discussion: "This is also the way out of a corrupt settings file: it replaces it.")

    func run() throws {
        let store = SettingsStore(directory: SettingsStore.defaultDirectory())
        do { try store.replace(with: .fresh) } catch {
            throw exitWithError("\(error)", status: Kbhost.Exit.badSettings)
        }
        DaemonClient.notify()
    }
}

/// Turns a CommandFailure into its message and exit status.
func report<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let failure as CommandFailure {
        throw exitWithError(failure.message, status: failure.status)
    }
}

struct GlobeKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "globe-key",
        abstract: "Show or set who draws the globe key: the keyboard (default) or the device (then needsInputModeSwitchKey is false).")
    @Argument(help: "keyboard or device; without it, print the setting.", completion: .list(["keyboard", "device"])) var drawnBy: String?
    @Flag(help: "Print JSON for scripts: who draws it, and what keyboards read as needsInputModeSwitchKey.") var json = false

    func validate() throws {
        if let drawnBy, drawnBy != "keyboard" && drawnBy != "device" {
            throw ValidationError("globe-key takes 'keyboard' or 'device', not '\(drawnBy)'")
        }
    }

    func run() throws {
        let context = try Context.make()
        let settings = if let drawnBy { try context.update { $0.deviceDrawsGlobeKey = drawnBy == "device" } } else { try context.settings() }
        let drawer = settings.deviceDrawsGlobeKey ? "device" : "keyboard"
        guard json else { return Console.out(drawer) }
        try printJSON(GlobeKeyReport(drawnBy: drawer, needsInputModeSwitchKey: !settings.deviceDrawsGlobeKey))
    }

    struct GlobeKeyReport: Encodable {
        var drawnBy: String
        var needsInputModeSwitchKey: Bool
    }
}

struct Budget: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or set the memory budget every keyboard's process runs under (default 48 MiB).",
        discussion: """
            Over it, a keyboard is killed at once, as iOS's jetsam does, and the user is put on another keyboard. \
            A budget is \(Governor.budgetHelp); over \(Governor.backstop >> 20) MiB, the worker's RLIMIT_DATA \
            would fail the keyboard first.
            """)
    @Argument(help: ArgumentHelp("The budget: \(Governor.budgetHelp)."), completion: .list(Governor.profiles.map(\.name))) var budget: String?
    @Flag(help: "Print JSON for scripts: the budget in bytes, and the device profiles it fits.") var json = false

    func validate() throws {
        _ = try parsedBudget(budget)
    }

    func run() throws {
        let context = try Context.make()
        if let bytes = try parsedBudget(budget) {
            try context.update { $0.memoryBudget = bytes }
        }
        let bytes = try context.settings().memoryBudget
        guard json else { return Console.out("\(bytes >> 20) MiB") }
        try printJSON(BudgetReport(memoryBudgetBytes: bytes,
                                   profiles: Governor.profiles.map { .init(name: $0.name, budgetBytes: $0.budget, within: bytes <= $0.budget) }))
    }

    struct BudgetReport: Encodable {
        /// The same name `type --json` gives it.
        var memoryBudgetBytes: Int
        var profiles: [Profile]
        struct Profile: Encodable {
            var name: String
            var budgetBytes: Int
            /// Whether a keyboard within this budget is within the profile's too.
            var within: Bool
        }
    }
}

/// `--budget` for commands that run keyboards: MiB or a device profile; the settings' budget when absent.
struct BudgetOption: ParsableArguments {
    @Option(help: ArgumentHelp("Memory budget for the keyboard's process: \(Governor.budgetHelp). Default: the settings' (kbhost budget).",
                               valueName: "budget"), completion: .list(Governor.profiles.map(\.name)))
    var budget: String?

    func validate() throws {
        _ = try parsedBudget(budget)
    }

    func bytes(_ context: Context) throws -> Int {
        if let bytes = try parsedBudget(budget) { return bytes }
        return try context.settings().memoryBudget
    }
}

/// A budget argument in bytes (nil when it was not given), or the error that says what a budget is:
/// the one reading of `kbhost budget N` and of every `--budget`.
func parsedBudget(_ text: String?) throws(ValidationError) -> Int? {
    guard let text else { return nil }
    guard let bytes = Governor.budget(parsing: text) else {
        throw ValidationError("'\(text)' is not a budget: give \(Governor.budgetHelp)")
    }
    return bytes
}
