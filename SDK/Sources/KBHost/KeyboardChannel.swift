package import KBWire

/// How a session reaches its keyboard: requests of the wire protocol, each
/// answered by one reply. Two kinds exist: `ExtensionProcess` (the keyboard in
/// its own sandboxed worker, the way kbhost runs it) and the testing kit's
/// in-process channel (the same `ExtensionRuntime` a worker runs, called
/// directly). `KeyboardSession` is the one engine over both, so a test in
/// process and a keyboard in its real process see the same calls, events and
/// document window.
package protocol KeyboardChannel: AnyObject {
    /// The keyboard's process (the test's own, in process).
    var pid: Int32 { get }
    /// The largest footprint the governor has seen (nil when not under a budget).
    var peakFootprint: Int? { get }
    /// Memory warnings the governor has seen cause for (see `Governor.memoryWarningFraction`).
    var memoryWarnings: Int { get }
    /// What the keyboard wrote to stdout/stderr recently (its log).
    var outputText: String { get }

    /// Sends one request and returns its one reply; a failure ends the channel and throws.
    func request(_ message: HostMessage, phase: @autoclosure () -> String,
                 deadlineMilliseconds: Int?) throws(KeyboardFailure) -> WorkerMessage
    /// Sends several requests at once and hands each reply, in order, to `handle`.
    func requestAll(_ messages: [HostMessage], phase: @autoclosure () -> String,
                    handle: (Int, WorkerMessage) throws(KeyboardFailure) -> Void) throws(KeyboardFailure)
    /// Ends the keyboard at once.
    func kill()
    /// Asks the keyboard to end, then makes sure it has.
    func shutdown()
}

extension ExtensionProcess: KeyboardChannel {}
