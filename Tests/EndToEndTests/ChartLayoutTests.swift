import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Where a chart's parts lie, read back from its SVG: the canvas, the plot's rectangle, every
/// text's box (estimated from its length: 0.6 em a character, 1 em a wide one, as a sans-serif
/// font at 11 px draws them), the marks and the series' runs in drawing order.
final class ChartLayout: NSObject, XMLParserDelegate {
    struct Box: CustomStringConvertible {
        var text: String, x0: Double, y0: Double, x1: Double, y1: Double
        func overlaps(_ o: Box) -> Bool { x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1 }
        var description: String { "'\(text)' [\(Int(x0))…\(Int(x1)) × \(Int(y0))…\(Int(y1))]" }
    }

    var width = 0.0, height = 0.0
    var plot = Box(text: "plot", x0: 0, y0: 0, x1: 0, y1: 0)
    var boxes: [Box] = []
    /// The y axis title's box (drawn turned a quarter).
    var yTitle: Box?
    /// Per series: its runs drawn as lines (their extent in px) and whether it has dots.
    var lineExtents: [String: [Double]] = [:]
    var dotted: [String: String] = [:]  // series → the id of its dots
    /// Drawing order: "mark", or "use:#id".
    var order: [String] = []
    private var series: String?
    private var text: (attributes: [String: String], string: String)?

    static func read(_ svg: String) throws -> ChartLayout { parseSVG(svg, into: ChartLayout()) }

    static func textWidth(_ s: String, size: Double) -> Double {
        s.unicodeScalars.reduce(0) { $0 + ($1.value >= 0x1100 ? 1.0 : 0.6) } * size
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes a: [String: String] = [:]) {
        func d(_ key: String) -> Double { Double(a[key] ?? "") ?? 0 }
        switch name {
        case "svg": (width, height) = (d("width"), d("height"))
        case "rect" where a["class"] == "plot":
            plot = Box(text: "plot", x0: d("x"), y0: d("y"), x1: d("x") + d("width"), y1: d("y") + d("height"))
        case "g" where a["class"] == "series": series = a["data-name"]
        case "g" where a["class"] == "dots": if let s = series, let id = a["id"] { dotted[s] = id }
        case "polyline":
            guard let s = series else { break }
            let pts = (a["points"] ?? "").split(separator: " ").map { $0.split(separator: ",").compactMap { Double($0) } }
            let xs = pts.map { $0[0] }, ys = pts.map { $0[1] }
            lineExtents[s, default: []].append(hypot(xs.max()! - xs.min()!, ys.max()! - ys.min()!))
        case "use": order.append("use:" + (a["href"] ?? a["xlink:href"] ?? ""))
        case "text": text = (a, "")
        default: break
        }
        if a["class"] == "mark" { order.append("mark") }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text?.string += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "g" { series = nil }
        guard name == "text", let (a, string) = text else { return }
        text = nil
        let size = Double(a["font-size"] ?? "") ?? 11
        let w = Self.textWidth(string, size: size)
        if let transform = a["transform"], transform.contains("rotate(-90)") {
            let numbers = transform.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }.split(separator: " ").compactMap { Double($0) }
            yTitle = Box(text: string, x0: numbers[0] - size, y0: numbers[1] - w / 2, x1: numbers[0], y1: numbers[1] + w / 2)
            return
        }
        let x = Double(a["x"] ?? "") ?? 0, y = Double(a["y"] ?? "") ?? 0
        let x0 = switch a["text-anchor"] { case "end": x - w; case "middle": x - w / 2; default: x }
        boxes.append(Box(text: string, x0: x0, y0: y - 0.8 * size, x1: x0 + w, y1: y + 0.25 * size))
    }

    /// What a person would find wrong with the layout; empty when nothing.
    func problems() -> [String] {
        var found: [String] = []
        let all = boxes + (yTitle.map { [$0] } ?? [])
        for b in all where b.x0 < 0 || b.y0 < 0 || b.x1 > width || b.y1 > height { found.append("\(b) leaves the \(Int(width))×\(Int(height)) canvas") }
        for b in all where b.overlaps(plot) { found.append("\(b) lies on the plot \(plot)") }
        for (i, b) in all.enumerated() { for c in all[(i + 1)...] where b.overlaps(c) { found.append("\(b) overlaps \(c)") } }
        if let t = yTitle, t.y0 < plot.y0 || t.y1 > plot.y1 { found.append("the y axis title \(t) is longer than the plot is high") }
        return found
    }

    /// Series whose every line is too short to see and that have no dot drawn after the last mark.
    func hidden() -> [String] {
        let lastMark = order.lastIndex(of: "mark") ?? -1
        let names = Set(lineExtents.keys).union(dotted.keys)
        return names.filter { name in
            if lineExtents[name, default: []].contains(where: { $0 >= 4 }) { return false }
            guard let id = dotted[name], let use = order.firstIndex(of: "use:#" + id) else { return true }
            return use < lastMark
        }.sorted()
    }
}

