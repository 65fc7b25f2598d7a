import Calculator
import Foundation
import KeyboardSDK
import KeyboardTesting
import Testing

/// The in-process driver and the real process are two faces of one session engine
/// (kbhost's KeyboardSession): the same script gives the same document, display and events.
@Suite("In process and in the real process, the same")
struct TwoModesTests {
    /// The Calculator's bundle as an author's would be: its Info.plist and its built library.
    static func bundle() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let products = ProcessInfo.processInfo.environment["KBHOST_PRODUCTS"]
            ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
        let folder = NSTemporaryDirectory() + "kbhost-two-modes-" + UUID().uuidString
        let files = FileManager.default
        try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try files.copyItem(atPath: root.appendingPathComponent("Manifests/Calculator/Info.plist").path, toPath: folder + "/Info.plist")
        try files.copyItem(atPath: products + "/libCalculatorKeyboard.so", toPath: folder + "/libCalculatorKeyboard.so")
        return folder
    }

    /// A script both modes run: keys, an outside edit, a selection move, app-side marked text, a
    /// rotation, a memory warning, a new presentation.
    struct Run {
        var tap: (String) throws -> Void
        var edit: ((inout TextBuffer) -> Void) throws -> Void
        var represent: () throws -> Void
        var rotate: () throws -> Void
        var warn: () throws -> Void
    }

    static func script(_ run: Run) throws {
        for key in ["1", "2", "+", "3"] { try run.tap(key) }
        try run.edit { $0.insertText("x") }
        try run.tap("=")
        try run.edit { $0.select(UTF16Range(location: 0, length: 0)) }
        try run.edit { $0.setMarkedText("ka", selectedRange: UTF16Range(location: 2, length: 0)) }
        try run.edit { $0.unmarkText() }
        for key in ["4", "×"] { try run.tap(key) }
        try run.rotate()
        try run.warn()
        try run.represent()
        for key in ["2", "="] { try run.tap(key) }
    }

    @Test func theSameScriptGivesTheSameDocumentAndEvents() throws {
        let inProcess = try KeyboardTestDriver(CalculatorViewController.self, text: "ab")
        inProcess.recordsProxyCalls = true
        try Self.script(Run(tap: { try inProcess.tap($0) }, edit: { try inProcess.editDocument($0) },
                                represent: { try inProcess.representKeyboard() },
                                rotate: { try inProcess.transition(toWidth: 812, height: 150) },
                                warn: { try inProcess.simulateMemoryWarning() }))

        let bundle = try Self.bundle()
        defer { try? FileManager.default.removeItem(atPath: bundle) }
        let real = try KeyboardProcess(bundle: bundle, text: "ab")
        real.recordsProxyCalls = true
        try Self.script(Run(tap: { try real.tap($0) }, edit: { try real.editDocument($0) },
                                represent: { try real.representKeyboard() },
                                rotate: { try real.transition(toWidth: 812, height: 150) },
                                warn: { try real.simulateMemoryWarning() }))

        #expect(inProcess.text == real.text)
        #expect(inProcess.selection == real.selection)
        #expect(inProcess.display == real.display)
        #expect(inProcess.events == real.events)
        #expect(inProcess.presentations == 2 && real.presentations == 2)
        #expect(inProcess.events.starts(with: ["viewDidLoad", "viewWillAppear", "viewDidAppear"]),
                "both show the keyboard when they create it")
        #expect(real.events.contains("insertText: 15"), "proxy calls are recorded: \(real.events)")
        #expect(real.events.filter { $0 == "viewDidLoad" }.count == 2, "a new controller for the new presentation")
        #expect(real.events.contains("viewWillTransition: 812.0x150.0") && real.events.contains("didReceiveMemoryWarning"))
        #expect(real.text == "ka2abx15", "the new controller starts a new expression: \(real.text)")
    }
}
