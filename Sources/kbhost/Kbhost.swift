import ArgumentParser
import Foundation
import KBHost
import KBSystem
import KBWire

@main
struct Kbhost: ParsableCommand {
    /// This kbhost's version (`kbhost --version`), with the plugin ABI and wire protocol it speaks.
    static let version = "0.1.0"
    static func main() {
        Sys.unblockTerminationSignals()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let problem = CommandNames.problem(arguments) {
            Console.err("kbhost: error: \(problem)")
            Foundation.exit(Exit.usage)
        }
        main(arguments)
    }

    static let configuration = CommandConfiguration(
        commandName: "kbhost",
        abstract: "Run third-party keyboards the way iOS runs keyboard extensions: each in its own process.",
        discussion: """
            Keyboards are plugins (shared libraries) described by Info.plist manifests. \
            kbhost loads each into its own extension process and types into a document it owns.
            """,
        version: "\(version) (plugin ABI \(WireVersion.abiVersion), wire protocol \(WireVersion.protocolVersion))",
        subcommands: [List.self, Current.self, Enable.self, Disable.self, Order.self, SetCurrent.self, Next.self,
                      Access.self, Defaults.self, PasteboardCommand.self, Replacements.self, Protection.self, GlobeKey.self, Budget.self, Reset.self, Validate.self, Install.self, Uninstall.self, New.self, Dev.self, SDK.self, Doctor.self, TypeCommand.self, Stress.self, Profile.self, Preview.self, Serve.self, Attach.self, IBus.self, Demo.self])

    /// swift-argument-parser's errors begin as kbhost's own do.
    static var _errorPrefix: String { "kbhost: error: " }

    /// Exit statuses scripts can rely on.
    enum Exit {
        static let checkFailed: Int32 = 1
        static let keyboardNotFound: Int32 = 3
        static let keyboardFailed: Int32 = 4
        static let noSuchKey: Int32 = 5
        static let notEnabled: Int32 = 6
        static let refused: Int32 = 7
        static let badSettings: Int32 = 8
        static let badKeyboards: Int32 = 9
        static let invalid: Int32 = 10
        static let usage: Int32 = 64
    }
}

/// Prints an error as "kbhost: error: …" on stderr and exits with a status.
func exitWithError(_ message: String, status: Int32) -> ExitCode {
    Console.err("kbhost: error: \(message)")
    return ExitCode(status)
}

/// Where commands write. Everything written here is text for a terminal, and
/// much of it is a keyboard's or a manifest's: control characters in it are
/// escaped (TerminalText.lines), so a keyboard cannot clear the screen or write
/// the clipboard through kbhost. Newlines and tabs stay; callers escape
/// single-line fields (names, labels, identifiers) with TerminalText.line so
/// that a newline in one cannot forge a line of output.
enum Console {
    static func out(_ text: String) { print(TerminalText.lines(text)) }

    static func err(_ text: String) {
        FileHandle.standardError.write(Data((TerminalText.lines(text) + "\n").utf8))
    }
}