/// Reads `svg` into `reader`, expecting it well formed.
func parseSVG<Reader: XMLParserDelegate>(_ svg: String, into reader: Reader) -> Reader {
    let parser = XMLParser(data: Data(svg.utf8))
    parser.delegate = reader
    #expect(parser.parse(), "well-formed SVG: \(String(describing: parser.parserError))")
    return reader
}

extension World {
    /// Installs the fault plugin's LeakOnKey (4 MiB a 'boom', never freed) as dev.example.Leak and
    /// writes a script of `booms` taps of boom for `kbhost profile`; returns the script's path.
    func leakingKeyboard(booms: Int) throws -> String {
        let bundle = try makeBundle(id: "dev.example.Leak", library: "libFaultKeyboards.so", principal: "LeakOnKey")
        #expect(try kbhost("install", bundle).status == 0)
        let script = root + "/script.txt"
        try Array(repeating: "boom", count: booms).joined(separator: " ").write(toFile: script, atomically: true, encoding: .utf8)
        return script
    }
}

/// The PNG's size, from its IHDR chunk.
func pngSize(_ path: String) throws -> (width: Int, height: Int) {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(data.count > 1000 && data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "a PNG")
    func be32(_ at: Int) -> Int { data[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
    return (be32(16), be32(20))
}

func renderPNG(_ svg: String, to png: String) throws -> Bool {
    let tool = try #require(["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first(where: FileManager.default.isExecutableFile),
                            "rsvg-convert (librsvg2-bin, scripts/install-deps) renders the charts")
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = [svg, "-o", png]
    try p.run()
    p.waitUntilExit()
    return p.terminationStatus == 0
}

@Suite("kbhost stress and profile: charts a person can read")
struct ChartLayoutTests {
    func check(_ svg: String, png: String) throws {
        let layout = try ChartLayout.read(try String(contentsOfFile: svg, encoding: .utf8))
        #expect(layout.plot.x1 > layout.plot.x0 && layout.boxes.count > 10)
        #expect(layout.problems().isEmpty, "\(layout.problems().joined(separator: "\n"))")
        #expect(layout.hidden().isEmpty, "series with data that cannot be seen: \(layout.hidden())")
        #expect(try renderPNG(svg, to: png))
        let size = try pngSize(png)
        #expect(size.width == Int(layout.width) && size.height == Int(layout.height), "rendered at the chart's size: \(size)")
    }

    @Test func theStressChartsLabelsKeepOffTheDataAndEachOtherAndEveryKeyboardShows() throws {
        let w = try World()
        let svg = w.root + "/stress.svg"
        let r = try w.run(["stress", "--duration", "2", "--faults", "all", "--fault-rate", "4", "--seed", "5", "--svg", svg, "--json"],
                          extraEnvironment: LongRunTests.real)
        #expect(r.status == 0, "\(r.err)")
        try check(svg, png: w.root + "/stress.png")
    }

    @Test func theProfileChartsLabelsKeepOffTheDataAndEachOther() throws {
        let w = try World()
        let script = try w.leakingKeyboard(booms: 28)
        let svg = w.root + "/p.svg"
        #expect(try w.kbhost("profile", "dev.example.Leak", "--script", script, "--svg", svg).status == 0)
        try check(svg, png: w.root + "/p.png")
    }

    /// A profile's chart says without the report what the report says: the peak in its title,
    /// and which profiles the keyboard fits (a dashed line in the legend, as their budgets are drawn).
    @Test func theProfileChartSaysThePeakAndWhichProfilesFit() throws {
        let w = try World()
        let script = w.root + "/five.txt"
        try "1 2 3 4 5".write(toFile: script, atomically: true, encoding: .utf8)
        let svg = w.root + "/p.svg"
        let r = try w.run(["profile", "dev.kbhost.NumberPad", "--script", script, "--svg", svg], extraEnvironment: LongRunTests.real)
        #expect(r.status == 0, "\(r.err)")
        let peak = try #require(r.out.firstMatch(of: /peak footprint ([0-9.]+) MiB/)?.1)
        let chart = try ChartReader.read(try String(contentsOfFile: svg, encoding: .utf8))
        #expect(chart.title == "kbhost profile: dev.kbhost.NumberPad, footprint after each tap, peak \(peak) MiB")
        for fits in ["older-phone (48 MiB): fits", "recent-phone (77 MiB): fits", "tablet (90 MiB): fits"] {
            #expect(chart.texts.contains(fits), "\(chart.texts)")
        }
        #expect(chart.marks.isEmpty)
    }
}
