import ArgumentParser
import Foundation
import KBHost
import KBSystem

/// `kbhost preview`: the layout a keyboard sends, drawn as a phone draws it.
/// The keyboard really runs (its own process, under the budget): it appears,
/// turns to landscape when asked, is typed into, and the picture is the layout
/// it then shows (`KeyboardPicture`).
struct Preview: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a keyboard as a phone shows it: SVG (to standard output), PNG, or the geometry as JSON.",
        discussion: """
            The keyboard runs in its own process as in kbhost type: it appears (and turns to landscape \
            with --landscape), is typed into with --after, and the layout it then sends is drawn: rows of keys \
            with their widths, character keys light and function keys darker, the display line above, and \
            keys named candidate.N or suggestion.N as a candidate bar. Sizes are an iPhone's keyboard \
            (375×216 points in portrait, 667×162 in landscape) plus the display line and the candidate bar.
            --png needs rsvg-convert (Debian: librsvg2-bin; exit status 1 without it) and fonts for the \
            keyboard's script (Japanese: fonts-droid-fallback).
            Examples:
              kbhost preview dev.kbhost.Calculator > calculator.svg
              kbhost preview dev.kbhost.Kana --after "n i h o n g o space" --png kana.png
              kbhost preview dev.kbhost.NumberPad --landscape --json
            """)

    @Argument(help: KeyboardName.one, completion: KeyboardName.completion)
    var keyboard: String

    @Flag(help: "Landscape (667×162 points; the keyboard gets viewWillTransition) instead of portrait (375×216).")
    var landscape = false

    @Flag(help: "Dark appearance.")
    var dark = false

    @Option(help: ArgumentHelp("Write a PNG here (rendered with rsvg-convert).", valueName: "file"))
    var png: String?

    @Option(help: ArgumentHelp("Write the SVG here instead of to standard output.", valueName: "file"))
    var svg: String?

    @Flag(help: "Print the geometry (every key's frame, style and font size) as JSON instead of the SVG (displayFrame null without a display line).")
    var json = false

    @Option(help: ArgumentHelp("Tap these keys first, as kbhost type takes them (e.g. \"n i h o n g o space\").",
                               valueName: "taps"))
    var after: TapScriptArgument?

    @Option(help: "Pixels per point in the PNG.")
    var scale: Double = 2

    @Flag(help: "Tell the keyboard the device draws the globe key (needsInputModeSwitchKey false).")
    var noGlobe = false

    @OptionGroup var budget: BudgetOption

    func validate() throws {
        if png != nil && svg != nil { throw ValidationError("give --png or --svg, not both") }
        guard scale > 0, scale <= 8 else { throw ValidationError("--scale must be in (0, 8]") }
        if case .failure(let error) = after?.steps { throw ValidationError("--after: \(error)") }
    }

    func run() throws {
        Sys.ignoreSIGPIPE()
        // A picture that cannot be written is bad usage, said before the keyboard runs (as stress's --svg).
        if let svg { try LongRun.checkWritable(svg, option: "--svg") }
        if let png { try LongRun.checkWritable(png, option: "--png") }
        let renderer = try png.map { _ in try PNGRenderer.find() }
        let context = try Context.make()
        let entry = try report { try context.entry(keyboard) }
        guard let loadable = entry.loadable else {
            throw exitWithError("\(context.name(entry.identifier)) is built into kbhost and sends no layout to draw",
                                status: Kbhost.Exit.refused)
        }
        let picture = try draw(loadable, context)
        if picture.drawnKeys.count < picture.visibleKeys.count, png != nil || svg != nil || !json {
            Console.err("kbhost preview: \(context.name(loadable.identifier)) shows \(picture.visibleKeys.count) keys; "
                        + "\(picture.drawnKeys.count) are drawn (at most \(KeyboardPicture.drawnRowLimit) a row, "
                        + "\(KeyboardPicture.drawnKeyLimit) in all)")
        }
        if let png, let renderer {
            try renderer.render(picture.svg, to: png, scale: scale)
            PNGRenderer.warnAboutFonts(for: picture)
        }
        if let svg {
            do { try Data(picture.svg.utf8).write(to: URL(fileURLWithPath: svg)) } catch {
                throw exitWithError("cannot write \(fileProblem(error))", status: Kbhost.Exit.checkFailed)
            }
        }
        if json {
            try printJSON(picture)
        } else if png == nil && svg == nil {
            Console.out(picture.svg.hasSuffix("\n") ? String(picture.svg.dropLast()) : picture.svg)
        }
    }

    /// Runs the keyboard through appear, rotation and the taps, and lays out what it then shows.
    func draw(_ loadable: LoadableKeyboard, _ context: Context) throws -> KeyboardPicture {
        // A field pinned to the keyboard, as `type` has.
        let manager = try context.pinnedManager(loadable.identifier, needsInputModeSwitchKey: !noGlobe, budget: budget)
        defer { manager.close() }
        let orientation: KeyboardPicture.Orientation = landscape ? .landscape : .portrait
        let steps: [TapStep]
        do { steps = try after?.steps.get() ?? [] } catch { throw exitWithError("--after: \(error)", status: Kbhost.Exit.usage) }
        manager.start()
        if landscape, manager.active != nil { manager.rotate() }  // viewWillTransition to `orientation.size`
        guard let session = manager.active else {
            throw exitWithError(manager.lastFailure?.reason ?? "\(loadable.identifier) did not start", status: Kbhost.Exit.keyboardFailed)
        }
        do throws(SessionError) {
            for step in steps { try manager.perform(step) }
        } catch {
            if error.isNoSuchKeyOrAlternate { throw exitWithError(error.description, status: Kbhost.Exit.noSuchKey) }
            throw exitWithError(error.description, status: Kbhost.Exit.keyboardFailed)
        }
        return KeyboardPicture(keyboard: loadable.identifier, layout: session.layout, orientation: orientation,
                               appearance: dark ? .dark : .light)
    }
}

