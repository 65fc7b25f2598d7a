import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import KBHost
import KBSystem
import Testing

/// What a chart holds, read back from its SVG: the points of each series,
/// the kinds of the marks, the labels.
final class ChartReader: NSObject, XMLParserDelegate {
    var points: [String: Int] = [:]
    var marks: [String] = []
    var texts: [String] = []
    var title = ""
    var thresholdLabelYs: [Double] = []
    private var series: String?
    private var text: String?

    static func read(_ svg: String) throws -> ChartReader { parseSVG(svg, into: ChartReader()) }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if name == "g", attributes["class"] == "series" { series = attributes["data-name"]; points[series!] = 0 }
        if let s = series, name == "polyline" {
            points[s, default: 0] += (attributes["points"] ?? "").split(separator: " ").count
        }
        if let s = series, name == "circle" { points[s, default: 0] += 1 }
        if attributes["class"] == "mark", let kind = attributes["data-kind"] { marks.append(kind) }
        if name == "text" { text = "" }
        if name == "text", attributes["class"] == "threshold-label", let y = Double(attributes["y"] ?? "") { thresholdLabelYs.append(y) }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text? += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "g" { series = nil }
        if name == "text", let t = text { texts.append(t); if title.isEmpty { title = t }; text = nil }
    }
}

/// Renders with rsvg-convert when it is installed: the chart must be one it accepts.
func renders(_ svg: String, to png: String) throws -> Bool {
    guard let tool = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first(where: FileManager.default.isExecutableFile)
    else { return true }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = [svg, "-o", png]
    try p.run()
    p.waitUntilExit()
    return p.terminationStatus == 0 && FileManager.default.fileExists(atPath: png)
}

