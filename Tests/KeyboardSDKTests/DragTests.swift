import CKeyboardABI
@testable import KBExtensionRuntime
import KBText
import KBWire
import KeyboardSDK
import KeyboardTesting
import Testing

/// A row of letters and a space bar whose drag action writes down each event it gets.
final class DragKeyboard: InputViewController {
    static let traced = KeyAction("traced:event:", DragKeyboard.traced)
    static let down = KeyAction("down", DragKeyboard.down)
    override class var keyActions: [KeyAction] { [traced, down] }

    override func viewDidLoad() {
        keyboardLayout = KeyboardLayout(rows: [
            "qwertyuiop".map { KeySpec(String($0), identifier: String($0), dragAction: DragKeyboard.traced.selector) },
            [KeySpec("x", touchDownAction: DragKeyboard.down.selector), KeySpec("space", role: .space, width: 5, action: "insertSpace",
                                                                     dragAction: DragKeyboard.traced.selector)],
        ])
    }

    func traced(_ key: Key, _ event: KeyboardSDK.KeyEvent) {
        guard let t = event.touch else { textDocumentProxy.insertText("[\(event.kind) no touch]"); return }
        textDocumentProxy.insertText("[\(event.kind) \(key.label) \(Int(t.x)),\(Int(t.y)) \(Int(t.dx)),\(Int(t.dy)) \(t.key ?? "-")]")
    }

    func down() { textDocumentProxy.insertText("(down)") }
}

@Suite("Drags in the layout's space")
struct DragTests {
    @Test func theSpaceBarGetsBeganMovedEndedWithWhereTheTouchIs() throws {
        let k = try KeyboardTestDriver(DragKeyboard.self)
        try k.drag("space", path: [(dx: -40, dy: 0), (dx: -80, dy: 0)])
        // The picture in portrait: 375 points wide, two key rows; the space bar is centred in its row.
        let parts = k.text.split(separator: "]").map { $0.dropFirst() }
        #expect(parts.count == 4, "\(k.text)")
        #expect(parts.map { $0.split(separator: " ")[0] } == ["dragBegan", "dragMoved", "dragMoved", "dragEnded"])
        let began = parts[0].split(separator: " "), ended = parts[3].split(separator: " ")
        #expect(began[3] == "0,0" && ended[3] == "-80,0", "\(k.text)")
        let x0 = Int(began[2].split(separator: ",")[0])!, x1 = Int(ended[2].split(separator: ",")[0])!
        #expect(x0 - x1 == 80, "x moves with dx, in points")
        #expect(!k.text.contains("[touchUpInside"), "no tap")
        #expect(k.text.firstRange(of: " ") != nil && !k.text.hasSuffix(" "), "and no space typed")
    }

    @Test func aSwipeFromQToTheRightPassesOverTheLettersInOrder() throws {
        let k = try KeyboardTestDriver(DragKeyboard.self)
        // Ten keys across 375 points: one key is about 37 points.
        try k.drag("q", path: (1...9).map { (dx: Double($0) * 36.5, dy: 0) })
        let under = k.text.split(separator: "]").map { String($0.split(separator: " ").last!) }
        #expect(under.first == "q" && under.last == "p", "\(under)")
        #expect(under.filter { $0 != "-" }.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } } == "qwertyuiop".map(String.init))
    }

    @Test func aDragOnAKeyWithoutADragActionIsATouchDownAndNoTap() throws {
        let k = try KeyboardTestDriver(DragKeyboard.self)
        try k.run(script: "drag:x:30,-10")
        #expect(k.text == "(down)", "touch down, then the touch left the key: no tap")
    }

    @Test func theScriptTokenDragsAndABadPointIsNamed() throws {
        let k = try KeyboardTestDriver(DragKeyboard.self)
        try k.run(script: "drag:space:-40")
        #expect(k.text.hasPrefix("[dragBegan space"), "\(k.text)")
        #expect(throws: KeyboardTestDriver.Failure.self) { try k.run(script: "drag:space:left") }
    }

    @Test func anOlderHostWithoutTouchStillCallsTheDragActionWithNone() throws {
        let runtime = ExtensionRuntime()
        runtime.services.table.pointee.struct_size = UInt32(MemoryLayout<kbh_host_v1>.offset(of: \kbh_host_v1.touch)!)
        _ = try runtime.load(plugin: KeyboardPlugin.export([DragKeyboard.self]), className: "DragKeyboard",
                             facts: ControllerFacts(), window: DocumentWindow())
        _ = try runtime.deliver(Delivery(sequence: 1, call: .lifecycle(.viewDidLoad, animated: false)))
        let touch = DragTouch(phase: .moved, x: 1, y: 2, dx: 3, dy: 4, keyUnder: "q", timestampNanoseconds: 0)
        let effects = try runtime.deliver(Delivery(sequence: 2, call: .drag(row: 0, column: 0, touch: touch)))
        #expect(effects == [.edit(.insertText("[dragMoved no touch]"))])
    }

    @Test func theWorkerRefusesADragOnAKeyWithoutADragAction() throws {
        let runtime = ExtensionRuntime()
        _ = try runtime.load(plugin: KeyboardPlugin.export([DragKeyboard.self]), className: "DragKeyboard",
                             facts: ControllerFacts(), window: DocumentWindow())
        _ = try runtime.deliver(Delivery(sequence: 1, call: .lifecycle(.viewDidLoad, animated: false)))
        let touch = DragTouch(phase: .began, x: 0, y: 0, dx: 0, dy: 0, keyUnder: nil, timestampNanoseconds: 0)
        #expect(try runtime.deliver(Delivery(sequence: 2, call: .drag(row: 1, column: 1, touch: touch))).count == 1,
                "control: the space bar has one")
        do {
            _ = try runtime.deliver(Delivery(sequence: 3, call: .drag(row: 1, column: 0, touch: touch)))
            Issue.record("a drag on x, which has no drag action, was delivered")
        } catch {
            #expect(error.kind == .badRequest)
            #expect(error.message.contains("has no drag action"), "\(error.message)")
        }
    }
}

/// Swipe typing's usual shape: the first touch of a drag shows a suggestion row above the keys,
/// so every key moves down a row while the finger is still on the glass.
final class RedrawingDragKeyboard: InputViewController {
    static let traced = KeyAction("traced:event:", RedrawingDragKeyboard.traced)
    override class var keyActions: [KeyAction] { [traced] }
    var letters: [KeySpec] { "qwe".map { KeySpec(String($0), identifier: String($0), dragAction: RedrawingDragKeyboard.traced.selector) } }

    override func viewDidLoad() { keyboardLayout = KeyboardLayout(rows: [letters]) }

    func traced(_ key: Key, _ event: KeyboardSDK.KeyEvent) {
        textDocumentProxy.insertText("[\(event.kind) \(key.label) r\(key.row)]")
        if event.kind == .dragBegan {
            keyboardLayout = KeyboardLayout(rows: [[KeySpec("the", identifier: "suggestion.0")], letters])
        }
    }
}

@Suite("A drag on a keyboard that redraws under it")
struct RedrawingDragTests {
    /// The touch follows its key to its new row; before, the host kept sending the old row and
    /// column, the worker refused a drag on a key without a drag action, and the keyboard failed.
    @Test func theDragFollowsItsKeyWhenTheLayoutChanges() throws {
        let k = try KeyboardTestDriver(RedrawingDragKeyboard.self)
        try k.drag("w", path: [(dx: 10, dy: 0)])
        #expect(k.text == "[dragBegan w r0][dragMoved w r1][dragEnded w r1]", "\(k.text)")
    }
}
