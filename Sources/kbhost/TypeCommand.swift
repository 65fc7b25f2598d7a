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
              hold:KEY:MS      hold for MS ms      pause:MS      let MS ms pass
            Example: kbhost type --keyboard dev.kbhost.Calculator 1 2 + 3 =   (prints 15)
            """)

    @Option(name: .long, help: "The keyboard's bundle identifier, e.g. dev.kbhost.Calculator.")
    var keyboard: String

    @Flag(help: "Print text, selection, marked text, display and the life-cycle events as JSON.")
    var json = false

    @Option(help: "Text the document starts with (the insertion point at its end).")
    var text = ""

    @Option(help: "The field's keyboard type (default, asciiCapable, url, numberPad, emailAddress, …).")
    var keyboardType: String = "default"

    @OptionGroup var budget: BudgetOption

    @Argument(help: "Keys to tap, in order.")
    var taps: [String] = []

    func validate() throws {
        guard KeyboardTypeName.parse(keyboardType) != nil else {
            throw ValidationError("unknown keyboard type '\(keyboardType)'; one of: \(KeyboardTypeName.all.joined(separator: ", "))")
        }
        for tap in taps { _ = try TapStep(tap) }
    }

    func run() throws {
        Sys.ignoreSIGPIPE()
        let context = try Context.make()
        let installation = context.installation
        let entry = try report { try context.entry(keyboard) }
        guard let loadable = entry.loadable else {
            throw exitWithError("\(entry.manifest.displayName) is built into kbhost and has no plugin to type through",
                                status: Kbhost.Exit.refused)
        }
        var traits = TextInputTraits()
        traits.keyboardType = KeyboardTypeName.parse(keyboardType) ?? .default
        let document = TextDocument(text: text, traits: traits)
        var configuration = installation.processConfiguration
        configuration.memoryBudgetBytes = try budget.bytes(context)
        let session: KeyboardSession
        do {
            session = try KeyboardSession(keyboard: loadable, document: document,
                                          configuration: configuration, needsInputModeSwitchKey: true)
            try session.appear()
        } catch {
            throw exitWithError("\(error)", status: Kbhost.Exit.keyboardFailed)
        }
        var status: Int32 = 0
        var message: String?
        do {
            for tap in taps { try TapStep(tap).perform(on: session) }
        } catch let error as SessionError {
            message = error.description
            if case .noSuchKey = error { status = Kbhost.Exit.noSuchKey } else { status = Kbhost.Exit.keyboardFailed }
        }
        if status == 0 {
            do { try session.disappear() } catch { message = "\(error)"; status = Kbhost.Exit.keyboardFailed }
        }
        let pid = session.pid
        session.close()
        if json {
            print(try TypeReport(session: session, pid: pid).jsonString())
        } else {
            print(session.document.text)
        }
        if let message { throw exitWithError(message, status: status) }
    }
}

/// One step of a tap script.
struct TapStep {
    enum Kind { case gesture(Gesture, String), pause(Int) }
    let kind: Kind

    init(_ token: String) throws {
        let parts = token.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        func ms(_ s: String) throws -> Int {
            guard let n = Int(s), n >= 0, n <= 600_000 else { throw ValidationError("'\(token)': '\(s)' is not a duration in ms (0…600000)") }
            return n
        }
        switch parts.first {
        case "double" where parts.count == 2: kind = .gesture(.doubleTap, parts[1])
        case "long" where parts.count == 2: kind = .gesture(.longPress, parts[1])
        case "hold" where parts.count == 3: kind = .gesture(.hold(milliseconds: try ms(parts[2])), parts[1])
        case "pause" where parts.count == 2: kind = .pause(try ms(parts[1]))
        default: kind = .gesture(.tap, token)
        }
    }

    func perform(on session: KeyboardSession) throws(SessionError) {
        switch kind {
        case .gesture(let g, let name): try session.perform(g, on: name)
        case .pause(let ms): session.pause(milliseconds: ms)
        }
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
    var markedText: String?
    var markedSelectedRange: Range?
    var display: String
    var events: [String]
    var failure: String?

    init(session: KeyboardSession, pid: Int32) {
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
    }

    func jsonString() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
