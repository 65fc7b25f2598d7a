import CKBIBus
import Foundation
import KBHost
import KBSystem
import KBText

/// The IBus engine: a front end over the input manager, as `attach` is. IBus
/// gives it key events, focus, the app's text and the field's purpose; it
/// gives back commits, the preedit, deletions, forwarded keys and the
/// candidate window. The document, the current keyboard, the globe key and
/// failover are the input manager's; nothing of that is written here.
///
/// Every IBus input context that picks a kbhost engine gets an engine object;
/// one of them has the focus at a time, and the one input manager serves it.
/// Everything runs on the GLib main loop's thread.
final class IBusFrontEnd {
    /// What this process knows about one engine object (one app's input context).
    struct EngineState {
        var field = FieldContext()
        /// The app's text as it last sent it.
        var surrounding: TextBuffer?
    }

    static let componentName = "org.freedesktop.IBus.Kbhost"

    /// The front end a C callback's context pointer stands for (it outlives the main loop).
    static func from(_ context: UnsafeMutableRawPointer?) -> IBusFrontEnd {
        Unmanaged<IBusFrontEnd>.fromOpaque(context!).takeUnretainedValue()
    }
    static let followingEngine = "kbhost"

    let context: Context
    let manager: InputManager
    var engines: [UnsafeMutableRawPointer: EngineState] = [:]
    var focused: UnsafeMutableRawPointer?
    var subscription: LineChannel?
    /// The settings when last looked at (without a daemon).
    var lastSeen: KeyboardSettings?
    /// Keys pressed and handled, so that their releases are handled too.
    var handledPresses: Set<UInt32> = []
    /// The preedit sent last: what ibus-daemon commits at a reset or focus out.
    var sentPreedit = ""
    /// The key held down (no release yet), and how many repeats it has sent.
    var held: (keyval: UInt32, repeats: Int)?
    /// A Shift press with no other key since: its release taps the keyboard's shift key.
    var shiftAlone = false
    /// What the candidate window and auxiliary text show now.
    var shownCandidates: [String] = []
    var candidateKeys: [String] = []
    var candidatesAreConversions = false
    var shownAuxiliary = ""
    /// What the panel was drawn from (session, its layout version, the notice, the engine).
    var lastDrawn: (ObjectIdentifier?, Int?, String, UnsafeMutableRawPointer)?
    /// A failure to show in the auxiliary text until the next key.
    var notice = ""
    /// The keyboard's edits the app has not reported back yet (its surrounding text may
    /// arrive before them): a report is an echo, or the app's change with them on top.
    var reported = ReportedText(keep: Int(KBH_IBUS_SURROUNDING_KEEP) / 2)  // reports arrive cut wider
    /// While focus leaves or the field is reset, ibus-daemon commits the preedit itself
    /// (it is shown in commit mode): the keyboard's document follows without a second commit.
    var daemonCommitsPreedit = false
    /// The operations of the action under way (`act`), replayed together when it ends.
    var pending: [ClientEdit]?
    /// What the keyboard did since the field took focus, held until the engine knows what the
    /// field is: ibus-daemon sends FocusIn before ContentType, so the keyboard appears before
    /// the engine can know it is in a password field. The content type, a key, a candidate
    /// click or a reset settle it (`settle`): then these reach the app, or are dropped in a
    /// secure field. That holds while an app tells a field's purpose before its first key (GTK
    /// does, before focus); the app's text is no such sign, it may come first. Focus out drops
    /// them: by the time FocusOut arrives, ibus-daemon hands the engine's output to the field
    /// focused next (sixteenth red team, F1: what a keyboard made slowly at focus in reached the
    /// password field the user clicked into meanwhile).
    var heldSinceFocus: [(operations: [ClientEdit], oneAction: Bool)]?
    /// The characters held, in all: at most `heldLimit` (beyond it what the keyboard does is
    /// dropped until the field settles). Held edits are outside every budget: a keyboard that
    /// inserted 7 MiB on each of the app's reports grew the engine to 2.8 GB (sixteenth red team, F4).
    var heldCharacters = 0, heldOverflowed = false
    static let heldLimit = 64 * 1024
    /// The app reported its text while the keyboard's edits were held: the keyboard hears of it
    /// once the field settles, not at each report (each report made it edit again, held again).
    var reportWhileHeld = false
    /// Cursor moves are replayed as Left/Right keys: a keyboard that moved across a whole
    /// document, back and forth, in one action made this engine queue millions of key events
    /// (1.7 GB, the desktop's typing stuck for minutes). One delivery forwards at most this many.
    static let maxMovesPerDelivery = 1000
    var movesLeft = maxMovesPerDelivery