@Suite("kbhost stress and profile: charts and long runs")
struct LongRunTests {
    static let real = ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!]

    @Test func stressChartDrawsEveryKeyboardAndEveryKillByReason() throws {
        let w = try World()
        let svg = w.root + "/stress.svg"
        let r = try w.run(["stress", "--duration", "2", "--faults", "all", "--fault-rate", "4", "--seed", "5",
                           "--svg", svg, "--json"], extraEnvironment: Self.real)
        #expect(r.status == 0, "\(r.err)")
        #expect(!r.err.contains("\r") && !r.err.contains("\u{1B}"), "a redirected stderr gets plain lines: \(r.err.debugDescription)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect(report["interrupted"] as? Bool == false)
        let chart = try ChartReader.read(try String(contentsOfFile: svg, encoding: .utf8))
        #expect(chart.title.hasPrefix("kbhost stress"))
        let peaks = try #require(report["peakFootprintBytes"] as? [String: Int])
        for id in peaks.keys { #expect((chart.points[id] ?? 0) > 0, "\(id) has data and points: \(chart.points)") }
        #expect(chart.points.values.allSatisfy { $0 > 0 }, "every series in the legend is drawn: \(chart.points)")
        let kills = try #require(report["kills"] as? [String: Int])
        if kills["memory", default: 0] > 0 {
            let climbers = ["dev.kbhost.fault.spike", "dev.kbhost.fault.leak"]
            #expect(climbers.contains { (chart.points[$0] ?? 0) > 0 }, "the climb to the kill is drawn: \(chart.points)")
        }
        #expect(chart.marks.count == kills.values.reduce(0, +), "a mark per kill")
        for (kind, count) in kills where count > 0 {
            #expect(chart.marks.contains("kill: \(kind)"), "\(kind) is marked")
            #expect(chart.texts.contains("kill: \(kind)"), "and in the legend")
        }
        #expect(chart.texts.contains("0") && chart.texts.contains("budget 48 MiB"), "axes from 0, the budget labelled")
        #expect(chart.texts.contains { $0.contains("(s)") } && chart.texts.contains { $0.contains("(MiB)") }, "units")
        #expect(try renders(svg, to: w.root + "/stress.png"))
    }

    @Test func anUnwritableChartPathFailsBeforeTheRun() throws {
        let w = try World()
        for command in [["stress", "--duration", "30"], ["profile", "dev.kbhost.NumberPad", "--script", "/dev/null"]] {
            let start = Date()
            let r = try w.run(command + ["--svg", w.root + "/missing/chart.svg"], extraEnvironment: Self.real)
            #expect(r.status == 64, "\(command[0]): \(r.err)")
            #expect(r.err.contains("cannot write --svg") && r.err.contains("does not exist"), "\(r.err)")
            #expect(Date().timeIntervalSince(start) < 10, "at once, not after the run")
            let folder = try w.run(command + ["--svg", w.root], extraEnvironment: Self.real)
            #expect(folder.status == 64 && folder.err.contains("is a folder"), "\(folder.err)")
        }
    }

    /// The chart's folder went away during the run: the report still comes, then why the chart
    /// could not be written, said as the check before the run says it (it was Foundation's "The
    /// operation could not be completed. The file doesn't exist.").
    @Test func aChartFolderGoneDuringTheRunIsSaidPlainlyAfterTheReport() throws {
        let w = try World()
        let folder = w.root + "/charts"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let process = Fixtures.kbhostProcess(["stress", "--duration", "2", "--svg", folder + "/s.svg"],
                                             environment: w.environment.merging(Self.real.mapValues { $0 }) { $1 })
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        Thread.sleep(forTimeInterval: 1)
        try FileManager.default.removeItem(atPath: folder)
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(stdout.contains("characters expected") && stdout.contains("timeline: not written"), "\(stdout)")
        #expect(stderr.contains("kbhost: error: cannot write the chart \(folder)/s.svg: the folder \(folder) does not exist"), "\(stderr)")
    }

    @Test func ctrlCEndsAStressRunWithTheReportAndTheChart() throws {
        let w = try World()
        let svg = w.root + "/stress.svg"
        let process = Fixtures.kbhostProcess(["stress", "--duration", "60", "--svg", svg, "--json"],
                                             environment: w.environment.merging(Self.real.mapValues { $0 }) { $1 })
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        Thread.sleep(forTimeInterval: 1.5)
        kill(process.processIdentifier, SIGINT)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        _ = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any])
        #expect(report["interrupted"] as? Bool == true)
        #expect((report["seconds"] as? Double ?? 60) < 30)
        #expect(report["passed"] as? Bool == true)
        let chart = try ChartReader.read(try String(contentsOfFile: svg, encoding: .utf8))
        #expect(!chart.points.isEmpty && chart.points.values.allSatisfy { $0 > 0 })
    }

    @Test func ctrlCEndsAProfileWithTheTapsItRan() throws {
        let w = try World()
        let script = w.root + "/long.txt", svg = w.root + "/p.svg"
        try String(repeating: "1 ", count: 300_000).write(toFile: script, atomically: true, encoding: .utf8)
        let process = Fixtures.kbhostProcess(["profile", "dev.kbhost.NumberPad", "--script", script, "--svg", svg, "--json"],
                                             environment: w.environment.merging(Self.real.mapValues { $0 }) { $1 })
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        try process.run()
        Thread.sleep(forTimeInterval: 1.5)
        kill(process.processIdentifier, SIGINT)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any])
        #expect(report["interrupted"] as? Bool == true)
        let taps = try #require(report["taps"] as? Int)
        #expect(taps < 300_000 && report["scriptTaps"] as? Int == 300_000)
        let chart = try ChartReader.read(try String(contentsOfFile: svg, encoding: .utf8))
        #expect(chart.points["dev.kbhost.NumberPad"] == taps + 1, "a point before the first tap and after each")
    }

    @Test func aComposingKeyboardIsRefusedNotAMismatch() throws {
        let w = try World()
        let r = try w.run(["stress", "--keyboard", "dev.kbhost.Kana", "--duration", "1", "--svg", w.root + "/k.svg"],
                          extraEnvironment: Self.real)
        #expect(r.status == 7, "\(r.out)\(r.err)")
        #expect(r.err.contains("composes text") && !r.out.contains("MISMATCH"), "\(r.err)")
    }

    @Test func profileChartHasALinePerDeviceProfileAndMarksTheKills() throws {
        let w = try World()
        let script = try w.leakingKeyboard(booms: 15)
        let svg = w.root + "/p.svg"
        let r = try w.kbhost("profile", "dev.example.Leak", "--script", script, "--svg", svg, "--fail-over", "tablet")
        #expect(r.status == 0, "tablet fits: \(r.err)")
        let chart = try ChartReader.read(try String(contentsOfFile: svg, encoding: .utf8))
        #expect(chart.title.hasPrefix("kbhost profile: dev.example.Leak"))
        #expect(chart.points["dev.example.Leak"] == 16, "before the first tap and after each of 15")
        for label in ["older-phone 48 MiB", "recent-phone 77 MiB", "tablet 90 MiB"] { #expect(chart.texts.contains(label)) }
        #expect(chart.texts.contains { $0.hasPrefix("tap number") } && chart.texts.contains("15"), "a tap axis")
        #expect(chart.marks.count == 1 && chart.texts.contains { $0.hasPrefix("older-phone kills after tap ") }, "\(chart.texts)")
        let ys = chart.thresholdLabelYs.sorted()
        #expect(ys.count == 3 && zip(ys, ys.dropFirst()).allSatisfy { $1 - $0 >= 12 }, "budget labels apart: \(ys)")
        #expect(try renders(svg, to: w.root + "/p.png"))
        let failing = try w.kbhost("profile", "dev.example.Leak", "--script", script, "--svg", svg, "--fail-over", "older-phone")
        #expect(failing.status == 1, "older-phone would have killed it")
        #expect(failing.err.contains("older-phone would have killed dev.example.Leak after tap"), "\(failing.err)")
        #expect(try w.kbhost("profile", "dev.example.Leak", "--script", script, "--fail-over", "watch").status == 64)
    }
}
