import ArgumentParser
import Foundation
import KBHost
import KBSystem
import KBWire
/// `kbhost new`: a keyboard package that builds, installs, types and tests.
struct New: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scaffold a keyboard: a Swift package (or a C folder with a Makefile), its manifest, a test and a README.",
        discussion: """
            kbhost new Acme                     ./Acme, a Swift keyboard depending on this kbhost's SDK (SDK/) by path
            kbhost new Acme --language c        ./Acme, a C keyboard built with make against kbhost_keyboard.h
            NAME is any Swift identifier but a keyword or a module every keyboard imports (KeyboardSDK,             Foundation, …): Science, my_keys, Clavier2. It names the code's module, the library             (libNAMEKeyboard.so) and the principal class (NAMEViewController).
            Then, in the folder: swift build (or make), kbhost install ., kbhost type --keyboard ID … — or \
            kbhost dev TAP…, which does all three; see its README.
            """)

    enum Language: String, ExpressibleByArgument, CaseIterable { case swift, c }

    @Argument(help: "The keyboard's name: a Swift identifier (Acme, my_keys, Clavier2).") var name: String
    @Option(help: "swift or c.") var language: Language = .swift
    @Option(help: "The folder to create (default: ./NAME). It must not exist or be empty.") var path: String?
    @Option(help: "The bundle identifier (default: com.example.NAME, lowercased, '_' as '-').") var identifier: String?

    func validate() throws {
        if let problem = NewKeyboardName.problem(name) {
            throw ValidationError("\(TerminalText.quoted(name)) cannot name a keyboard: \(problem)")
        }
        if let identifier, let problem = KeyboardManifest.bundleIdentifierProblem(identifier) {
            throw ValidationError("\(TerminalText.quoted(identifier)) is not a reverse-DNS bundle identifier (like com.example.keyboard): it \(problem)")
        }
    }

    func run() throws {
        let folder = ((path ?? name) as NSString).standardizingPath
        let absolute = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        let fm = FileManager.default
        if language == .swift, (absolute as NSString).lastPathComponent.lowercased() == "sdk" {
            // SwiftPM names a package after its folder: this one would take the SDK's identity.
            throw exitWithError("a Swift keyboard's package cannot be in a folder called \((absolute as NSString).lastPathComponent): SwiftPM would give it the SDK's identity, sdk; choose another folder with --path (kbhost new \(name) --path \(name)Keyboard)",
                                status: Kbhost.Exit.usage)
        }
        if let existing = try? Sys.linkStatus(absolute) {
            // An empty folder someone else made, or may write in (a shared /tmp folder), is not the
            // user's: its owner could put links in the template's places while the files are written,
            // to any file of the user's (twenty-fourth red team, J).
            guard existing.st_mode & S_IFMT == S_IFDIR, existing.st_uid == getuid(), existing.st_mode & 0o022 == 0 else {
                throw exitWithError("\(absolute) is not a folder of your own that only you may write in; nothing was written",
                                    status: Kbhost.Exit.refused)
            }
            if let contents = try? fm.contentsOfDirectory(atPath: absolute), !contents.isEmpty {
                throw exitWithError("\(absolute) already exists and is not empty; nothing was written", status: Kbhost.Exit.refused)
            }
        }
        let template = Template(name: name, identifier: identifier ?? NewKeyboardName.defaultIdentifier(name),
                                sdk: SDK.root, repository: SDK.repository)
        let files = language == .swift ? template.swiftFiles : template.cFiles
        do {
            for (relative, text) in files {
                let file = absolute + "/" + relative
                try fm.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try NoFollowFile.create(file, with: Array(text.utf8), mode: relative.hasSuffix(".sh") ? 0o755 : 0o644)
            }
        } catch {
            throw exitWithError("writing \(absolute): \(error.localizedDescription)", status: Kbhost.Exit.refused)
        }
        Console.out("created \(language == .swift ? "a Swift" : "a C") keyboard \(template.identifier) in \(absolute)")
        Console.out(language == .swift
            ? "next: cd \(folder) && swift build && kbhost install . && kbhost type --keyboard \(template.identifier) h i"
            : "next: cd \(folder) && make && kbhost install . && kbhost type --keyboard \(template.identifier) h i")
    }
}