    /// What the keyboard makes reaches whichever field IBus has focused when it arrives. Whatever
    /// waited behind slow keyboard calls (a keyboard may take seconds a call), or took long itself,
    /// was handled after the user moved on: its text landed in the next field, a password field
    /// included (fifteenth red team, F2, for keys; sixteenth, F1, for the app's text reported,
    /// focus, settings and keys queued behind those). Once the engine has spent
    /// `lateAfterNanoseconds` handling IBus's calls with no pause between them (a queue: calls took
    /// most of the time, not the typist's pace), what the keyboard makes waits (`late`) until
    /// ibus-daemon has answered a question asked after it (`kbh_ibus_after_round_trip`), so that a
    /// focus change it sent meanwhile is handled first, and reaches the app only if the focus has
    /// not moved since the action began (`focusMoves`). 5 ms: a focus change during a call shorter
    /// than that still meets its output (as for any IBus engine, whose every call has such a window);
    /// a keyboard that made each call 90 ms long had that long with 100 ms, and put its text and a
    /// Return in the password field a dialog or a click had just focused (seventeenth red team). A
    /// sample keyboard's key takes a fraction of a millisecond in a release build (0.3–0.5 ms press
    /// to commit through IBus); where one takes longer, its text waits a round trip (~0.3 ms).
    static let lateAfterNanoseconds: Int64 = 5_000_000
    /// The run of calls under way (none more than 2 ms after the last): its start, the time spent in
    /// them, the current call's start (calls nest: `inCall` deep), and the last one's end.
    var runStart: Int64 = 0, runBusy: Int64 = 0, callStart: Int64 = 0, lastCallEnd: Int64 = 0, inCall = 0
    var isLate: Bool {
        guard inCall > 0 else { return false }
        let now = Sys.monotonicNanoseconds()
        let busy = runBusy + (now - callStart)
        return busy > Self.lateAfterNanoseconds && busy * 10 > (now - runStart) * 8
    }
    var focusMoves = 0
    var late: [(moves: Int, engine: UnsafeMutableRawPointer, signals: [Signal])] = []
    /// The question is out (`late` waits for its answer), asked when `callsHandled` was this.
    var lateAsked: Int?
    /// IBus's calls handled so far: an answer that waited behind one says nothing of focus changes
    /// the daemon sent while that call ran, so the question is asked again.
    var callsHandled = 0

    /// One IBus event's keyboard calls share the event deadline (`ActionDeadline`): one report of
    /// the app's text is four calls, and a keyboard that took 2.4 s in each held every app of the
    /// session ~10 s per event (sixteenth red team, F3). An action over `slowActionNanoseconds`
    /// is a strike; `strikesToEnd` within `strikeWindowNanoseconds` end the keyboard as failed
    /// (three failures set it aside, as for any failure).
    static let slowActionNanoseconds: Int64 = 1_000_000_000
    static let strikesToEnd = 3
    static let strikeWindowNanoseconds: Int64 = 60_000_000_000
    var strikes: (keyboard: String, times: [Int64]) = ("", [])
    static let busyCallNanoseconds: Int64 = 50_000_000
    static let busyWindowNanoseconds: Int64 = 10_000_000_000
    /// The current keyboard's calls over `busyCallNanoseconds` in the last `busyWindowNanoseconds`: when each ended, what it took.
    var busy: [(end: Int64, took: Int64)] = []
    let eventDeadlineMilliseconds: Int

    init(context: Context, budget: Int) throws {
        self.context = context
        eventDeadlineMilliseconds = context.installation.processConfiguration.eventDeadlineMilliseconds
        do {
            manager = try InputManager(installation: context.installation, store: context.store,
                                       registry: context.registry, field: FieldContext(), budget: budget)
        } catch {
            throw exitWithError(error.description, status: Kbhost.Exit.badSettings)
        }
        manager.onSettingsChanged = { DaemonClient.notifyWithoutWaiting() }
        manager.onEvent = { [weak self] event in self?.heard(event) }
        subscribe()
    }

    // MARK: The input manager's news

    func heard(_ event: InputManager.Event) {
        switch event {
        case .edited(let edit, let before, let after):
            guard let engine = focused else { return }
            if kbh_ibus_has_surrounding_text(engine) != 0 { reported.sent(edit, before: before, after: after) }  // only such apps report
            guard !daemonCommitsPreedit else { return }
            let operations = ClientEdit.operations(for: edit, before: before, after: after)
            if pending != nil { pending! += operations } else { deliver(operations, on: engine, oneAction: false) }
        case .keyboardFailed(let id, let reason, let setAside, let landedOn):
            let aside = setAside ? " It is set aside until enabled again." : ""
            let landing = landedOn == SystemKeyboard.identifier
                ? "keys go to the app" : "switched to \(context.name(landedOn))"
            notice = "⚠ \(context.name(id)) stopped: \(reason).\(aside) \(landing)"
            Console.err("kbhost ibus: \(TerminalText.line(id)) failed: \(TerminalText.line(reason)); \(landing)")
        case .currentChanged:
            break
        }
    }

