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

    func entry(_ id: String) throws -> KeyboardEntry {
        do { return try registry.require(id) } catch {
            throw CommandFailure(error.description, status: Kbhost.Exit.keyboardNotFound)
        }
    }

    /// What a keyboard's session may reach: its containers under KBHOST_HOME,
    /// the user's text replacements, the protections the user let it go without.
    func access(for id: String, _ settings: KeyboardSettings) -> KeyboardAccess {
        KeyboardAccess(settings: settings, home: store.directory, keyboard: id)
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

/// JSON for scripts: every control character in a string escaped (C0 by the
/// encoder, DEL and C1 by TerminalText.json), so that it is safe in a terminal too.
func jsonText(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return TerminalText.json(String(decoding: try encoder.encode(value), as: UTF8.self))
}
