import Foundation
import KBHost
import Testing

/// One golden case: kbhost commands run in order in a fresh world of their own, whose
/// transcript (each command's stdout, stderr and exit status) is pinned in Golden/NAME.txt.
/// `KBHOST_UPDATE_GOLDEN=1 swift test --filter Golden` rewrites the files.
struct GoldenCase: Sendable, CustomTestStringConvertible {
    /// The file's name, without .txt.
    let name: String
    /// One line saying what the case shows; the file's first line.
    let about: String
    /// Command lines as a shell takes them: `VAR=value` words first, then `kbhost` and its arguments,
    /// words split at spaces, '…' and "…" quoting. `$ROOT` is this world's folder, `$REPO` the checkout.
    let commands: [String]
    /// Files the commands need (bundles, scripts, a corrupt settings file), made before the first command.
    var prepare: (@Sendable (GoldenWorld) throws -> Void)?
    /// What truly varies from run to run (pids, timings, memory figures), and what stands in for it.
    var variable: [Variable] = []

    init(_ name: String, _ about: String, _ commands: [String], variable: [Variable] = [],
         prepare: (@Sendable (GoldenWorld) throws -> Void)? = nil) {
        self.name = name
        self.about = about
        self.commands = commands
        self.variable = variable
        self.prepare = prepare
    }

    var testDescription: String { name }
}

/// A part of the output that varies, found by a regular expression and replaced by a
/// template (`$1` for a group): `Variable(#""pid" : \d+"#, #""pid" : <pid>"#)`.
struct Variable: Sendable {
    let pattern: String
    let template: String

    init(_ pattern: String, _ template: String) {
        self.pattern = pattern
        self.template = template
    }

    func apply(_ text: String) -> String {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else {
            Issue.record("not a regular expression: \(pattern)")
            return text
        }
        return regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
    }
}

/// A fresh folder for one case: the settings (KBHOST_HOME), the daemon's folder, a HOME,
/// and the working directory, all inside it; and the fixed environment the commands see.
final class GoldenWorld: @unchecked Sendable {
    let root: String
    var home: String { root + "/home" }
    var work: String { root + "/work" }

    init() throws {
        root = NSTemporaryDirectory() + "kbhost-golden-" + UUID().uuidString
        for folder in [home, work, root + "/user"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Everything a command sees: nothing inherited but PATH, so that the output is the same
    /// on every machine and in every shell (no terminal: stdin is /dev/null, the rest pipes).
    var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": root + "/user", "XDG_DATA_HOME": root + "/user/.local/share", "XDG_CONFIG_HOME": root + "/user/.config",
            "KBHOST_HOME": home, "KBHOST_RUNTIME_DIR": root + "/run",
            "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? "",
            "COLUMNS": "80", "LINES": "24", "TERM": "dumb", "TZ": "UTC", "LC_ALL": "C.UTF-8",
        ]
    }

    func write(_ text: String, to path: String) throws {
        let full = root + "/" + path
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: full, atomically: true, encoding: .utf8)
    }

    /// A keyboard bundle in $ROOT/FOLDER/ID: a copy of a built plugin and a binary manifest naming its class.
    @discardableResult
    func bundle(_ id: String, library: String, principal: String, name: String, in folder: String = "bundles") throws -> String {
        let bundle = root + "/" + folder + "/" + id
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.installation.productsDirectory + "/" + library, toPath: bundle + "/" + library)
        let plist: [String: Any] = [
            "CFBundleIdentifier": id, "CFBundleDisplayName": name, "CFBundleExecutable": library,
            "NSExtension": ["NSExtensionPointIdentifier": "com.apple.keyboard-service", "NSExtensionPrincipalClass": principal,
                            "NSExtensionAttributes": ["IsASCIICapable": true, "PrimaryLanguage": "en-US"]],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
            .write(to: URL(fileURLWithPath: bundle + "/Info.plist"))
        return bundle
    }

    /// Runs one command line; returns its transcript: the line, stdout, `[stderr]` and stderr, `[exit N]`.
    func transcript(of line: String, variable: [Variable]) throws -> String {
        var words = try Golden.words(line)
        var extra: [String: String] = [:]
        while let first = words.first, let eq = first.firstIndex(of: "="), first != "kbhost" {
            extra[String(first[..<eq])] = expand(String(first[first.index(after: eq)...]))
            words.removeFirst()
        }
        guard words.first == "kbhost" else { throw GoldenError.notKbhost(line) }
        let (status, out, err) = try run(words.dropFirst().map(expand), extra: extra)
        var text = "$ " + line + "\n"
        text += section(normalize(out, variable), "stdout")
        if !err.isEmpty { text += "[stderr]\n" + section(normalize(err, variable), "stderr") }
        return text + "[exit \(status)]\n"
    }

    private func section(_ text: String, _ name: String) -> String {
        text.isEmpty || text.hasSuffix("\n") ? text : text + "\n[no newline at the end of \(name)]\n"
    }

    func expand(_ word: String) -> String {
        word.replacingOccurrences(of: "$ROOT", with: root).replacingOccurrences(of: "$REPO", with: Golden.repository)
    }

    /// The places that differ from machine to machine become $PRODUCTS, $REPO and $ROOT, then
    /// the case's own variable parts are replaced.
    func normalize(_ text: String, _ variable: [Variable]) -> String {
        var text = text
        let products = Fixtures.installation.productsDirectory
        let places = [(products, "$PRODUCTS"), (Golden.resolved(products), "$PRODUCTS"), (Golden.repository, "$REPO"),
                      (Golden.resolved(Golden.repository), "$REPO"), (root, "$ROOT"), (Golden.resolved(root), "$ROOT")]
        for (path, name) in places.sorted(by: { $0.0.count > $1.0.count }) where path.count > 1 {
            text = text.replacingOccurrences(of: path, with: name)
        }
        return variable.reduce(text) { $1.apply($0) }
    }

    /// One kbhost process, stdin from /dev/null, stdout and stderr read at once (neither can fill
    /// its pipe and stall the other), killed after two minutes.
    func run(_ arguments: [String], extra: [String: String]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.installation.productsDirectory + "/kbhost")
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: work)
        process.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        let box = DataBox()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { box.data = err.fileHandleForReading.readDataToEndOfFile() }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        watchdog.cancel()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: box.data, as: UTF8.self))
    }
}

