import ArgumentParser
import Foundation
import Glibc
import KBHost
import KBSystem

/// A typing script, as `type --script` and `profile --script` take it: a file (a pipe too,
/// as `<(…)` gives), or standard input for `-`. Both commands read it here, so both say the
/// same thing when they cannot (exit 64, the reason in words, never Foundation's).
enum TapScript {
    static func text(_ path: String) throws -> String {
        if path == "-" { return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            throw unreadable(path, e == ENOENT ? "it does not exist" : String(cString: strerror(e)))
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        if let st = try? Sys.status(path), st.st_mode & S_IFMT == S_IFDIR { throw unreadable(path, "it is a folder") }
        do { return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self) } catch {
            throw unreadable(path, String(cString: strerror(EIO)))
        }
    }

    private static func unreadable(_ path: String, _ reason: String) -> ExitCode {
        exitWithError("cannot read the script \(TerminalText.line(path)): \(reason)", status: Kbhost.Exit.usage)
    }
}
