import Foundation
import FoundationXML
import KBHost
import Testing

/// `kbhost preview`: the sample keyboards drawn from the layouts they really send.
@Suite("kbhost preview: a picture of the keyboard")
struct PreviewTests {
    static let samples = ["dev.kbhost.Calculator", "dev.kbhost.Science", "dev.kbhost.Kana", "dev.kbhost.English",
                          "dev.kbhost.NumberPad"]
    var env: [String: String] { ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""] }

    /// rsvg-convert on PATH (Debian's librsvg2-bin), which `--png` needs.
    static let hasRSVG = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .contains { FileManager.default.isExecutableFile(atPath: "\($0)/rsvg-convert") }
    static let rsvgNote: Comment = "--png needs rsvg-convert: install librsvg2-bin (scripts/install-deps does)"

    /// Runs `kbhost preview` and expects it to succeed.
    func preview(_ w: World, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let r = try w.run(["preview"] + arguments, extraEnvironment: env.merging(environment) { $1 })
        #expect(r.status == 0, "\(arguments): \(r.err)")
        return r.out
    }

    func picture(_ w: World, _ arguments: [String], environment: [String: String] = [:]) throws -> KeyboardPicture {
        try JSONDecoder().decode(KeyboardPicture.self, from: Data(try preview(w, arguments + ["--json"], environment: environment).utf8))
    }

    @Test(arguments: samples)
    func theSVGHasOneRectPerKeyWithItsWidthAndLabel(keyboard: String) throws {
        let w = try World()
        let svg = try preview(w, [keyboard])
        let drawn = try DrawnKeys(svg)
        let geometry = try picture(w, [keyboard])
        let visible = geometry.visibleKeys
        #expect(!visible.isEmpty)
        #expect(drawn.rects == visible.count, "one <rect> per visible key and no other")
        #expect(drawn.keys.count == visible.count)
        #expect(drawn.keys.map(\.label) == visible.map(\.label), "the labels, in layout order")
        #expect(drawn.keys.map(\.identifier) == visible.map(\.identifier))
        // Key caps: one unit for the whole keyboard, so (width + gap) / layout width is the same for every key.
        let caps = drawn.keys.filter { $0.style != "candidate" }
        for key in caps {
            #expect(abs((key.rect.width + drawn.gap) / key.width - drawn.unit) < 0.02,
                    "\(keyboard) \(key.identifier): \(key.rect.width) pt for width \(key.width)")
        }
        // A candidate bar shares the picture's width in proportion to its keys' widths.
        for row in Set(drawn.keys.filter { $0.style == "candidate" }.map(\.row)) {
            let bar = drawn.keys.filter { $0.style == "candidate" && $0.row == row }
            let total = bar.reduce(0) { $0 + $1.width }
            for key in bar { #expect(abs(key.rect.width - drawn.width * key.width / total) < 0.02) }
        }
        for key in visible where !key.label.isEmpty && key.role != "globe" {
            #expect(svg.contains(">\(KeyboardPicture.xml(key.label))</text>"), "the label \(key.label) is drawn")
        }
        // Roles are told apart: characters light, the rest darker.
        let fills = Dictionary(grouping: caps, by: \.style).mapValues { Set($0.map(\.fill)) }
        #expect(fills.values.allSatisfy { $0.count == 1 }, "one colour per kind of key: \(fills)")
        #expect(fills["character"] != nil && fills["character"] != fills["function"])
    }

    @Test(arguments: samples)
    func darkDiffersFromLightAndLandscapeIsWider(keyboard: String) throws {
        let w = try World()
        let light = try preview(w, [keyboard]), dark = try preview(w, [keyboard, "--dark"])
        #expect(light != dark)
        #expect(try DrawnKeys(light).background != DrawnKeys(dark).background)
        #expect(try DrawnKeys(light).keys.map(\.rect) == DrawnKeys(dark).keys.map(\.rect), "the same geometry")
        let portrait = try picture(w, [keyboard]), landscape = try picture(w, [keyboard, "--landscape"])
        #expect(portrait.width == 375 && landscape.width == 667)
        #expect(landscape.height < portrait.height)
        #expect(try DrawnKeys(preview(w, [keyboard, "--landscape"])).width == 667)
        let widest = { (p: KeyboardPicture) in p.visibleKeys.map(\.frame.width).max() ?? 0 }
        #expect(widest(landscape) > widest(portrait))
    }

    @Test func kanaShowsItsCandidatesAndTheDisplayLineAfterTyping() throws {
        let w = try World()
        let p = try picture(w, ["dev.kbhost.Kana", "--after", "n i h o n g o space"])
        let bar = p.keys.filter { $0.style == .candidate }
        #expect(bar.map(\.label).contains("日本語") && bar.allSatisfy { $0.identifier.hasPrefix("candidate.") })
        #expect(p.display.hasPrefix("にほんご"))
        let first = try #require(bar.first?.frame)
        #expect(try #require(p.displayFrame).y < first.y, "the display line above the candidate bar")
        #expect(first.y < p.keys.filter { $0.style == .character }.map(\.frame.y).min()!, "the bar above the keys")
        #expect(p.hasEastAsianText)
        let none = try picture(w, ["dev.kbhost.Kana"])
        #expect(none.displayFrame == nil && none.keys.allSatisfy { $0.style != .candidate })
        #expect(none.height < p.height)
    }

    @Test func markupAndControlsAKeyboardSendsStayText() throws {
        let w = try World()
        let bundle = try w.makeBundle(id: "dev.example.Markup", library: "libFaultKeyboards.so", principal: "MarkupLabels")
        #expect(try w.kbhost("install", bundle).status == 0)
        let svg = try preview(w, ["dev.example.Markup"])
        try XMLCheck.parse(svg)
        for text in [">&lt;&amp;&gt;</text>", ">&quot;&apos;</text>", ">&amp;amp;</text>", ">]]&gt;&lt;!--</text>",
                     ">␛[2J␇</text>", "&lt;/text&gt;&lt;/svg&gt;&lt;script&gt;", "data-id=\"&quot;&gt;&lt;script&gt;\""] {
            #expect(svg.contains(text), "\(text)")
        }
        #expect(!svg.contains("<script") && !svg.contains("\u{1B}") && !svg.contains("<!--"))
        let drawn = try DrawnKeys(svg)
        #expect(drawn.rects == 6, "two candidates and four keys; the spacer takes room but is not drawn")
        let p = try picture(w, ["dev.example.Markup"])
        #expect(p.keys.count == 7 && p.keys.filter { $0.style == .gap }.map(\.identifier) == ["r1c3"])
    }

    /// A keyboard showing 20,000 candidates of 200 letters (within the wire's limits): every one was
    /// drawn, and a keyboard of 100,000 keys had `--png` take 31 s and 0.9 GB in rsvg-convert for a
    /// picture of specks (nineteenth red team, F2). The first 100 of a row are drawn, and it says so.
    @Test func aLayoutOfThousandsOfKeysIsDrawnCut() throws {
        let w = try World()
        let bundle = try w.makeBundle(id: "dev.example.Many", library: "libFaultKeyboards.so", principal: "ManyCandidates")
        #expect(try w.kbhost("install", bundle).status == 0)
        let r = try w.run(["preview", "dev.example.Many", "--after", "a"], extraEnvironment: env)
        #expect(r.status == 0, "\(r.err)")
        let drawn = try DrawnKeys(r.out)
        #expect(drawn.rects == 101, "the bar's first 100 and the key a: \(drawn.rects)")
        #expect(drawn.keys.last?.label == "a", "the keyboard's own key is drawn after the bar")
        #expect(r.out.contains(">19900 more keys not drawn</desc>") && r.err.contains("shows 20001 keys; 101 are drawn"), "\(r.err)")
        let p = try picture(w, ["dev.example.Many", "--after", "a"])
        #expect(p.visibleKeys.count == 20_001, "--json has every key")
    }

    /// A display line of 201 characters of 5,000 combining accents each (2 MB): the picture drew
    /// and kept it whole (R18's 7 MiB line made `--png` take 103 s and 1.3 GB: nineteenth red team,
    /// F2). It is drawn cut, and kept cut in `data-display`.
    @Test func aHugeDisplayLineIsDrawnCut() throws {
        let w = try World()
        let bundle = try w.makeBundle(id: "dev.example.Slow", library: "libFaultKeyboards.so", principal: "SlowReport")
        #expect(try w.kbhost("install", bundle).status == 0)
        let svg = try preview(w, ["dev.example.Slow", "--after", "k"])
        let drawn = Array(svg.utf8).firstRange(of: Array("<g class=\"display\" data-display=\"e\u{301}\u{301}".utf8))
        #expect(drawn != nil, "the control: the line is drawn")
        #expect(svg.utf8.count < 64 << 10, "an SVG of \(svg.utf8.count) bytes")
    }

    @Test func numberPadsGeometryIsGolden() throws {
        let w = try World()
        let p = try picture(w, ["dev.kbhost.NumberPad"])
        #expect(p.width == 375 && p.height == 216 && p.unit == 123 && p.gap == 6 && p.displayFrame == nil)
        let lines = p.keys.map { k in
            "\(k.label) \(k.role) \(k.style.rawValue) w\(k.width) \(k.frame.x),\(k.frame.y) \(k.frame.width)x\(k.frame.height) \(k.fontSize)"
        }
        #expect(lines == [
            "1 character character w1.0 6.0,11.5 117.0x40.5 22.0", "2 character character w1.0 129.0,11.5 117.0x40.5 22.0",
            "3 character character w1.0 252.0,11.5 117.0x40.5 22.0", "4 character character w1.0 6.0,63.0 117.0x40.5 22.0",
            "5 character character w1.0 129.0,63.0 117.0x40.5 22.0", "6 character character w1.0 252.0,63.0 117.0x40.5 22.0",
            "7 character character w1.0 6.0,114.5 117.0x40.5 22.0", "8 character character w1.0 129.0,114.5 117.0x40.5 22.0",
            "9 character character w1.0 252.0,114.5 117.0x40.5 22.0", "🌐 globe function w1.0 6.0,166.0 117.0x40.5 15.0",
            "0 character character w1.0 129.0,166.0 117.0x40.5 22.0", "⌫ delete function w1.0 252.0,166.0 117.0x40.5 15.0",
        ])
        #expect(try preview(w, ["dev.kbhost.NumberPad", "--json"]).contains("\"displayFrame\" : null"), "every key present")
        let noGlobe = try picture(w, ["dev.kbhost.NumberPad", "--no-globe"])
        #expect(noGlobe.keys.map(\.label).suffix(2) == ["0", "⌫"])
        #expect(noGlobe.keys[9].frame == KeyboardPicture.Frame(x: 67.5, y: 166, width: 117, height: 40.5), "a shorter row is centred")
    }

    @Test(.enabled(if: PreviewTests.hasRSVG, PreviewTests.rsvgNote))
    func pngIsARealPictureOfThePicturesSize() throws {
        let w = try World()
        for arguments in [["dev.kbhost.Calculator"], ["dev.kbhost.Kana", "--after", "n i h o n g o space", "--dark", "--landscape"]] {
            let file = w.root + "/keyboard.png"
            #expect(try preview(w, arguments + ["--png", file]) == "", "nothing on stdout")
            let p = try picture(w, arguments)
            let png = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "the PNG signature")
            #expect(png.count > 2000)
            func be32(_ at: Int) -> Int { png[at ..< at + 4].reduce(0) { $0 << 8 | Int($1) } }
            #expect(String(decoding: png[12 ..< 16], as: UTF8.self) == "IHDR")
            #expect(be32(16) == Int((p.width * 2).rounded()) && be32(20) == Int((p.height * 2).rounded()), "2 px a point")
        }
    }

    /// README's and the guide's pictures (docs/images/preview-*.png) and how each is drawn.
    static let docsPictures: [(file: String, arguments: [String])] = [
        ("preview-calculator.png", ["dev.kbhost.Calculator", "--after", "1 2 + 3"]),
        ("preview-science.png", ["dev.kbhost.Science"]),
        ("preview-science-uikit.png", ["dev.kbhost.ScienceUIKit"]),
        ("preview-kana.png", ["dev.kbhost.Kana", "--after", "n i h o n g o space"]),
        ("preview-english.png", ["dev.kbhost.English", "--after", "t h e space q u i c", "--dark"]),
        ("preview-numberpad.png", ["dev.kbhost.NumberPad", "--landscape"]),
    ]

    /// The docs' pictures are of the layouts the keyboards send today: each is
    /// drawn again and must have the committed picture's size (not its pixels:
    /// fonts differ). KBHOST_UPDATE_SCREENSHOTS=1 writes them to docs/images.
    @Test(.enabled(if: PreviewTests.hasRSVG, PreviewTests.rsvgNote))
    func theDocsPicturesShowTheSampleKeyboardsAsTheyAre() throws {
        let w = try World()
        let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/images").path
        let update = ProcessInfo.processInfo.environment["KBHOST_UPDATE_SCREENSHOTS"] == "1"
        func size(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))[16 ..< 24]) }
        for (file, arguments) in PreviewTests.docsPictures {
            let fresh = update ? images + "/" + file : w.root + "/" + file
            _ = try preview(w, arguments + ["--png", fresh, "--scale", "1.5"])
            #expect(try size(fresh) == size(images + "/" + file), "docs/images/\(file) is out of date: KBHOST_UPDATE_SCREENSHOTS=1")
        }
    }

    @Test(.enabled(if: PreviewTests.hasRSVG, PreviewTests.rsvgNote))
    func aMissingJapaneseFontIsNamed() throws {
        let w = try World()
        let conf = w.root + "/fonts.conf"
        try "<?xml version=\"1.0\"?>\n<fontconfig><cachedir>\(w.root)/fc</cachedir></fontconfig>\n"
            .write(toFile: conf, atomically: true, encoding: .utf8)
        let r = try w.run(["preview", "dev.kbhost.Kana", "--after", "n i h o n g o space", "--png", w.root + "/k.png"],
                          extraEnvironment: env.merging(["FONTCONFIG_FILE": conf]) { $1 })
        #expect(r.status == 0)
        #expect(r.err.contains("no font for Japanese") && r.err.contains("fonts-droid-fallback"), "\(r.err)")
        let fine = try w.run(["preview", "dev.kbhost.Kana", "--after", "n i h o n g o space", "--png", w.root + "/k.png"],
                             extraEnvironment: env)
        #expect(!fine.err.contains("no font"), "this machine has one (scripts/install-deps installs fonts-droid-fallback)")
    }

    @Test func pngWithoutRSVGConvertSaysWhichPackageAndUsageErrorsAreClear() throws {
        let w = try World()
        let file = w.root + "/none.png"
        let r = try w.run(["preview", "dev.kbhost.NumberPad", "--png", file], extraEnvironment: env.merging(["PATH": w.root]) { $1 })
        #expect(r.status == 1)
        #expect(r.err.contains("rsvg-convert") && r.err.contains("librsvg2-bin"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try w.run(["preview", "dev.kbhost.NumberPad", "--png", file, "--svg", file]).status == 64)
        let missing = try w.run(["preview", "dev.kbhost.NumberPad", "--after", "nope"], extraEnvironment: env)
        #expect(missing.status == 5 && missing.err.contains("nope"))
        #expect(try w.run(["preview", "dev.example.Nothing"], extraEnvironment: env).status == 3)
        try w.makeBundle(id: "dev.example.Crashy", library: "libFaultKeyboards.so", principal: "CrashOnKey")
        let crashed = try w.run(["preview", "dev.example.Crashy", "--after", "1 boom"], extraEnvironment: ["KBHOST_KEYBOARDS": w.root + "/bundles"])
        #expect(crashed.status == 4 && crashed.err.contains("dev.example.Crashy") && crashed.out.isEmpty, "\(crashed.err)")
        let svgFile = w.root + "/pad.svg"
        #expect(try preview(w, ["dev.kbhost.NumberPad", "--svg", svgFile]) == "")
        #expect(try String(contentsOfFile: svgFile, encoding: .utf8) == preview(w, ["dev.kbhost.NumberPad"]))
    }
}

