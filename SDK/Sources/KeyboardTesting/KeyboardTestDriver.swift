import KBHost
// TextBuffer, UTF16Range and Gesture are part of the kit's vocabulary; KBText's TextInputTraits is not
// (it would clash with KeyboardSDK's in an author's tests).
@_exported import struct KBText.TextBuffer
@_exported import struct KBText.UTF16Range
@_exported import enum KBText.Gesture
import KBText
import KBWire
public import KeyboardSDK

/// Drives a keyboard in process, against a real document, in a unit test.
/// The keyboard is called through the same ABI, the same selector checks and
/// the same libffi dispatch as in its extension process, by the same session
/// engine as `KeyboardProcess` (kbhost's `KeyboardSession`): the same calls in
/// the same order, the same events, the same window of the document
/// (`documentContextBeforeInput` holds at most 512 UTF-16 code units, as in
/// the real process). Only the process, the socket, the budget and the sandbox
/// are missing. Like `KeyboardProcess`, it shows the keyboard when it creates
/// it (viewDidLoad, viewWillAppear, viewDidAppear), as iOS presents it.
///
///     let keyboard = try KeyboardTestDriver(CalculatorViewController.self)
///     try keyboard.appear()
///     try keyboard.tap("1"); try keyboard.tap("+"); try keyboard.tap("2"); try keyboard.tap("=")
///     #expect(keyboard.text == "3")
public final class KeyboardTestDriver {
    private let session: KeyboardSession

    /// Life-cycle and text-input calls made, and what the keyboard asked for and logged, in
    /// order, as `KeyboardProcess.events` lists them ("viewDidLoad", "playInputClick", "log: …").
    public var events: [String] { session.events.map(\.description) }
    public var advanceToNextInputModeCount: Int { count("advanceToNextInputMode") }
    public var dismissCount: Int { count("dismissKeyboard") }
    public var inputClickCount: Int { count("playInputClick") }
    public var logMessages: [String] { details("log") }
    /// Sounds other than the click the keyboard played (it needs open access).
    public var soundsPlayed: [String] { details("playSound") }
    /// Haptic feedback the keyboard played (it needs open access), as events name it: "light",
    /// "medium 0.5" (an impact below full intensity), "selection", "success"…
    public var haptics: [String] { details("haptic") }
    /// The session clock (virtual), advanced by gestures and `pause`.
    public var clockNanoseconds: Int64 { session.clockNanoseconds }
    public var isVisible: Bool { session.isVisible }
    /// How many controllers the keyboard has had: 1, and one more per `representKeyboard()`.
    public var presentations: Int { session.presentations }
    /// Whether `events` also lists the keyboard's edits through its proxy ("insertText: a",
    /// "deleteBackward", …); off by default.
    public var recordsProxyCalls: Bool {
        get { session.recordsProxyCalls }
        set { session.recordsProxyCalls = newValue }
    }

    public enum Failure: Error, CustomStringConvertible {
        case noSuchKey(String, labels: [String])
        case keyboard(String)
        /// The key offers no such alternate on a long press; `alternates`: those it does.
        case noSuchAlternate(String, choice: String, alternates: [String])
        /// A script token that is not a step (`run(script:)`).
        case script(String)

        public var description: String {
            switch self {
            case .noSuchKey(let name, let labels): "no key '\(name)'; keys: \(labels.joined(separator: " "))"
            case .keyboard(let message): message
            case .noSuchAlternate(let name, let choice, let alternates):
                "key '\(name)' offers no alternate '\(choice)'; alternates: \(alternates.joined(separator: " "))"
            case .script(let message): message
            }
        }

        init(_ failure: KeyboardFailure) { self = .keyboard(failure.reasonDescription) }

        init(_ error: SessionError) {
            switch error {
            case .noSuchKey(let name, _, let labels): self = .noSuchKey(name, labels: labels)
            case .noSuchAlternate(let name, let choice, _, let alternates): self = .noSuchAlternate(name, choice: choice, alternates: alternates)
            case .keyboardFailed(let failure): self = Failure(failure)
            }
        }
    }

