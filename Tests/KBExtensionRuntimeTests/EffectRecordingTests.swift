import CKeyboardABI
@testable import KBExtensionRuntime
import KBText
import KBWire
import Testing

/// What the worker records of a call for its reply: consecutive insertions as one,
/// and nothing past the most effects one reply may carry.
@Suite("Recording a call's effects")
struct EffectRecordingTests {
    func insert(_ services: WorkerServices, _ text: String) {
        text.withCString { services.table.pointee.insert_text(services.table.pointee.ctx, $0) }
    }

    @Test("Consecutive insertions travel as one effect; anything between them keeps them apart")
    func consecutiveInsertionsAreOne() {
        let services = WorkerServices()
        insert(services, "a")
        insert(services, "b")
        insert(services, "ç")
        services.table.pointee.play_input_click(services.table.pointee.ctx)
        insert(services, "d")
        services.table.pointee.delete_backward(services.table.pointee.ctx)
        insert(services, "e")
        insert(services, "f")
        #expect(services.effects == [.edit(.insertText("abç")), .playInputClick, .edit(.insertText("d")), .edit(.deleteBackward),
                                     .edit(.insertText("ef"))])
        #expect(services.mirror.buffer.text == "abçef", "the window has every edit at once")
        #expect(services.failure == nil)
    }

    @Test("One insertion is the same edit as the many it stands for")
    func oneInsertionIsTheSameEdit() {
        var many = TextBuffer(text: "xy", selection: UTF16Range(location: 1, length: 0))
        many.setMarkedText("かな", selectedRange: UTF16Range(location: 1, length: 0))
        var one = many
        for piece in ["e", "\u{301}", "👍", "\u{1F3FD}", "!"] { TextEdit.insertText(piece).apply(to: &many) }
        TextEdit.insertText("e\u{301}👍\u{1F3FD}!").apply(to: &one)
        #expect(many == one)
    }

    @Test("300,000 one-letter insertions in one call are one effect")
    func aFloodOfInsertionsIsOneEffect() {
        let services = WorkerServices()
        for _ in 0..<300_000 { insert(services, "x") }
        #expect(services.effects == [.edit(.insertText(String(repeating: "x", count: 300_000)))])
    }

    @Test("Past the most effects a reply carries, the call fails naming the limit, and nothing more is kept")
    func tooManyEffectsFail() throws {
        let services = WorkerServices()
        for _ in 0..<(WireLimits.maximumEffects + 10) { services.table.pointee.play_input_click(services.table.pointee.ctx) }
        #expect(services.effects.count == WireLimits.maximumEffects)
        let failure = try #require(services.failure)
        #expect(failure.kind == .overLimit)
        #expect(failure.message.contains("at most 65536 (KBH_MAX_CALL_EFFECTS)"), "\(failure.message)")
    }
}
