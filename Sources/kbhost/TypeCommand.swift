import ArgumentParser
import Foundation
import KBHost
import KBSystem
import KBText

struct TypeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "type",
        abstract: "Load a keyboard into a fresh document, tap keys, and print the document's text.",
        discussion: """
            Each TAP names a key by its label. The names space, return, delete, shift and globe tap \
            the key with that role whatever its label; id:NAME taps a key by identifier. Timed input:
              double:KEY       double tap          long:KEY      long press
              long:KEY:CHOICE  long press, pick an alternate the key offers (long:e:é)
              drag:KEY:DX[,DY]/…  a drag from the key's centre (drag:space:-40)
              hold:KEY:MS      hold for MS ms      pause:MS      let MS ms pass
              rotate:landscape, rotate:portrait or rotate:WxH   the keyboard's size changes (viewWillTransition)
              reopen           shown again: a new controller, the same process (as iOS)
            The keyboard gets its container, the user's text replacements and, when the user granted \
            it (kbhost access ID on), open access, as in kbhost attach.
            Example: kbhost type --keyboard dev.kbhost.Calculator 1 2 + 3 =   (prints 15)
            """)

    @Option(name: .long, help: ArgumentHelp("The keyboard: its identifier (dev.kbhost.Calculator) or a display name only one keyboard has.",
                                            valueName: "keyboard"), completion: KeyboardName.completion)
    var keyboard: String

    @Flag(help: "Print text, selection, marked text, display and the life-cycle events as JSON.")
    var json = false

    @Option(help: "Text the document starts with (the insertion point at its end).")
    var text = ""

    @Option(help: "The field's keyboard type (default, asciiCapable, url, numberPad, emailAddress, …).")
    var keyboardType: String = "default"

    @Option(help: "The field's autocorrection trait: default, yes or no.")
    var autocorrection: String = "default"

    @Option(help: "The field's autocapitalization trait: none, words, sentences or allCharacters.")
    var autocapitalization: String = "sentences"

    @Option(help: "Read more taps from a file (whitespace-separated, after the TAP arguments); - for standard input.")
    var script: String?

    @OptionGroup var budget: BudgetOption

    @Argument(help: "Keys to tap, in order.")
    var taps: [TapArgument] = []

    func validate() throws {
        guard KeyboardTypeName.parse(keyboardType) != nil else {
            throw ValidationError("unknown keyboard type '\(keyboardType)'; one of: \(KeyboardTypeName.all.joined(separator: ", "))")
        }
        _ = try taps.steps()
        guard TextInputTraits.Tristate.named(autocorrection) != nil else {
            throw ValidationError("--autocorrection must be default, yes or no, not '\(autocorrection)'")
        }
        guard TextInputTraits.Autocapitalization.named(autocapitalization) != nil else {
            throw ValidationError("--autocapitalization must be none, words, sentences or allCharacters, not '\(autocapitalization)'")
        }
    }

    /// The TAP arguments (parsed with the command line), then the script's.
    func allTaps() throws -> [TapStep] {
        var tokens: [String] = []
        if let script {
            tokens += try TapScript.text(script).split(whereSeparator: \.isWhitespace).map(String.init)
        }
        do { return try taps.steps() + tokens.map(TapStep.init) } catch {
            throw exitWithError("\(error)", status: Kbhost.Exit.usage)
        }
    }

    func run() throws {
        Sys.ignoreSIGPIPE()
        let context = try Context.make()
        let entry = try report { try context.entry(keyboard) }
        guard entry.loadable != nil else {
            throw exitWithError("\(context.name(entry.identifier)) is built into kbhost and has no plugin to type through",
                                status: Kbhost.Exit.refused)
        }
        context.warnIfStale(entry)
        var field = FieldContext()
        field.traits.keyboardType = KeyboardTypeName.parse(keyboardType) ?? .default
        field.traits.autocorrection = TextInputTraits.Tristate.named(autocorrection) ?? .default
        field.traits.autocapitalization = TextInputTraits.Autocapitalization.named(autocapitalization) ?? .sentences
        let steps = try allTaps()
        // The input manager serves the field, with the named keyboard pinned to it.
        let manager = try context.pinnedManager(entry.identifier, field: field, text: text, budget: budget)
        defer { manager.close() }
        manager.start()
        guard let session = manager.active else {
            throw exitWithError(manager.lastFailure?.reason ?? "\(entry.identifier) did not start", status: Kbhost.Exit.keyboardFailed)
        }
        var status: Int32 = 0
        var message: String?
        do throws(SessionError) {
            for step in steps { try manager.perform(step) }
        } catch {
            message = error.description
            if error.isNoSuchKeyOrAlternate { status = Kbhost.Exit.noSuchKey } else { status = Kbhost.Exit.keyboardFailed }
        }
        if status == 0 {
            do { try manager.finish() } catch { message = "\(error)"; status = Kbhost.Exit.keyboardFailed }
        }
        let report = TypeReport(session: session, pid: session.pid, budget: manager.budget)
        manager.close()
        // The document as it is, but for its control characters (Console escapes them).
        Console.out(json ? try jsonText(report) : session.document.text)
        if let message { throw exitWithError(message, status: status) }
    }
}

enum KeyboardTypeName {
    static let all = TextInputTraits.KeyboardType.allCases.map { String(describing: $0) }
    static func parse(_ s: String) -> TextInputTraits.KeyboardType? {
        TextInputTraits.KeyboardType.allCases.first { String(describing: $0).lowercased() == s.lowercased() }
    }
}

/// `kbhost type --json`.
struct TypeReport: Encodable {
    struct Range: Encodable { var location: Int; var length: Int }
    var keyboard: String
    var pid: Int32
    var text: String
    var selection: Range
    @Nullable var markedText: String?
    @Nullable var markedSelectedRange: Range?
    var display: String
    var events: [String]
    @Nullable var failure: String?
    /// The extension process's peak footprint (RssAnon + RssShmem + swap), as the governor saw it.
    @Nullable var peakFootprintBytes: Int?
    @Nullable var memoryBudgetBytes: Int?

    init(session: KeyboardSession, pid: Int32, budget: Int?) {
        let buffer = session.document.buffer
        keyboard = session.keyboard.identifier
        self.pid = pid
        text = buffer.text
        selection = Range(location: buffer.selection.location, length: buffer.selection.length)
        markedText = buffer.markedText.map(String.init)
        markedSelectedRange = buffer.markedSelectedRange.map { Range(location: $0.location, length: $0.length) }
        display = session.layout.display
        events = session.events.map(\.description)
        failure = session.failure?.description
        peakFootprintBytes = session.peakFootprint
        memoryBudgetBytes = budget
    }
}

extension TextInputTraits.Tristate {
    static func named(_ s: String) -> Self? { allCases.first { String(describing: $0).lowercased() == s.lowercased() } }
}

extension TextInputTraits.Autocapitalization {
    static func named(_ s: String) -> Self? { allCases.first { String(describing: $0).lowercased() == s.lowercased() } }
}