/// rsvg-convert, which turns the SVG into a PNG.
struct PNGRenderer {
    let path: String

    /// rsvg-convert on PATH, or a clear error that says which package has it.
    static func find() throws -> PNGRenderer {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let path = directories.map({ "\($0)/rsvg-convert" }).first(where: FileManager.default.isExecutableFile) else {
            throw exitWithError("--png needs rsvg-convert, which is not on PATH: install it (Debian and Ubuntu: "
                                + "apt-get install librsvg2-bin; scripts/install-deps does), or write the SVG with --svg FILE",
                                status: Kbhost.Exit.checkFailed)
        }
        return PNGRenderer(path: path)
    }

    func render(_ svg: String, to file: String, scale: Double) throws {
        // In a folder of its own that no one else could have made first: a name in /tmp made of the pid
        // was written through a link another user put there, to any file of the user's (twenty-fourth red team).
        let folder: String
        do { folder = try AtomicFile.makeTemporaryFolder(prefix: "kbhost-preview") } catch {
            throw exitWithError("cannot make a temporary folder for the picture: \(error)", status: Kbhost.Exit.checkFailed)
        }
        let input = folder + "/keyboard.svg"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let process = Process()
        let errors = Pipe()
        do {
            try Data(svg.utf8).write(to: URL(fileURLWithPath: input))
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = ["--format", "png", "--zoom", "\(scale)", "--output", file, input]
            process.standardError = errors
            try process.run()
        } catch {
            throw exitWithError("cannot run \(path): \(error.localizedDescription)", status: Kbhost.Exit.checkFailed)
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw exitWithError("rsvg-convert could not write \(file): \(message.trimmingCharacters(in: .whitespacesAndNewlines))",
                                status: Kbhost.Exit.checkFailed)
        }
    }

    /// Says so on stderr when the picture has Japanese or Chinese text and
    /// fontconfig knows no font for it: rsvg-convert would draw boxes.
    static func warnAboutFonts(for picture: KeyboardPicture) {
        guard picture.hasEastAsianText else { return }
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let fcList = directories.map({ "\($0)/fc-list" }).first(where: FileManager.default.isExecutableFile) else { return }
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: fcList)
        process.arguments = [":lang=ja", "family"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return }
        let families = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if families.allSatisfy({ $0 == 0x0A || $0 == 0x20 }) {
            Console.err("kbhost: warning: no font for Japanese (fc-list :lang=ja is empty): the PNG shows boxes for "
                        + "its kana and kanji; install one (Debian: fonts-droid-fallback)")
        }
    }
}
