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
        subcommands: [TypeCommand.self, Demo.self])

    /// Exit statuses scripts can rely on.
    enum Exit {
        static let keyboardNotFound: Int32 = 3
        static let keyboardFailed: Int32 = 4
        static let noSuchKey: Int32 = 5
    }
}

/// Prints an error as "kbhost: error: …" on stderr and exits with a status.
func exitWithError(_ message: String, status: Int32) -> ExitCode {
    FileHandle.standardError.write(Data("kbhost: error: \(message)\n".utf8))
    return ExitCode(status)
}
