import KeyboardSDK
import KeyboardTesting
import KeyboardUIKitCompat
import Testing

/// Shared logic as an iOS keyboard writes it: against the protocol, not kbhost's class.
func composeFraction(_ proxy: any UITextDocumentProxy) {
    proxy.setMarkedText("1/2", selectedRange: NSMakeRange(1, 1))
}

/// A controller written with UIKit's spellings only, exercising each one the layer maps.
final class ProbeController: UIInputViewController {
    override static var keyActions: [KeyAction] { super.keyActions + [markAtEnd, markPastEnd, fraction] }
    static let markAtEnd = KeyAction("markAtEnd", ProbeController.markAtEnd)
    static let markPastEnd = KeyAction("markPastEnd", ProbeController.markPastEnd)
    static let fraction = KeyAction("fraction", ProbeController.fraction)

    override func viewDidLoad() {
        setKeys([
            [KeyButton("a") { [weak self] in self?.textDocumentProxy.insertText("a") },
             KeyButton("a") { [weak self] in self?.textDocumentProxy.insertText("A") },
             KeyButton("return") { [weak self] in self?.insertReturn() }],
            [KeyButton(KeySpec("at end", action: ProbeController.markAtEnd)),
             KeyButton(KeySpec("past end", action: ProbeController.markPastEnd)),
             KeyButton(KeySpec("½", action: ProbeController.fraction)),
             KeyButton(.globe())],
        ], display: "probe")
    }

    func insertReturn() {
        let proxy: any UITextDocumentProxy = textDocumentProxy
        proxy.insertText(proxy.returnKeyType == .search ? "🔍" : "\n")
    }

    func markAtEnd() { textDocumentProxy.setMarkedText("かな", selectedRange: NSRange(location: NSNotFound, length: 0)) }
    func markPastEnd() { textDocumentProxy.setMarkedText("abc", selectedRange: NSRange(location: 2, length: 9)) }
    func fraction() { composeFraction(textDocumentProxy) }

    override func viewWillTransition(to size: CGSize, with coordinator: any UIViewControllerTransitionCoordinator) {
        log("will \(Int(size.width))×\(Int(size.height)), last \(Int(transitionSize.width))×\(Int(transitionSize.height))")
        coordinator.animate(alongsideTransition: { [weak self] context in
            self?.log("alongside animated:\(context.isAnimated)")
        }, completion: { [weak self] context in
            self?.log("completion \(context.transitionDuration)")
        })
    }

    override func textDidChange(_ textInput: UITextInput?) { log("textDidChange") }
}

@Suite("KeyboardUIKitCompat: UIKit's spellings over KeyboardSDK")
struct CompatTests {
    func probe(traits: TextInputTraits = .init()) throws -> KeyboardTestDriver {
        let k = try KeyboardTestDriver(ProbeController.self, traits: traits)
        try k.appear()
        return k
    }

    @Test func closureKeysRunTheirOwnClosureEvenWithOneTitle() throws {
        let k = try probe()
        #expect(k.labels == [["a", "a", "return"], ["at end", "past end", "½", "🌐"]])
        #expect(k.display == "probe")
        try k.tap("id:a")
        try k.tap("id:a#2")
        #expect(k.text == "aA", "the second key titled a has its own identifier and closure")
    }

    @Test func returnKeyTypeIsReadThroughUIKitsName() throws {
        var search = TextInputTraits()
        search.returnKeyType = UIReturnKeyType.search
        let k = try probe(traits: search)
        try k.tap("return")
        let plain = try probe()
        try plain.tap("return")
        #expect(k.text == "🔍" && plain.text == "\n")
        #expect(UIKeyboardType.URL == .url)
    }

    @Test func markedTextTakesAnNSRange() throws {
        let k = try probe()
        try k.tap("½")
        #expect(k.markedText == "1/2")
        #expect(k.selection == .init(location: 1, length: 1), "NSMakeRange(1, 1): the slash selected")
        try k.tap("at end")
        #expect(k.markedText == "かな" && k.selection == .init(location: 2, length: 0), "NSNotFound: the end")
        try k.tap("past end")
        #expect(k.markedText == "abc" && k.selection == .init(location: 2, length: 1), "cut to the marked text")
    }

    @Test func transitionsArriveWithACGSizeAndACoordinatorThatRunsBothBlocks() throws {
        let k = try probe()
        try k.transition(toWidth: 812, height: 375)
        try k.transition(toWidth: 375, height: 812)
        #expect(k.logMessages == ["will 812×375, last 0×0", "alongside animated:false", "completion 0.0",
                                  "will 375×812, last 812×375", "alongside animated:false", "completion 0.0"],
                "the blocks run at once, in order; transitionSize is the size before until the call returns")
    }

    @Test func theGlobeKeyKeepsItsSelector() throws {
        let k = try probe()
        try k.tap("globe")
        #expect(k.advanceToNextInputModeCount == 1)
    }

    @Test func textDidChangeIsOverriddenWithUIKitsArgumentType() throws {
        let k = try probe()
        try k.editDocument { $0.insertText("from the app") }
        #expect(k.logMessages == ["textDidChange"])
    }

    @Test func geometryAndRangesBehaveAsFoundationsDo() {
        #expect(NSMakeRange(3, 4) == NSRange(location: 3, length: 4) && NSRange(3..<7).upperBound == 7)
        #expect(CGRect(x: 1, y: 2, width: 3, height: 4).size == CGSize(width: 3, height: 4))
        #expect(CGRect.zero.width == 0 && CGPoint.zero == CGPoint(x: 0, y: 0))
    }
}
