import KBCore
import KBText
import Testing

@Suite("Tap steps: one parser for type, profile, preview and the testing kit")
struct TapStepTests {
    @Test(arguments: [("a", TapStep.Kind.gesture(.tap, "a")), ("double:shift", .gesture(.doubleTap, "shift")),
                      ("long:e", .gesture(.longPress, "e")), ("hold:delete:700", .gesture(.hold(milliseconds: 700), "delete")),
                      ("pause:0", .pause(0)), ("rotate:landscape", .rotate(width: 667, height: 162)),
                      ("rotate:portrait", .rotate(width: 375, height: 216)), ("rotate:320x200.5", .rotate(width: 320, height: 200.5)),
                      ("id:k1", .gesture(.tap, "id:k1")), (":", .gesture(.tap, ":")), ("double:a:b", .gesture(.tap, "double:a:b")),
                      ("reopen", .reopen), ("reopen:x", .gesture(.tap, "reopen:x")),
                      ("drag:id:space:-30", .drag("id:space", path: [TapStep.DragOffset(dx: -30)]))])
    func aTokenIsOneStep(token: String, kind: TapStep.Kind) throws {
        #expect(try TapStep(token).kind == kind)
    }

    @Test(arguments: [("long:e:é", TapStep.Kind.chooseAlternate("e", choice: "é")),
                      ("long:id:k1", .gesture(.longPress, "id:k1")),
                      ("long:id:k1:é", .chooseAlternate("id:k1", choice: "é")),
                      ("long:e::", .chooseAlternate("e", choice: ":")),
                      ("long::é", .gesture(.tap, "long::é"))])
    func aLongPressMayPickAnAlternate(token: String, kind: TapStep.Kind) throws {
        #expect(try TapStep(token).kind == kind)
    }

    @Test(arguments: [("drag:space:-40", TapStep.Kind.drag("space", path: [TapStep.DragOffset(dx: -40)])),
                      ("drag:q:36.5,0/73,-2.25", .drag("q", path: [TapStep.DragOffset(dx: 36.5), TapStep.DragOffset(dx: 73, dy: -2.25)]))])
    func aDragIsAKeyAndAPath(token: String, kind: TapStep.Kind) throws {
        #expect(try TapStep(token).kind == kind)
    }

    @Test(arguments: ["drag:space:", "drag:space:left", "drag:space:1,2,3", "drag:space:10001", "drag:space:1//2", "drag:space:nan"])
    func aMalformedDragSaysWhichPoint(token: String) {
        #expect(throws: TapStep.Invalid.self) { try TapStep(token) }
    }

    @Test(arguments: ["pause:x", "pause:-1", "pause:600001", "hold:a:", "hold:a:1.5", "rotate:sideways", "rotate:0x100",
                      "rotate:10001x10", "rotate:1x2x3"])
    func aMalformedStepSaysWhichTokenAndWhy(token: String) {
        #expect(throws: TapStep.Invalid.self) { try TapStep(token) }
        do { _ = try TapStep(token) } catch { #expect(error.description.hasPrefix("'\(token)': ")) }
    }

    @Test func aScriptIsItsWhitespaceSeparatedTokens() throws {
        let steps = try TapStep.script(" 1\t+\n2  pause:5 ")
        #expect(steps.map(\.kind) == [.gesture(.tap, "1"), .gesture(.tap, "+"), .gesture(.tap, "2"), .pause(5)])
        #expect(try TapStep.script("").isEmpty)
        #expect(throws: TapStep.Invalid.self) { try TapStep.script("a pause:z b") }
    }
}
