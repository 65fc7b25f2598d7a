import ArgumentParser
import Foundation
import KBHost
import KBSystem

@main
struct Kbhost: ParsableCommand {
    /// Commands a running daemon carries out (as fcitx5-remote and `ibus engine` talk to theirs).
    static let daemonCommands: Swift.Set<String> = ["list", "current", "enable", "disable", "order", "set", "next", "access", "globe-key", "budget", "reset"]

    static func main() {
        Sys.unblockTerminationSignals()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let command = arguments.first, daemonCommands.contains(command),
           ProcessInfo.processInfo.environment["KBHOST_NO_DAEMON"] == nil,
           let status = DaemonClient.forward(arguments) {
            Foundation.exit(status)
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
        subcommands: [List.self, Current.self, Enable.self, Disable.self, Order.self, SetCurrent.self, Next.self,
                      Access.self, Defaults.self, PasteboardCommand.self, Replacements.self, Protection.self, GlobeKey.self, Budget.self, Reset.self, Validate.self, Install.self, New.self, SDK.self, Doctor.self, TypeCommand.self, Stress.self, Profile.self, Serve.self, Attach.self, Demo.self])

    /// Exit statuses scripts can rely on.
    enum Exit {
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

/// Where commands write. In the daemon, a command's output is captured and
/// sent back to the client that asked (requests are handled one at a time).
///
/// Everything written here is text for a terminal, and much of it is a keyboard's
/// or a manifest's: control characters in it are escaped (TerminalText.lines), so a
/// keyboard cannot clear the screen or write the clipboard through kbhost. Newlines
/// and tabs stay; callers escape single-line fields (names, labels, identifiers)
/// with TerminalText.line so that a newline in one cannot forge a line of output.
enum Console {
    nonisolated(unsafe) static var captured: (out: String, err: String)?

    static func out(_ text: String) {
        let line = TerminalText.lines(text)
        if captured != nil { captured!.out += line + "\n" } else { print(line) }
    }

    static func err(_ text: String) {
        let line = TerminalText.lines(text)
        if captured != nil { captured!.err += line + "\n" } else {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }
}
