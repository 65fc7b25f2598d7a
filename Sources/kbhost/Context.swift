import ArgumentParser
import Foundation
import KBHost
import KBText

/// What every input-manager command needs: where kbhost is, the settings, the keyboards.
struct Context {
    let installation: Installation
    let store: SettingsStore
    let registry: KeyboardRegistry

    static func make() throws -> Context {
        let installation = Installation.current()
        let store = SettingsStore(directory: SettingsStore.defaultDirectory())
        do {
            let registry = try KeyboardRegistry.discover(installation: installation, home: store.directory)
            for problem in registry.problems {
                FileHandle.standardError.write(Data("kbhost: warning: skipped \(TerminalText.line(problem))\n".utf8))
            }
            return Context(installation: installation, store: store, registry: registry)
        } catch {
            throw exitWithError(error.description, status: Kbhost.Exit.badKeyboards)
        }
    }

    func settings() throws -> KeyboardSettings {
        do { return try store.load() } catch { throw exitWithError(error.description, status: Kbhost.Exit.badSettings) }
    }

    /// Changes the settings under the lock, then tells a running daemon (which
    /// only re-reads them); errors become clear messages and exit codes.
    @discardableResult
    func update(_ change: (inout KeyboardSettings) throws -> Void) throws -> KeyboardSettings {
        do {
            let settings = try store.update(change)
            DaemonClient.notify()
            return settings
        } catch let error as SettingsError {
            throw exitWithError(error.description, status: Kbhost.Exit.badSettings)
        } catch let error as CommandFailure {
            throw exitWithError(error.message, status: error.status)
        }
    }

    /// The keyboard a person named: its identifier, or a display name (any case) only one keyboard
    /// has. Unknown or ambiguous is exit 3, with the closest keyboards or the candidates.
    func entry(_ name: String) throws -> KeyboardEntry {
        do { return try registry.resolve(name) } catch {
            throw CommandFailure(error.description, status: Kbhost.Exit.keyboardNotFound)
        }
    }

    /// An enabled keyboard a person named: an enabled identifier as it is (even one no longer
    /// installed), else the keyboard `entry` finds, which must be enabled (exit 6).
    func enabledIdentifier(_ name: String, in settings: KeyboardSettings, hint: String = "") throws -> String {
        if settings.enabled.contains(name) { return name }
        let id = try entry(name).identifier
        guard settings.enabled.contains(id) else {
            throw CommandFailure("\(id) is not enabled\(hint)", status: Kbhost.Exit.notEnabled)
        }
        return id
    }

    /// The input manager of one field pinned to a keyboard, started as a script starts it
    /// (`type`, `preview`): the keyboard serves that field alone; the settings give it its
    /// grants, containers and budget (unless `--budget`) and are not written.
    func pinnedManager(_ id: String, field: FieldContext = FieldContext(), text: String = "",
                       needsInputModeSwitchKey: Bool = true, budget: BudgetOption) throws -> InputManager {
        do {
            return try InputManager(installation: installation, store: store, registry: registry, field: field, text: text,
                                    budget: try budget.bytes(self),
                                    pin: InputManager.Pin(keyboard: id, needsInputModeSwitchKey: needsInputModeSwitchKey),
                                    launching: .script)
        } catch let error as SettingsError {
            throw exitWithError(error.description, status: Kbhost.Exit.badSettings)
        }
    }

    /// Warns on stderr when an installed keyboard is not what the folder it was installed from
    /// now builds (an edit and `swift build` without `kbhost install .`): kbhost runs the old copy.
    func warnIfStale(_ entry: KeyboardEntry) {
        guard let stale = InstalledCopy.staleness(of: entry, installation: installation) else { return }
        FileHandle.standardError.write(Data("kbhost: warning: \(TerminalText.line(stale.description))\n".utf8))
    }

    /// A keyboard's name to show: its display name (else the identifier), escaped for one line.
    func name(_ id: String) -> String { TerminalText.line(registry.entry(id)?.manifest.displayName ?? id) }
}

/// A refusal with the exit status it deserves.
struct CommandFailure: Error {
    let message: String
    let status: Int32
    init(_ message: String, status: Int32) {
        self.message = message
        self.status = status
    }
}

/// The field a command acts for (`next` skips keyboards that may not serve it).
struct FieldOptions: ParsableArguments {
    @Option(help: "The field's keyboard type (default, asciiCapable, url, emailAddress, numberPad, phonePad, …).")
    var keyboardType: String = "default"

    @Flag(help: "The field is a secure text field (passwords): only the system keyboard may serve it.")
    var secure = false

    @Flag(help: "The app refuses third-party keyboards.")
    var noThirdParty = false

    func validate() throws {
        guard KeyboardTypeName.parse(keyboardType) != nil else {
            throw ValidationError("unknown keyboard type '\(keyboardType)'; one of: \(KeyboardTypeName.all.joined(separator: ", "))")
        }
    }

    var field: FieldContext {
        var context = FieldContext()
        context.traits.keyboardType = KeyboardTypeName.parse(keyboardType) ?? .default
        context.traits.isSecureTextEntry = secure
        context.allowsThirdPartyKeyboards = !noThirdParty
        return context
    }
}

func printJSON(_ value: some Encodable) throws { Console.out(try jsonText(value)) }

/// An optional that JSON always shows, as null when it is absent: the conventions of kbhost's
/// JSON are every key always present, memory in bytes, and values of their own type.
@propertyWrapper
struct Nullable<Value: Encodable>: Encodable {
    var wrappedValue: Value?
    init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let wrappedValue { try c.encode(wrappedValue) } else { try c.encodeNil() }
    }
}

/// JSON for scripts: every control character in a string escaped (C0 by the
/// encoder, DEL and C1 by TerminalText.json), so that it is safe in a terminal too.
func jsonText(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let text = String(decoding: try encoder.encode(value), as: UTF8.self)
    // Foundation on Linux spreads an empty array or object over three lines; a newline
    // never occurs inside a JSON string (it is escaped), so only empty ones are matched.
    let compact = text.replacing(/\[\n\s*\]/, with: "[]").replacing(/\{\n\s*\}/, with: "{}")
    return TerminalText.json(compact)
}
