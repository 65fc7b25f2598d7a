import Foundation
import Testing

/// Shell completion offers what each argument takes: keyboards' identifiers (kbhost lists them),
/// and the fixed words of the others.
@Suite("Commands: shell completion of every argument's values")
struct CommandCompletionTests {
    /// The words bash's script offers for `command`'s positional argument `position` (1-based, "*" for the rest).
    func offered(_ script: String, _ command: String, position: String) -> String? {
        guard let start = script.range(of: "\n_kbhost_\(command)() {") else { return nil }
        let body = script[start.upperBound...]
        guard let end = body.range(of: "\n}") else { return nil }
        let function = body[..<end.lowerBound]
        guard let slot = function.range(of: "    \(position))\n") else { return nil }
        return function[slot.upperBound...].split(separator: "\n").first.map { String($0).trimmingCharacters(in: .whitespaces) }
    }

    @Test func fixedWordsAreCompleted() throws {
        let script = try World().run(["--generate-completion-script", "bash"]).out
        #expect(offered(script, "access", position: "2") == "__kbhost_add_completions -W 'on'$'\\n''off'")
        #expect(offered(script, "globe-key", position: "1") == "__kbhost_add_completions -W 'keyboard'$'\\n''device'")
        #expect(offered(script, "budget", position: "1") == "__kbhost_add_completions -W 'older-phone'$'\\n''recent-phone'$'\\n''tablet'")
        #expect(offered(script, "protection", position: "*")?.contains("'landlock-scope'") == true)
        #expect(offered(script, "set", position: "1")?.contains("---completion set") == true, "the control: identifiers, from kbhost")
    }
}