    /// Creates the keyboard on a document holding `text`, the insertion point at its end,
    /// and shows it: viewDidLoad, viewWillAppear, viewDidAppear.
    public init(_ type: InputViewController.Type, text: String = "", traits: KeyboardSDK.TextInputTraits = .init(),
                needsInputModeSwitchKey: Bool = true, hasFullAccess: Bool = false, primaryLanguage: String = "en-US",
                inputModes: [String] = [], lexicon: [KeyboardSDK.LexiconEntry] = [], pasteboard: String? = nil,
                containerPath: String? = nil, appGroups: [String: String] = [:]) throws(Failure) {
        let className = String(describing: type)
        // Full access is the test's to give: the manifest requests it, so `update(hasFullAccess:)` can grant it.
        let manifest = KeyboardManifest(path: "", bundleIdentifier: "test.\(className)", displayName: className,
                                        executable: "", principalClass: className, primaryLanguage: primaryLanguage,
                                        requestsOpenAccess: true, applicationGroups: appGroups.keys.sorted())
        let document = TextDocument(text: text, traits: KeyboardTestDriver.convert(traits), identifier: "test-document")
        let facts = ControllerFacts(needsInputModeSwitchKey: needsInputModeSwitchKey, hasFullAccess: hasFullAccess,
                                    primaryLanguage: primaryLanguage, documentIdentifier: document.identifier,
                                    traits: document.traits, inputModes: inputModes,
                                    lexicon: lexicon.map { KBWire.LexiconEntry(userInput: $0.userInput, documentText: $0.documentText) },
                                    pasteboard: pasteboard)
        // Containers and groups as the keyboard will see them; in process, nothing enforces the sandbox.
        let containers = SandboxSpec(enabled: false, openAccess: hasFullAccess, containerPath: containerPath ?? "",
                                     groups: appGroups.sorted { $0.key < $1.key }.map { GroupContainer(name: $0.key, path: $0.value) })
        let keyboard = LoadableKeyboard(manifest: manifest, libraryPath: "")
        let channel = InProcessChannel(plugin: KeyboardPlugin.export([type]), keyboardID: keyboard.identifier)
        do {
            session = try KeyboardSession(keyboard: keyboard, document: document, channel: channel, facts: facts,
                                          sandbox: containers, pasteboard: nil)
            try session.appear()
        } catch {
            throw Failure(error)
        }
    }

    // MARK: The document

    /// The whole document (the keyboard reads a window of it through its proxy).
    public var buffer: TextBuffer { session.document.buffer }
    public var text: String { buffer.text }
    /// The selection in UTF-16 code units.
    public var selection: UTF16Range { buffer.selection }
    public var markedText: String? { buffer.markedText.map(String.init) }
    /// The general pasteboard as the keyboard last left it (or as the test set it).
    public var pasteboard: String? {
        get { session.pasteboardText }
        set { session.updateFacts { $0.pasteboard = newValue } }
    }

    /// Replaces the user's text replacements; the keyboard sees them on its next call.
    public func setLexicon(_ entries: [KeyboardSDK.LexiconEntry]) {
        session.updateFacts { $0.lexicon = entries.map { KBWire.LexiconEntry(userInput: $0.userInput, documentText: $0.documentText) } }
    }

    /// The layout's display line.
    public var display: String { session.layout.display }
    /// The layout's key labels, row by row.
    public var labels: [[String]] { session.layout.labels }
    /// The payload of a key (by label, role or "id:X", as `tap` names it), as the host received
    /// it: nil when the key has none, or there is no such key.
    public func payload(of name: String) -> String? { session.layout.payload(ofKeyNamed: name) }

    // MARK: Life cycle

    /// viewWillAppear → viewDidAppear (nothing when it is shown already, as it is once created).
    public func appear() throws(Failure) {
        do { try session.appear() } catch { throw Failure(error) }
    }

    /// viewWillDisappear → viewDidDisappear.
    public func disappear() throws(Failure) {
        do { try session.disappear() } catch { throw Failure(error) }
    }

    public func transition(toWidth width: Double, height: Double) throws(Failure) {
        do { try session.transition(toWidth: width, height: height) } catch { throw Failure(error) }
    }

    /// didReceiveMemoryWarning, as the real process gets it when its footprint passes 80% of
    /// its budget (`Governor.memoryWarningFraction`): test that the keyboard lets go of caches.
    public func simulateMemoryWarning() throws(Failure) {
        do { try session.deliverMemoryWarning() } catch { throw Failure(error) }
    }

    /// The keyboard is dismissed and shown again, as iOS does it: the controller disappears
    /// and ends, and a new instance of its class is created (viewDidLoad, viewWillAppear,
    /// viewDidAppear). In `KeyboardProcess` the new one lives in the same process, so what
    /// the old one still holds shows in the footprint: the reopen leak.
    public func representKeyboard() throws(Failure) {
        do { try session.represent() } catch { throw Failure(error) }
    }