    /// Edits reach the app, unless the field is secure: nothing a keyboard does reaches a
    /// password field (the system keyboard serves it; the app types its keys itself).
    /// `moves`: the focus count when the action that made them began.
    func deliver(_ operations: [ClientEdit], on engine: UnsafeMutableRawPointer, oneAction: Bool = true, moves: Int? = nil) {
        let operations = ClientEdit.coalesced(operations)  // the app gets one action's result, not each step
        guard !operations.isEmpty, !manager.field.traits.isSecureTextEntry else { return }
        let moves = moves ?? focusMoves
        guard moves == focusMoves else { return }  // for a field that lost the focus meanwhile
        if heldSinceFocus != nil { return hold(operations, oneAction: oneAction) }
        // An action's edits get the allowance; edits outside one (news, a timer) share what is left
        // until the next: each had an allowance of its own, and a keyboard that moved back and forth
        // 200 times as it disappeared made the engine forward 400,000 keys (fifteenth red team).
        if oneAction { movesLeft = Self.maxMovesPerDelivery }
        let out = oneAction ? signals(for: operations, on: engine) : operations.flatMap { signals(for: $0, on: engine) }
        guard !out.isEmpty else { return }  // (moves beyond the allowance)
        if !late.isEmpty || isLate {  // (after late ones, in order)
            queueLate(out, moves: moves, on: engine)
            if lateAsked == nil { askForLate() }
            return
        }
        let now = Self.batch(out[...], after: sentAtOnce)
        send(out.prefix(now), on: engine)
        if out.count > now {  // the rest once the daemon says the focus is still here
            queueLate(Array(out.dropFirst(now)), moves: moves, on: engine)
            askForLate()
        }
        // What was just handed to IBus leaves on GDBus's own thread: where it shares this CPU
        // it runs now rather than after the rest of the key (pinned to one CPU, a key's commit
        // reached the app 15% sooner; on a free CPU this costs one system call).
        sched_yield()
    }

    /// What the engine sends the app: each a message to ibus-daemon.
    enum Signal {
        case commit(String)
        case preedit(String, cursor: Int, selected: Int)
        case deleteSurrounding(characters: Int)
        case key(keyval: UInt32, code: UInt32, state: UInt32 = 0)

        var isKey: Bool { if case .key = self { true } else { false } }
        var isPreedit: Bool { if case .preedit = self { true } else { false } }
        var isCommit: Bool { if case .commit = self { true } else { false } }
        /// The text it carries (UTF-8 bytes).
        var size: Int {
            switch self {
            case .commit(let text), .preedit(let text, _, _): text.utf8.count
            default: 0
            }
        }
    }

    /// Signals sent at once, at most; the rest go after a round trip to the daemon each, and only
    /// while the focus stays. ibus-daemon hands each message to the field focused when it reads it:
    /// a commit, 998 moves and a Return took the engine 80–140 ms to send, and a focus change meanwhile
    /// put the Return in the password field the user moved to (seventeenth red team).
    static let signalsAtOnce = 32

    /// Text sent at once, at most (UTF-8 bytes; a batch holds at least one signal): a batch is sent
    /// in the time its bytes take, and a focus change meanwhile splits it.
    static let bytesAtOnce = 64 * 1024

    /// What went to the daemon since the last answer (or since the IBus call began): one batch,
    /// whatever number of deliveries made it (a held commit settled by a key, then the key's Return).
    var sentAtOnce = SentAtOnce()
    struct SentAtOnce {
        var signals = 0, bytes = 0, lastWasText = false
    }

    /// How many of `signals` join the batch that `sent` began: in all at most `signalsAtOnce` and
    /// `bytesAtOnce`, and never a forwarded key after text (a Return after a commit): the key waits for
    /// the next answer, so that a focus change while the text went cannot take the Return, which
    /// submits the field it lands in (seventeenth red team).
    static func batch(_ signals: ArraySlice<Signal>, after sent: SentAtOnce) -> Int {
        var (count, bytes, afterText) = (sent.signals, sent.bytes, sent.lastWasText)
        for signal in signals {
            guard count < signalsAtOnce, !(signal.isKey && afterText) else { break }
            guard count == 0 || bytes + signal.size <= bytesAtOnce else { break }
            (count, bytes, afterText) = (count + 1, bytes + signal.size, !signal.isKey)
        }
        return count - sent.signals
    }

    /// Keeps edits until the field's purpose is known, up to `heldLimit` characters in all.
    func hold(_ operations: [ClientEdit], oneAction: Bool) {
        guard !heldOverflowed else { return }
        let characters = operations.reduce(0) { total, operation in
            switch operation {
            case .commit(let text), .preedit(let text, _, _): total + text.utf16.count
            default: total + 1
            }
        }
        heldCharacters += characters
        guard heldCharacters <= Self.heldLimit else {
            heldOverflowed = true
            heldSinceFocus = []
            reported.forget()  // they never reach the app: no echo of them is coming
            reportWhileHeld = true  // the keyboard's document is brought back to the app's text at `settle`
            Console.err("kbhost ibus: \(TerminalText.line(manager.currentID)) made more than \(Self.heldLimit) characters of edits "
                        + "before the field said what it is; they are dropped")
            return
        }
        heldSinceFocus!.append((operations, oneAction))
    }

