import KeyboardSDK
import KeyboardTesting
import Testing

/// Shows how much of the document the proxy sees, "before/after" in UTF-16 units.
final class WindowProbe: InputViewController {
    override class var keyActions: [KeyAction] { [.action("show", WindowProbe.show), .action("chatty", WindowProbe.chatty)] }
    override func viewDidLoad() { show() }
    override func textDidChange(_ textInput: TextInput?) { show() }
    override func selectionDidChange(_ textInput: TextInput?) { show() }
    override func didReceiveMemoryWarning() { log("freed") }

    func show() {
        let before = textDocumentProxy.documentContextBeforeInput?.utf16.count ?? 0
        let after = textDocumentProxy.documentContextAfterInput?.utf16.count ?? 0
        keyboardLayout = KeyboardLayout(display: "\(before)/\(after)", rows: [[
            KeySpec("show", action: "show"), KeySpec("chatty", action: "chatty"), .character("x"),
        ]])
    }

    func chatty() {
        playInputClick()
        log("hello")
        textDocumentProxy.insertText("c")
    }
}

/// Counts its controllers; a `Clingy` one keeps itself alive through a closure it stores (a cycle).
class Counted: InputViewController {
    nonisolated(unsafe) static var created = 0
    nonisolated(unsafe) static weak var first: Counted?

    override func viewDidLoad() {
        Self.created += 1
        if Self.created == 1 { Self.first = self }  // the first controller of the test, watched
        log("controller \(Self.created)")
        keyboardLayout = KeyboardLayout(rows: [[.character("a")]])
    }
}

final class Tidy: Counted {}

final class Clingy: Counted {
    var onSomething: (() -> Void)?
    override func viewDidLoad() {
        super.viewDidLoad()
        onSomething = { self.log("still here") }
    }
}

@Suite("The in-process driver is the session engine", .serialized)
struct SessionEngineTests {
    @Test func theDriverShowsTheKeyboardWhenItCreatesIt() throws {
        let k = try KeyboardTestDriver(WindowProbe.self)
        #expect(k.isVisible)
        #expect(k.events == ["viewDidLoad", "viewWillAppear", "viewDidAppear"])
    }

    @Test func eventsListClicksLogsTransitionsAndWarnings() throws {
        let k = try KeyboardTestDriver(WindowProbe.self)
        try k.tap("chatty")
        try k.transition(toWidth: 812, height: 150)
        try k.simulateMemoryWarning()
        #expect(Array(k.events.dropFirst(3))
                == ["playInputClick", "log: hello", "viewWillTransition: 812.0x150.0", "didReceiveMemoryWarning", "log: freed"])
        #expect(k.inputClickCount == 1)
        #expect(k.logMessages == ["hello", "freed"])
    }

    @Test func proxyCallsAreRecordedOnlyWhenAskedFor() throws {
        let k = try KeyboardTestDriver(WindowProbe.self)
        try k.tap("x")
        #expect(!k.events.contains { $0.hasPrefix("insertText") })
        k.recordsProxyCalls = true
        try k.tap("chatty")
        #expect(Array(k.events.suffix(3)) == ["playInputClick", "log: hello", "insertText: c"])
        #expect(k.text == "xc")
    }

    @Test func theKeyboardSeesTheSameWindowAsInItsProcess() throws {
        let k = try KeyboardTestDriver(WindowProbe.self, text: String(repeating: "abcdefghi\n", count: 2000) + "z")
        #expect(k.text.utf16.count == 20_001, "the test reads the whole document")
        #expect(k.display == "512/0", "the keyboard reads 512 UTF-16 units before the insertion point, line breaks and all")
        try k.editDocument { $0.select(UTF16Range(location: 10_000, length: 0)) }
        #expect(k.display == "512/512")
        try k.tap("show")
        #expect(k.display == "512/512")
    }

    @Test func aNewPresentationIsANewControllerAndTheOldOneIsFreed() throws {
        Counted.created = 0
        Counted.first = nil
        let k = try KeyboardTestDriver(Tidy.self)
        #expect(Counted.first != nil)
        try k.representKeyboard()
        try k.representKeyboard()
        #expect(k.presentations == 3)
        #expect(k.logMessages == ["controller 1", "controller 2", "controller 3"])
        #expect(Counted.first == nil, "the SDK released the ended controller")
        #expect(Array(k.events.suffix(6))
                == ["viewWillDisappear", "viewDidDisappear", "viewDidLoad", "log: controller 3", "viewWillAppear", "viewDidAppear"])
    }

    @Test func aControllerInACycleOutlivesItsPresentation() throws {
        Counted.created = 0
        Counted.first = nil
        let k = try KeyboardTestDriver(Clingy.self)
        try k.representKeyboard()
        #expect(Counted.first != nil, "the positive control: a cycle keeps the ended controller alive (the reopen leak)")
        #expect(k.presentations == 2)
    }
}