    // MARK: Keys

    /// Taps a key by label; "space", "return", "delete", "shift", "globe" name roles; "id:X" an identifier.
    public func tap(_ name: String) throws(Failure) { try perform(.tap, on: name) }

    /// Taps each key in turn.
    public func type(_ names: String...) throws(Failure) {
        for name in names { try tap(name) }
    }

    public func perform(_ gesture: Gesture, on name: String) throws(Failure) {
        do { try session.perform(gesture, on: name) } catch { throw Failure(error) }
    }

    /// A tap script as `kbhost type` and `KeyboardProcess.run(script:)` take it: key names, double:K,
    /// long:K, long:K:CHOICE, hold:K:MS, pause:MS, drag:K:DX[,DY]/…, rotate:…, reopen.
    public func run(script: String) throws(Failure) {
        let steps: [TapStep]
        do { steps = try TapStep.script(script) } catch { throw .script(error.description) }
        for step in steps {
            do { try step.perform(on: session) } catch { throw Failure(error) }
        }
    }

    /// A long press on a key that offers alternates (`KeySpec.alternates`), then `choice` picked,
    /// as from iOS's callout: the key's action gets an `.alternate` event, the sender's label
    /// being `choice`. `events` shows "showAlternates: é è ê" and "chooseAlternate: é".
    public func chooseAlternate(_ choice: String, on name: String) throws(Failure) {
        do { try session.chooseAlternate(choice, on: name) } catch { throw Failure(error) }
    }

    /// A drag from the centre of a key through points given from there (right and down positive), in
    /// points in the layout's space (`kbhost preview --json`'s frames): a key with a `dragAction` gets
    /// drag began, moved at each point, ended at the last, with `KeyEvent.touch` (`drag:KEY:DX[,DY]/…`).
    public func drag(_ name: String, path: [(dx: Double, dy: Double)]) throws(Failure) {
        do { try session.drag(name, path: path.map { TapStep.DragOffset(dx: $0.dx, dy: $0.dy) }) } catch { throw Failure(error) }
    }

    /// The alternates a key (by label, role or "id:X") offers on a long press, as the host received them.
    public func alternates(of name: String) -> [String] {
        session.layout.key(named: name).flatMap { session.layout.extras(of: $0)?.alternates } ?? []
    }

    public func pause(milliseconds: Int) { session.pause(milliseconds: milliseconds) }

    // MARK: Changes from outside the keyboard

    /// Changes the document as an app would; the keyboard gets textWillChange/textDidChange
    /// (or the selection callbacks when only the selection moved) and a fresh window.
    public func editDocument(_ change: (inout TextBuffer) -> Void) throws(Failure) {
        do { try session.editDocument { change(&$0.buffer) } } catch { throw Failure(error) }
    }

    /// Changes what the controller reports.
    public func update(needsInputModeSwitchKey: Bool? = nil, hasFullAccess: Bool? = nil,
                       traits: KeyboardSDK.TextInputTraits? = nil) {
        session.updateFacts { facts in
            if let v = needsInputModeSwitchKey { facts.needsInputModeSwitchKey = v }
            if let v = hasFullAccess { facts.hasFullAccess = v }
            if let v = traits { facts.traits = KeyboardTestDriver.convert(v) }
        }
    }

    private func count(_ name: String) -> Int { session.events.count { $0.name == name } }
    private func details(_ name: String) -> [String] { session.events.compactMap { $0.name == name ? $0.detail ?? "" : nil } }

    static func convert(_ t: KeyboardSDK.TextInputTraits) -> KBText.TextInputTraits {
        KBText.TextInputTraits(
            keyboardType: .init(rawValue: Int(t.keyboardType.rawValue)) ?? .default,
            returnKeyType: .init(rawValue: Int(t.returnKeyType.rawValue)) ?? .default,
            autocapitalization: .init(rawValue: Int(t.autocapitalizationType.rawValue)) ?? .sentences,
            autocorrection: .init(rawValue: Int(t.autocorrectionType.rawValue)) ?? .default,
            spellChecking: .init(rawValue: Int(t.spellCheckingType.rawValue)) ?? .default,
            appearance: .init(rawValue: Int(t.keyboardAppearance.rawValue)) ?? .default,
            isSecureTextEntry: t.isSecureTextEntry,
            enablesReturnKeyAutomatically: t.enablesReturnKeyAutomatically)
    }
}
