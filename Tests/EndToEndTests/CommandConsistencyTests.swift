import Foundation
import KBHost
import Testing

/// Small gaps of issue 15 found while pinning every command's output (GoldenTests).
@Suite("Commands: one wording for one thing")
struct CommandConsistencyTests {
    var real: [String: String] { ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""] }

    /// `type` and `profile` read a script the same way and say the same thing when they cannot
    /// (profile printed Foundation's "The operation could not be completed. The file doesn’t exist.").
    @Test func anUnreadableScriptIsExplainedAlikeByTypeAndProfile() throws {
        let w = try World()
        try FileManager.default.createDirectory(atPath: w.root + "/folder", withIntermediateDirectories: true)
        for (path, reason) in [(w.root + "/missing", "it does not exist"), (w.root + "/folder", "it is a folder")] {
            for arguments in [["type", "--keyboard", "dev.kbhost.NumberPad", "--script", path],
                              ["profile", "dev.kbhost.NumberPad", "--script", path, "--svg", w.root + "/p.svg"]] {
                let r = try w.run(arguments, extraEnvironment: real)
                #expect(r.status == 64, "\(arguments): \(r.err)")
                #expect(r.err == "kbhost: error: cannot read the script \(path): \(reason)\n", "\(arguments)")
            }
        }
    }

    /// `profile --script -` reads standard input, as `type --script -` does.
    @Test func profileReadsTheScriptFromStandardInput() throws {
        let w = try World()
        let process = Fixtures.kbhostProcess(["profile", "dev.kbhost.NumberPad", "--script", "-", "--svg", w.root + "/p.svg"],
                                             environment: w.environment.merging(real.mapValues { $0 }) { $1 })
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("4 2 delete 7".utf8))
        try input.fileHandleForWriting.close()
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(out)")
        #expect(out.hasPrefix("dev.kbhost.NumberPad: 4 taps, peak footprint "), "\(out)")
    }

    /// The demo's key lines draw no empty slots (Kana's and English's candidate rows, empty
    /// before anything is typed), as attach does not.
    @Test func theDemoDrawsNoEmptySlots() throws {
        let w = try World()
        let r = try w.run(["demo", "--tour"], extraEnvironment: real)
        #expect(r.status == 0, "\(r.err)")
        let keys = r.out.split(separator: "\n").filter { $0.hasPrefix("  keys: ") }
        #expect(keys.count == 5, "\(r.out)")
        for line in keys {
            let slots = line.dropFirst("  keys: ".count)
            #expect(!slots.hasPrefix(" ") && !slots.contains("  ") && !slots.contains("| |") && !slots.hasSuffix(" "),
                    "an empty slot: \(line.debugDescription)")
        }
        #expect(keys.contains { $0.hasPrefix("  keys: q w e r t y u i o p | a s d f g h j k l ー") }, "Kana's keys, first: \(keys)")
    }
}

extension CommandConsistencyTests {
    /// `defaults` on a corrupt file: exit 8 and one sentence, as for a corrupt settings file.
    @Test func aCorruptDefaultsFileIsExplainedWithoutAnErrno() throws {
        let w = try World()
        let g = "group.com.example.kb"
        let folder = w.home + "/Containers/Groups/\(g)/Library/Preferences"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: folder + "/\(g).kbdefaults"))
        for arguments in [["defaults", g, "read"], ["defaults", g, "write", "size", "1"]] {
            let r = try w.run(arguments)
            #expect(r.status == 8, "\(arguments): \(r.err)")
            #expect(r.err == "kbhost: error: defaults file \(folder)/\(g).kbdefaults is corrupt (truncated at byte 0); it was left as it is"
                    + " — move it aside to start the group's defaults over\n", "\(arguments)")
        }
    }
}