    /// Text waiting for the daemon's answer, at most (UTF-8 bytes): calls queued back to back put
    /// off every answer (`deliverLate` asks again), while each call may add 8 MiB.
    static let lateBytesLimit = 16 * 1024 * 1024

    func queueLate(_ signals: [Signal], moves: Int, on engine: UnsafeMutableRawPointer) {
        let waiting = late.reduce(0) { $0 + $1.signals.reduce(0) { $0 + $1.size } }
        guard waiting + signals.reduce(0, { $0 + $1.size }) <= Self.lateBytesLimit else {
            reported.forget()  // they never reach the app: no echo of them is coming
            Console.err("kbhost ibus: \(TerminalText.line(manager.currentID)) made more than \(Self.lateBytesLimit) bytes of text "
                        + "while the app waited; what did not fit is dropped")
            return
        }
        late.append((moves, engine, signals))
    }

    /// What slow actions made (and what long ones made past their first `signalsAtOnce` signals),
    /// once ibus-daemon answered a question asked after them (so that the focus changes it sent
    /// meanwhile were handled first): to the app if the focus did not move since each action
    /// began, else nowhere (the field it was for lost the focus); `signalsAtOnce` an answer.
    func askForLate() {
        lateAsked = callsHandled
        kbh_ibus_after_round_trip({ context, answered in
            IBusFrontEnd.from(context).deliverLate(answered: answered != 0)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    func deliverLate(answered: Bool) {
        guard answered else {  // no order known: nothing goes (a daemon that does not answer in 2 s is stuck)
            Console.err("kbhost ibus: ibus-daemon did not answer; what a slow keyboard made is dropped")
            (late, lateAsked) = ([], nil)
            return
        }
        guard lateAsked == callsHandled else { return askForLate() }  // the answer waited behind a call
        lateAsked = nil
        late.removeAll { $0.signals.isEmpty || $0.moves != focusMoves || $0.engine != focused || manager.field.traits.isSecureTextEntry }
        sentAtOnce = SentAtOnce()
        while !late.isEmpty {
            let count = Self.batch(late[0].signals[...], after: sentAtOnce)
            send(late[0].signals.prefix(count), on: late[0].engine)
            late[0].signals.removeFirst(count)
            guard late[0].signals.isEmpty else { break }  // a key after text, or the batch is full: the next answer
            late.removeFirst()
        }
        if !late.isEmpty { askForLate() }
    }

    /// The field's purpose is known now: what the keyboard did since focus reaches the app
    /// (or nothing, in a password field); then the keyboard hears of the app's text reported
    /// meanwhile.
    func settle(_ engine: UnsafeMutableRawPointer) {
        guard engine == focused, let held = heldSinceFocus else { return }
        guard !manager.field.traits.isSecureTextEntry else { return dropHeld() }
        let reportedMeanwhile = reportWhileHeld
        endHolding()
        held.forEach { deliver($0.operations, on: engine, oneAction: $0.oneAction) }
        guard reportedMeanwhile else { return }
        if held.isEmpty, let text = engines[engine]?.surrounding {
            appReported(text, on: engine)
        } else {
            kbh_ibus_request_surrounding_text(engine)  // the app's text with them in it, when it has them
        }
    }

    /// Drops what was held for a field that lost the focus (or became secure).
    func dropHeld() {
        if heldSinceFocus?.isEmpty == false { reported.forget() }
        endHolding()
    }

    func endHolding() {
        (heldSinceFocus, heldCharacters, heldOverflowed, reportWhileHeld) = (nil, 0, false, false)
    }

    /// Runs one of IBus's calls (or a timer's) on this engine: timed for the late rule, its keyboard
    /// calls under one deadline (`ActionDeadline`: the event deadline for all of them, whatever
    /// actions the call runs), and a keyboard that keeps every app waiting again and again ends.
    func handling<T>(_ body: (IBusFrontEnd) -> T) -> T {
        guard inCall == 0 else { return body(self) }
        callStart = Sys.monotonicNanoseconds()
        if callStart - lastCallEnd > 2_000_000 { (runStart, runBusy) = (callStart, 0) }  // not queued behind the last
        callsHandled += 1
        inCall = 1
        sentAtOnce = SentAtOnce()
        let keyboard = manager.currentID
        let result = manager.actionDeadline.within(milliseconds: eventDeadlineMilliseconds) { body(self) }
        // What the call took but launches: the keyboard's answers and what the engine did with them (a
        // keyboard that slept 0.9 s and had the engine replay 64,000 moves took 1.3 s a key, each
        // under 1 s of waiting: seventeenth red team).
        noteSlowness(Sys.monotonicNanoseconds() - callStart - manager.actionDeadline.launchingNanoseconds, of: keyboard)
        inCall = 0
        lastCallEnd = Sys.monotonicNanoseconds()
        runBusy += lastCallEnd - callStart
        return result
    }

    /// A keyboard that made one of IBus's calls take over `slowActionNanoseconds` gets a strike (only
    /// the keyboard that was current through the call: one that failed meanwhile took its own blame).
    /// Calls over `busyCallNanoseconds` also count their time: a keyboard that kept the apps waiting
    /// over half of the last `busyWindowNanoseconds` ends (one that took 0.95 s on every key, never a
    /// strike, held every key of every app ~1 s for as long as it was used).
    func noteSlowness(_ took: Int64, of keyboard: String) {
        guard took > Self.busyCallNanoseconds, manager.currentID == keyboard, manager.active != nil else { return }
        let now = Sys.monotonicNanoseconds()
        if strikes.keyboard != keyboard { (strikes, busy) = ((keyboard, []), []) }
        busy = busy.filter { now - $0.end < Self.busyWindowNanoseconds } + [(now, took)]
        if busy.reduce(0, { $0 + $1.took }) * 2 > Self.busyWindowNanoseconds {
            return endSlowKeyboard(because: "kept every app waiting over half of the last \(Self.busyWindowNanoseconds / 1_000_000_000) s")
        }
        guard took > Self.slowActionNanoseconds else { return }
        strikes.times = strikes.times.filter { now - $0 < Self.strikeWindowNanoseconds } + [now]
        guard strikes.times.count >= Self.strikesToEnd else { return }
        endSlowKeyboard(because: "answered \(Self.strikesToEnd) events in over \(Self.slowActionNanoseconds / 1_000_000_000) s each "
                        + "within a minute")
    }

    func endSlowKeyboard(because why: String) {
        (strikes, busy) = (("", []), [])
        manager.endCurrentKeyboard(because: why + ", which holds up typing in every app")
        if focused == nil { manager.blur() }  // ended as a field lost the focus: the one landed on is not shown
        refreshPanel()
    }

    /// The signals for one operation.
    func signals(for operation: ClientEdit, on engine: UnsafeMutableRawPointer) -> [Signal] {
        switch operation {
        case .commit("\n"):
            // A return key's newline reaches the app as the Return key: a one-line field
            // activates, a terminal gets Enter (a committed "\n" does neither everywhere).
            return [.key(keyval: KeySym.returnKey, code: KeySym.returnCode)]
        case .commit(let text): return [.commit(text)]
        case .preedit(let text, let cursor, let selected): return [.preedit(text, cursor: cursor, selected: selected)]
        case .deleteBackward(let characters):
            // Some apps (Chromium, terminals) claim surrounding text but ignore deletions of it:
            // KBHOST_IBUS_FORWARD_DELETE=1 makes the engine send BackSpace instead, as Keyman does.
            if kbh_ibus_has_surrounding_text(engine) != 0, ProcessInfo.processInfo.environment["KBHOST_IBUS_FORWARD_DELETE"] == nil {
                return [.deleteSurrounding(characters: characters)]
            }
            return [.key(keyval: KeySym.backSpace, code: KeySym.backSpaceCode)]
        case .deleteSelection:
            return [.key(keyval: KeySym.backSpace, code: KeySym.backSpaceCode)]
        case .moveCursor(let characters):
            let (keyval, code) = characters < 0 ? (KeySym.left, KeySym.leftCode) : (KeySym.right, KeySym.rightCode)
            let count = min(abs(characters), movesLeft)
            movesLeft -= count
            return Array(repeating: .key(keyval: keyval, code: code), count: count)
        }
    }

    func send(_ signals: some Sequence<Signal>, on engine: UnsafeMutableRawPointer) {
        for signal in signals {
            sentAtOnce.signals += 1
            sentAtOnce.bytes += signal.size
            sentAtOnce.lastWasText = !signal.isKey
            switch signal {
            case .commit(let text): kbh_ibus_commit(engine, text)
            case .preedit(let text, let cursor, let selected):
                kbh_ibus_preedit(engine, text, UInt32(clamping: cursor), UInt32(clamping: selected))
                sentPreedit = text
            case .deleteSurrounding(let characters):
                kbh_ibus_delete_surrounding(engine, -Int32(clamping: characters), UInt32(clamping: characters))
            case .key(let keyval, let code, let state): kbh_ibus_forward_key(engine, keyval, code, state)
            }
        }
    }

    // MARK: Keys

    /// A key event from the app: true when the keyboard took it.
    func key(_ engine: UnsafeMutableRawPointer, keyval: UInt32, keycode: UInt32 = 0, state: UInt32) -> Bool {
        let handled = keyboardKey(engine, keyval: keyval, state: state)
        guard !handled, engine == focused else { return handled }
        // A press queued below goes as a tap (press and release): its release goes with it (Shift's
        // too, which the keyboard never takes: it reached the app before its press did).
        if state & KeySym.releaseMask != 0 { return handledPresses.remove(keyval) != nil }
        // What the keyboard made for this field is still on its way (it waits for the daemon's
        // answer): the app would type this key before it (the preedit a crashing keyboard leaves,
        // committed after the key that crashed it). The key goes after it, the same way, and with it
        // if the focus moves. Never in a password field: nothing of a keyboard's reaches it, and the
        // user's keys are the app's.
        guard !late.isEmpty, !manager.field.traits.isSecureTextEntry else { return false }
        late.append((focusMoves, engine, [.key(keyval: keyval, code: keycode, state: state)]))
        handledPresses.insert(keyval)
        return true
    }

    func keyboardKey(_ engine: UnsafeMutableRawPointer, keyval: UInt32, state: UInt32) -> Bool {
        guard engine == focused else { return false }
        settle(engine)
        let released = state & KeySym.releaseMask != 0
        if keyval == KeySym.shiftL || keyval == KeySym.shiftR {
            if !released { shiftAlone = true } else if shiftAlone {
                shiftAlone = false
                if manager.active?.layout.key(named: "shift") != nil { act { _ = manager.tap("shift") } }
            }
            return false
        }
        if released {
            if held?.keyval == keyval { held = nil }
            return handledPresses.remove(keyval) != nil
        }
        shiftAlone = false
        guard state & KeySym.shortcutMask == 0, let session = manager.active else { return false }  // the system keyboard: the app types
        if candidatesAreConversions, keyval >= 0x31, keyval <= 0x39 {
            let index = Int(kbh_ibus_candidate_page_start(engine)) + Int(keyval - 0x31)
            if index < candidateKeys.count {
                choose(index)
                handledPresses.insert(keyval)
                return true
            }
        }
        // While text is marked, ←/→ move between conversion segments and Shift-←/→ resize one (as ibus-anthy).
        if keyval == KeySym.left || keyval == KeySym.right, manager.currentDocument.buffer.markedRange != nil {
            let shifted = state & 1 != 0
            let name = keyval == KeySym.left ? (shifted ? "id:shrink" : "id:left") : (shifted ? "id:extend" : "id:right")
            if session.layout.key(named: name) != nil {
                act { _ = manager.tap(name) }
                handledPresses.insert(keyval)
                return true
            }
        }
        guard let name = KeySym.name(keyval) else { return false }
        var outcome = InputManager.TapOutcome.tapped
        act {
            if var h = held, h.keyval == keyval {
                h.repeats += 1
                held = h
                outcome = manager.repeatKey(name, count: h.repeats)
            } else {
                outcome = manager.tap(name)
                if outcome != .noSuchKey { held = (keyval, 0) }
            }
        }
        switch outcome {
        case .noSuchKey: return false  // the app has it: keys the keyboard lacks keep working
        case .failed where manager.active == nil: return false  // the key that broke the keyboard reaches the app
        default:
            handledPresses.insert(keyval)
            if outcome == .tapped, !notice.isEmpty {  // a keyboard works again: the failure notice goes
                notice = ""
                refreshPanel()
            }
            return true
        }
    }

    /// A candidate chosen (a number key or a click): taps its key.
    func choose(_ index: Int) {
        if let engine = focused { settle(engine) }
        guard index < candidateKeys.count else { return }
        act { _ = manager.tap("id:" + candidateKeys[index]) }
    }

    /// Runs an action on the input manager, then shows what the keyboard shows now. What it makes
    /// is for the field focused as it began.
    func act(_ body: () -> Void) {
        let moves = focusMoves
        pending = []
        body()
        let operations = pending ?? []
        pending = nil
        // Text far from the cursor is the app's: the engine keeps a window (ReportedText).
        if let cut = reported.cutBack(manager.currentDocument.buffer) { manager.appChanged(cut) }
        if let engine = focused { deliver(operations, on: engine, moves: moves) }
        refreshPanel()
    }

    /// One action's operations. A deletion followed by text in the same action (an
    /// autocorrection) deletes surrounding text, which the app applies in order with the
    /// commit; a deletion alone is a forwarded BackSpace, which also deletes the app's
    /// selection (GTK 3 never tells an input method it has one) — forwarded keys reach
    /// GTK after the commits of the same action, so they are kept for deletions alone.
    func signals(for operations: [ClientEdit], on engine: UnsafeMutableRawPointer) -> [Signal] {
        if operations.count == 1, case .deleteBackward = operations[0] {
            return [.key(keyval: KeySym.backSpace, code: KeySym.backSpaceCode)]
        }
        return operations.flatMap { signals(for: $0, on: engine) }
    }

    /// The keyboard's display line as auxiliary text, its candidate and
    /// suggestion keys (identifiers `candidate.N`, `suggestion.N`) in the
    /// candidate window; a failure notice takes the auxiliary text.
    func refreshPanel() {
        guard let engine = focused else { return }
        // Most keys change neither the layout nor the notice: nothing to redraw, nothing to compute.
        let active = manager.active  // a lookup by identifier: once
        let drawn = (active.map(ObjectIdentifier.init), active?.layoutVersion, notice, engine)
        if let last = lastDrawn, last.0 == drawn.0, last.1 == drawn.1, last.2 == drawn.2, last.3 == drawn.3 { return }
        lastDrawn = drawn
        var keys: [KeyboardLayout.Key] = []
        if let layout = active?.layout {
            // The first `candidateLimit` only: 60,000 candidates cost 1.2 s a key to escape and
            // hand to IBus (third red team), and no person pages through more.
            keys = Array(layout.rows.joined().lazy.filter {
                ($0.identifier.hasPrefix("candidate.") || $0.identifier.hasPrefix("suggestion.")) && !$0.label.isEmpty
            }.prefix(Self.candidateLimit))
        }
        // Text, as the auxiliary text: a label's control characters and bidi overrides are shown
        // as escapes (a newline would split the row, U+202E turn it around), never passed on; and
        // cut to what a candidate window can show.
        let labels = keys.map { key in
            Self.panelText(key.label, limit: Self.candidateLabelLimit)
        }
        candidateKeys = keys.map(\.identifier)
        candidatesAreConversions = keys.first?.identifier.hasPrefix("candidate.") == true
        if labels != shownCandidates {
            shownCandidates = labels
            var pointers = labels.map { strdup($0) }
            defer { pointers.forEach { free($0) } }
            pointers.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                    kbh_ibus_candidates(engine, $0, buffer.count)
                }
            }
        }
        let auxiliary = notice.isEmpty ? (active?.layout.display ?? "") : notice
        if auxiliary != shownAuxiliary {
            shownAuxiliary = auxiliary
            kbh_ibus_auxiliary(engine, Self.panelText(auxiliary, limit: Self.auxiliaryLimit))
        }
    }

    /// Candidates shown in IBus's window, at most; and the characters of one candidate's label.
    static let candidateLimit = 100
    static let candidateLabelLimit = 80
    /// The characters of the auxiliary text (the display line or a failure notice), at most.
    static let auxiliaryLimit = 200

    /// Text for the panel: cut to `limit` Unicode scalars before it is escaped (a keyboard's display
    /// line may be megabytes), then to `limit` with "…". Scalars, not characters: 201 characters of a
    /// letter and 18,000 combining marks each were 7 MiB, sent at every focus change (eighteenth red team).
    static func panelText(_ text: String, limit: Int) -> String {
        let line = TerminalText.line(String(text.unicodeScalars.prefix(limit + 1)))
        return line.unicodeScalars.count > limit ? String(line.unicodeScalars.prefix(limit - 1)) + "…" : line
    }

    func hidePanel(_ engine: UnsafeMutableRawPointer) {
        lastDrawn = nil
        if !shownCandidates.isEmpty { kbh_ibus_candidates(engine, nil, 0) }
        if !shownAuxiliary.isEmpty { kbh_ibus_auxiliary(engine, "") }
        shownCandidates = []
        candidateKeys = []
        shownAuxiliary = ""
    }

    // MARK: The app

    func focusIn(_ engine: UnsafeMutableRawPointer) {
        if let old = focused, old != engine { focusOut(old) }
        moveFocus()
        focused = engine
        handledPresses = []
        held = nil
        reported.forget()
        dropHeld()
        heldSinceFocus = []
        let state = engines[engine, default: EngineState()]
        engines[engine] = state
        act { manager.focus(state.field, text: state.field.traits.isSecureTextEntry ? TextBuffer() : state.surrounding ?? TextBuffer()) }
        kbh_ibus_request_surrounding_text(engine)
    }

    func focusOut(_ engine: UnsafeMutableRawPointer) {
        guard engine == focused else { return }
        moveFocus()
        dropHeld()  // ibus-daemon hands what the engine sends now to the field focused next
        daemonCommitsPreedit = true
        manager.blur()
        daemonCommitsPreedit = false
        hidePanel(engine)
        focused = nil
    }

    /// The focus moves: what slow actions made for the field it leaves goes nowhere, and so do the
    /// keys queued behind it (a key queued behind another field's output reached no field at all:
    /// the first keys typed into a password field were swallowed).
    func moveFocus() {
        focusMoves += 1
        late.removeAll()
        sentPreedit = ""
    }

    func reset(_ engine: UnsafeMutableRawPointer) {
        guard engine == focused else { return }
        settle(engine)
        // ibus-daemon commits the preedit it was sent last. A newer one still on its way (`late`)
        // would show again a composition the keyboard has just committed, and be committed twice
        // (a review): it goes nowhere, and the app's text is brought to the keyboard's (`reconcile`).
        let waiting = late.contains { $0.signals.contains { $0.isPreedit } }
        for index in late.indices { late[index].signals.removeAll { $0.isPreedit } }
        late.removeAll { $0.signals.isEmpty }
        let marked = manager.active?.document.buffer.markedText.map(String.init) ?? ""
        daemonCommitsPreedit = true
        act { manager.commitMarkedText() }
        daemonCommitsPreedit = false
        if waiting, !manager.field.traits.isSecureTextEntry { reconcile(committed: sentPreedit, marked: marked, on: engine) }
        sentPreedit = ""
    }

    /// At a reset while newer output waited, ibus-daemon committed `shown` (the preedit it had), where
    /// the keyboard's document has what waited, then `marked` committed. The app gets what it lacks:
    /// the first waiting commit less `shown` where it begins with it (the keyboard committed what was
    /// shown); else, with nothing committed waiting, what `marked` has past `shown`; else `shown` is
    /// deleted first where the app takes deletions of its text, and `marked` follows whole. Otherwise
    /// the app keeps `shown` (and an app that reports its text brings the keyboard's document to it).
    func reconcile(committed shown: String, marked: String, on engine: UnsafeMutableRawPointer) {
        var accounted = shown.isEmpty, rest = marked
        if !accounted, case .commit(let text)? = late.first?.signals.first, text.hasPrefix(shown) {
            late[0].signals[0] = .commit(String(text.dropFirst(shown.count)))
            if text == shown { late[0].signals.removeFirst() }
            late.removeAll { $0.signals.isEmpty }
            accounted = true
        } else if !accounted, !late.contains(where: { $0.signals.contains(where: \.isCommit) }),
                  marked.hasPrefix(shown) {
            (accounted, rest) = (true, String(marked.dropFirst(shown.count)))
        } else if !accounted, kbh_ibus_has_surrounding_text(engine) != 0,
                  ProcessInfo.processInfo.environment["KBHOST_IBUS_FORWARD_DELETE"] == nil {
            late.insert((focusMoves, engine, [.deleteSurrounding(characters: shown.unicodeScalars.count)]), at: 0)
            accounted = true
        }
        if accounted, !rest.isEmpty { queueLate([.commit(rest)], moves: focusMoves, on: engine) }
        if !late.isEmpty, lateAsked == nil { askForLate() }
    }

    /// The engine was chosen in the app: `kbhost:ID` makes ID the current keyboard (as `kbhost set`).
    func enable(_ engine: UnsafeMutableRawPointer) {
        guard let name = kbh_ibus_engine_name(engine).map({ String(cString: $0) }),
              name.hasPrefix(Self.followingEngine + ":") else { return }
        let id = String(name.dropFirst(Self.followingEngine.count + 1))
        guard registry(has: id), let settings = try? context.store.load(), settings.current != id else { return }
        // Only an enabled keyboard, as `kbhost set` (fifth red team, R5-4): IBus knows the source of a
        // keyboard disabled since it was listed until it restarts, and any app may choose a source.
        guard settings.enabled.contains(id), settings.failures[id]?.setAside != true else {
            let why = settings.enabled.contains(id) ? "is set aside after failing" : "is not enabled"
            notice = "⚠ \(context.name(id)) \(why) in kbhost (kbhost enable \(id)); keys go to the app"
            Console.err("kbhost ibus: the source kbhost:\(TerminalText.line(id)) was chosen, but that keyboard \(why); keys go to the app")
            if engine == focused { act { manager.follow(current: SystemKeyboard.identifier) } } else { refreshPanel() }
            return
        }
        do {
            _ = try context.store.update { $0.current = id }
            DaemonClient.notifyWithoutWaiting()
            if engine == focused { act { manager.follow(current: id) } }
        } catch {
            Console.err("kbhost ibus: could not make \(TerminalText.line(id)) current: \(error)")
        }
    }

    func registry(has id: String) -> Bool { context.registry.entry(id) != nil }

    func surrounding(_ engine: UnsafeMutableRawPointer, text: String, cursor: Int, anchor: Int) {
        let buffer = Self.buffer(text, cursor: cursor, anchor: anchor)  // cut near the cursor by the C side
        engines[engine, default: EngineState()].surrounding = buffer
        guard engine == focused, !manager.field.traits.isSecureTextEntry,
              manager.currentDocument.buffer.markedRange == nil else { return }
        guard heldSinceFocus == nil else { return reportWhileHeld = true }  // the keyboard hears of it at `settle`
        appReported(buffer, on: engine)
    }

    func appReported(_ buffer: TextBuffer, on engine: UnsafeMutableRawPointer) {
        guard let text = reported.reported(buffer) else { return }  // an echo of the keyboard's own edits
        // What the keyboard has already: an echo of more than `ReportedText` keeps in flight (a keyboard
        // that inserted 2 MiB in textDidChange: heard of each echo as the app's change, and did it again).
        guard reported.window(manager.currentDocument.buffer) != text else { return }
        act { manager.appChanged(text) }
    }

    func contentType(_ engine: UnsafeMutableRawPointer, purpose: UInt32, hints: UInt32) {
        let field = Self.field(purpose: purpose, hints: hints)
        guard engines[engine, default: EngineState()].field != field else { return settle(engine) }
        engines[engine]?.field = field
        guard engine == focused else { return }
        let text = field.traits.isSecureTextEntry ? TextBuffer() : manager.currentDocument.buffer
        act { manager.focus(field, text: text) }
        // A preedit shown before would stay in clear in the password field, and ibus-daemon
        // would commit it there at focus out: it goes (the keyboard's document is empty now).
        if field.traits.isSecureTextEntry { kbh_ibus_preedit(engine, "", 0, 0) }
        settle(engine)
    }

    func destroyed(_ engine: UnsafeMutableRawPointer) {
        if engine == focused {
            dropHeld()
            focused = nil  // first: what the keyboard does as it disappears has no app to reach
            manager.blur()
        }
        engines[engine] = nil
    }
}
