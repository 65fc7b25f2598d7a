import ArgumentParser
import Foundation
import KBHost

/// One keyboard as `list` and `current` show it.
struct KeyboardRow: Encodable {
    var identifier: String
    var name: String
    var primaryLanguage: String
    var asciiCapable: Bool
    var rightToLeft: Bool
    var openAccessRequested: Bool
    var openAccessGranted: Bool
    @Nullable var enabledPosition: Int?
    var current: Bool
    var source: String
    /// Failures in a row, and whether the keyboard is set aside (and why).
    var failures: Int
    var setAside: Bool
    @Nullable var lastFailure: String?

    init(_ entry: KeyboardEntry, settings: KeyboardSettings) {
        identifier = entry.identifier
        name = entry.manifest.displayName
        primaryLanguage = entry.manifest.primaryLanguage
        asciiCapable = entry.manifest.isASCIICapable
        rightToLeft = entry.manifest.prefersRightToLeft
        openAccessRequested = entry.manifest.requestsOpenAccess
        openAccessGranted = entry.manifest.requestsOpenAccess && settings.fullAccess.contains(entry.identifier)
        enabledPosition = settings.enabled.firstIndex(of: entry.identifier).map { $0 + 1 }
        current = settings.current == entry.identifier
        source = entry.source
        let record = settings.failures[entry.identifier]
        failures = record?.count ?? 0
        setAside = record?.setAside ?? false
        lastFailure = record?.lastReason
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the enabled keyboards in order (with --all, every keyboard kbhost knows).",
        discussion: """
            * marks the current keyboard; # is the position in the enabled list (the globe key's order); \
            FAILURES counts a keyboard's failures in a row (after \(KeyboardSettings.setAsideAfter) it is set aside until enabled again).
            """)

    @Flag(help: "Every known keyboard, enabled or not.") var all = false
    @Flag(help: "Print JSON for scripts.") var json = false
    @Flag(help: "Print only the identifiers, one a line.") var ids = false

    func validate() throws {
        if json && ids { throw ValidationError("--json and --ids do not go together") }
    }

    func run() throws {
        let context = try Context.make()
        let settings = try context.settings()
        var rows = settings.enabled.compactMap { id in context.registry.entry(id).map { KeyboardRow($0, settings: settings) } }
        if all {
            rows += context.registry.keyboards.filter { !settings.enabled.contains($0.identifier) }
                .map { KeyboardRow($0, settings: settings) }
        }
        if json { return try printJSON(rows) }
        if ids { return rows.forEach { Console.out(TerminalText.line($0.identifier)) } }
        Console.out(ListTable.render(rows))
        for row in rows where row.setAside {
            let id = TerminalText.line(row.identifier)
            Console.out("\(id) is set aside after \(row.failures) failures (last: \(TerminalText.line(row.lastFailure ?? "?"))); `kbhost enable \(id)` to try it again")
        }
    }
}

enum ListTable {
    /// The human table: fixed columns, widths from the content. A cell is one line
    /// (TerminalText.line): a newline in a keyboard's name cannot forge a row.
    static func render(_ rows: [KeyboardRow]) -> String {
        let header = ["", "#", "IDENTIFIER", "NAME", "LANGUAGE", "ASCII", "RTL", "OPEN ACCESS", "FAILURES"]
        let body = rows.map { row -> [String] in
            let access = !row.openAccessRequested ? "-" : (row.openAccessGranted ? "granted" : "requested")
            let failures = row.failures == 0 ? "-" : "\(row.failures)" + (row.setAside ? ", set aside" : "")
            return [row.current ? "*" : "", row.enabledPosition.map(String.init) ?? "-", TerminalText.line(row.identifier),
                    TerminalText.line(row.name), TerminalText.line(row.primaryLanguage),
                    row.asciiCapable ? "yes" : "no", row.rightToLeft ? "yes" : "no", access, failures]
        }
        let table = [header] + body
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        // Columns are padded to their widest cell; the last one is not.
        return table.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }.joined(separator: " ")
        }.joined(separator: "\n")
    }
}

struct Current: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the current keyboard's identifier (with --verbose, its name too).")
    @OptionGroup var output: KeyboardOutput

    func run() throws {
        let context = try Context.make()
        let settings = try context.settings()
        try output.show(settings.current, context: context, settings: settings)
    }
}