/// The keys of a drawn SVG, read back from its `data-` attributes and rects.
struct DrawnKeys {
    struct Key {
        var identifier: String, label: String, style: String, width: Double, row: Int, fill: String
        var rect: KeyboardPicture.Frame
    }
    var keys: [Key] = []
    var rects = 0
    var width = 0.0, unit = 0.0, gap = 0.0
    var background = ""

    init(_ svg: String) throws {
        let delegate = XMLCheck()
        try XMLCheck.parse(svg, delegate)
        self = delegate.drawn
    }

    init() {}
}

/// Parses SVG with Foundation's XML parser (so it must be well formed) and collects its keys.
final class XMLCheck: NSObject, XMLParserDelegate {
    var drawn = DrawnKeys()
    private var current: DrawnKeys.Key?
    /// Groups open inside the current key's (the globe's symbol).
    private var depth = 0

    struct Malformed: Error { let description: String }

    static func parse(_ svg: String, _ delegate: XMLCheck = XMLCheck()) throws {
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = delegate
        guard parser.parse() else { throw Malformed(description: "\(parser.parserError.map { "\($0)" } ?? "?")") }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes a: [String: String] = [:]) {
        let number = { (key: String) in Double(a[key] ?? "") ?? .nan }
        switch name {
        case "svg": (drawn.width, drawn.unit, drawn.gap) = (number("width"), number("data-unit"), number("data-gap"))
        case "path" where a["class"] == "background": drawn.background = a["fill"] ?? ""
        case "g" where a["class"]?.hasPrefix("key ") == true:
            current = DrawnKeys.Key(identifier: a["data-id"] ?? "", label: a["data-label"] ?? "",
                                    style: String(a["class"]!.dropFirst(4)), width: number("data-width"),
                                    row: Int(a["data-row"] ?? "") ?? -1, fill: "",
                                    rect: KeyboardPicture.Frame(x: 0, y: 0, width: 0, height: 0))
        case "g" where current != nil: depth += 1
        case "rect":
            drawn.rects += 1
            current?.rect = KeyboardPicture.Frame(x: number("x"), y: number("y"), width: number("width"), height: number("height"))
            current?.fill = a["fill"] ?? ""
        default: break
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard name == "g" else { return }
        if depth > 0 {
            depth -= 1
        } else if let key = current {
            drawn.keys.append(key)
            current = nil
        }
    }
}
