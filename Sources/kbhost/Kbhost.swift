import ArgumentParser
import Foundation
import KBHost
import KBSystem

@main
struct Kbhost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kbhost",
        abstract: "Run third-party keyboards the way iOS runs keyboard extensions: each in its own process.",
        discussion: """
            Keyboards are plugins (shared libraries) described by Info.plist manifests. \
            kbhost loads each into its own extension process and types into a document it owns.
            """,
        subcommands: [List.self, Current.self, Enable.self, Disable.self, Order.self, SetCurrent.self, Next.self,
                      Access.self, Reset.self, Validate.self, Install.self, TypeCommand.self, Demo.self])

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
    }
}

/// Prints an error as "kbhost: error: …" on stderr and exits with a status.
func exitWithError(_ message: String, status: Int32) -> ExitCode {
    FileHandle.standardError.write(Data("kbhost: error: \(message)\n".utf8))
    return ExitCode(status)
}
