import ArgumentParser
import Foundation
import KBHost
import KBSystem

/// `kbhost dev`: the edit loop in one command — build the keyboard in a folder, install it, type through it.
struct Dev: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The edit loop: build the keyboard in a folder, install it, and type through it.",
        discussion: """
            In a keyboard's folder (one kbhost new made, or any bundle): swift build (a Swift package) \
            or make (a folder with a Makefile), then kbhost install, then, given taps, kbhost type \
            --keyboard ID with them. The build's output and what was installed go to stderr; stdout \
            is what type prints.
              kbhost dev shift H i            build, install, type: prints Hi
              kbhost dev --path ~/Acme        build and install only
              kbhost dev -- - 3               taps that start with '-' after --
            """)

    @Option(help: "The keyboard's folder (default: the current one).") var path = "."
    @Flag(help: "Install what is built, without building.") var noBuild = false
    @Argument(help: "Keys to tap after installing, as for kbhost type.") var taps: [TapArgument] = []

    func validate() throws {
        _ = try taps.steps()
    }

    func run() throws {
        var folder = (path as NSString).standardizingPath
        if !folder.hasPrefix("/") { folder = ((FileManager.default.currentDirectoryPath + "/" + folder) as NSString).standardizingPath }
        guard FileManager.default.fileExists(atPath: folder + "/Info.plist") else {
            throw exitWithError("\(folder) has no Info.plist: run kbhost dev in a keyboard's folder (kbhost new makes one), or give --path",
                                status: Kbhost.Exit.usage)
        }
        if !noBuild { try build(folder) }
        let context = try Context.make()
        let (manifest, destination) = try Install.install(folder, context: context)
        Console.err("kbhost: installed \(TerminalText.line(manifest.displayName)) (\(manifest.bundleIdentifier)) in \(TerminalText.line(destination))")
        guard !taps.isEmpty else { return }
        var type = try TypeCommand.parse(["--keyboard", manifest.bundleIdentifier])
        type.taps = taps  // parsed once, with dev's command line
        try type.run()
    }

    /// swift build in a package, make in a folder with a Makefile (KBHOST= this kbhost, for `sdk --cflags`);
    /// their output on stderr.
    func build(_ folder: String) throws {
        let fm = FileManager.default
        let command: [String]
        if fm.fileExists(atPath: folder + "/Package.swift") {
            command = ["swift", "build"]
        } else if fm.fileExists(atPath: folder + "/Makefile") || fm.fileExists(atPath: folder + "/makefile") {
            command = ["make", "KBHOST=" + (Sys.executablePath() ?? "kbhost")]
        } else {
            Console.err("kbhost: \(folder) has neither Package.swift nor a Makefile; installing it as it is")
            return
        }
        Console.err("kbhost: \(command.joined(separator: " ")) in \(folder)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        do {
            try process.run()
        } catch {
            throw exitWithError("cannot run \(command[0]): \(error.localizedDescription)", status: Kbhost.Exit.refused)
        }
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw exitWithError("\(command.joined(separator: " ")) failed (status \(process.terminationStatus)); nothing was installed",
                                status: Kbhost.Exit.invalid)
        }
    }
}
