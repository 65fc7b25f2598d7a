import Foundation
import KBHost
import KBSystem
import KBText
import KBWire

/// The size of a tap's frames on the wire (host→worker request, worker→host reply).
func tapFrameSizes() -> (request: Int, reply: Int) {
    let event = KeyEvent(kind: .touchUpInside, tapCount: 1, repeatCount: 0, timestampNanoseconds: 1_000_000_000)
    var request: [UInt8] = [], reply: [UInt8] = []
    Framing.appendFrame(HostMessage.deliver(Delivery(sequence: 10_000, call: .key(row: 0, column: 0, event: event))).encoded(),
                        to: &request)
    Framing.appendFrame(WorkerMessage.done(sequence: 10_000, effects: [.edit(.insertText("1"))]).encoded(), to: &reply)
    return (request.count, reply.count)
}

/// Key round trip: session.tap(key) one at a time, timed one by one. The
/// document is emptied every `resetEvery` taps, outside the timed region.
final class TapRunner {
    let session: KeyboardSession
    let key: String
    let resetEvery: Int
    private var sinceReset = 0

    init(keyboard: LoadableKeyboard, installation: Installation, key: String, resetEvery: Int = 500) throws {
        session = try KeyboardSession(keyboard: keyboard, configuration: installation.processConfiguration)
        self.key = key
        self.resetEvery = resetEvery
        try session.appear()
    }

    func block(_ count: Int) throws -> [Int64] {
        var samples: [Int64] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            if sinceReset == resetEvery {
                try session.editDocument { $0.buffer = TextBuffer() }
                sinceReset = 0
            }
            samples.append(try timed { try session.tap(key) })
            sinceReset += 1
        }
        // The taps did what they should: the run of keys since the last reset.
        guard session.document.text == String(repeating: key, count: sinceReset) else {
            throw BenchError("after the taps the document holds \(session.document.text.count) characters, expected \(sinceReset) × '\(key)'")
        }
        return samples
    }

    /// The worker's memory now (after the taps, a leak shows here).
    var memory: ProcMemory? { ProcMemory.read(pid: session.pid) }

    func finish() { session.close() }
}

/// Cold load, once: KeyboardSession(keyboard:configuration:) + appear() (to
/// viewDidAppear), and apart from it close(). Nanoseconds.
func coldLoad(keyboard: LoadableKeyboard, configuration: ExtensionProcess.Configuration,
              access: KeyboardAccess = KeyboardAccess()) throws -> (load: Int64, teardown: Int64) {
    var session: KeyboardSession?
    let load = try timed {
        let s = try KeyboardSession(keyboard: keyboard, configuration: configuration, access: access)
        session = s
        try s.appear()
    }
    let pid = session!.pid
    let teardown = timed { session!.close() }
    session = nil
    // close() reaps through the pidfd; a pid that still answers signal 0 was left behind.
    if Sys.canSignal(pid) { throw BenchError("worker \(pid) is still there after close()") }
    return (load, teardown)
}

/// The worker's memory with the plugin loaded, after viewDidAppear.
func measureMemory(keyboard: LoadableKeyboard, installation: Installation) throws -> ProcMemory {
    let session = try KeyboardSession(keyboard: keyboard, configuration: installation.processConfiguration)
    defer { session.close() }
    try session.appear()
    guard let memory = ProcMemory.read(pid: session.pid) else {
        throw BenchError("cannot read /proc/\(session.pid)/smaps_rollup")
    }
    return memory
}