private final class DataBox: @unchecked Sendable {
    var data = Data()
}

enum GoldenError: Error, CustomStringConvertible {
    case notKbhost(String)
    case unfinishedQuote(String)

    var description: String {
        switch self {
        case .notKbhost(let line): "a golden command line runs kbhost: \(line)"
        case .unfinishedQuote(let line): "a quote is not closed: \(line)"
        }
    }
}

enum Golden {
    /// The checkout: three folders above this file (Tests/EndToEndTests/GoldenSupport.swift).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden").path
    static let updating = ProcessInfo.processInfo.environment["KBHOST_UPDATE_GOLDEN"] == "1"

    static func resolved(_ path: String) -> String { (path as NSString).resolvingSymlinksInPath }

    /// A command line's words, as a shell splits them: at spaces, '…' and "…" keeping theirs.
    static func words(_ line: String) throws -> [String] {
        var words: [String] = [], word = "", inWord = false, quote: Character?
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { word.append(c) }
            } else if c == "'" || c == "\"" {
                quote = c
                inWord = true
            } else if c == " " {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(c)
                inWord = true
            }
        }
        if quote != nil { throw GoldenError.unfinishedQuote(line) }
        if inWord { words.append(word) }
        return words
    }

    /// Runs a case in a fresh world and returns the whole transcript.
    static func transcript(of c: GoldenCase) throws -> String {
        let world = try GoldenWorld()
        try c.prepare?(world)
        var text = "# " + c.about + "\n"
        for line in c.commands { text += "\n" + (try world.transcript(of: line, variable: c.variable)) }
        return text
    }

    /// Compares a case's transcript with its file, or rewrites the file when updating.
    static func check(_ c: GoldenCase) throws {
        let actual = try transcript(of: c)
        let path = folder + "/" + c.name + ".txt"
        let expected = try? String(contentsOfFile: path, encoding: .utf8)
        if updating {
            if expected != actual {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try actual.write(toFile: path, atomically: true, encoding: .utf8)
            }
            return
        }
        guard let expected else {
            Issue.record("no golden file \(path); KBHOST_UPDATE_GOLDEN=1 swift test --filter Golden writes it:\n\(actual)")
            return
        }
        #expect(actual == expected, "\(c.name).txt differs (KBHOST_UPDATE_GOLDEN=1 rewrites it):\n\(difference(expected, actual))")
    }

    /// The first line that differs, with two lines before it, and the whole output of this run.
    static func difference(_ expected: String, _ actual: String) -> String {
        let e = expected.components(separatedBy: "\n"), a = actual.components(separatedBy: "\n")
        let first = Array(zip(e, a)).firstIndex { $0 != $1 } ?? min(e.count, a.count)
        let from = max(0, first - 2)
        return "line \(first + 1):\n  expected: " + e[from..<min(e.count, first + 1)].joined(separator: "\n            ")
            + "\n  actual:   " + a[from..<min(a.count, first + 1)].joined(separator: "\n            ")
            + "\n--- this run:\n" + actual
    }
}
