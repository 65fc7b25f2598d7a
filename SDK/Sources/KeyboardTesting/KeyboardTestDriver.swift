import KBExtensionRuntime
// TextBuffer, UTF16Range and Gesture are part of the kit's vocabulary; KBText's TextInputTraits is not
// (it would clash with KeyboardSDK's in an author's tests).
@_exported import struct KBText.TextBuffer
@_exported import struct KBText.UTF16Range
@_exported import enum KBText.Gesture
import KBText
import KBWire
import KeyboardSDK

/// Drives a keyboard in process, against a real document, in a unit test.
/// The keyboard is called through the same ABI, the same selector checks and
/// the same libffi dispatch as in its extension process; only the process
/// and the socket are missing. (For the real process under a memory budget,
/// use kbhost's KeyboardSession.)
///
///     let keyboard = try KeyboardTestDriver(CalculatorViewController.self)
///     try keyboard.appear()
///     try keyboard.tap("1"); try keyboard.tap("+"); try keyboard.tap("2"); try keyboard.tap("=")
///     #expect(keyboard.text == "3")
public final class KeyboardTestDriver {
    private let runtime = ExtensionRuntime()
    private var facts: ControllerFacts
    private var factsChanged = false
    private var sequence: UInt64 = 0
    private var pendingWindow: DocumentWindow?

    /// Life-cycle and text-input calls made, and what the keyboard asked for, in order.
    public private(set) var events: [String] = []
    public private(set) var advanceToNextInputModeCount = 0
    public private(set) var dismissCount = 0
    public private(set) var inputClickCount = 0
    public private(set) var logMessages: [String] = []
    /// Sounds other than the click the keyboard played (it needs open access).
    public private(set) var soundsPlayed: [String] = []
    /// The session clock (virtual), advanced by gestures and `pause`.
    public private(set) var clockNanoseconds: Int64 = 0
    public private(set) var isVisible = false

    public enum Failure: Error, CustomStringConvertible {
        case noSuchKey(String, labels: [String])
        case keyboard(String)

        public var description: String {
            switch self {
            case .noSuchKey(let name, let labels): "no key '\(name)'; keys: \(labels.joined(separator: " "))"
            case .keyboard(let message): message
            }
        }
    }

    /// Creates the keyboard (and calls viewDidLoad) on a document holding `text`,
    /// the insertion point at its end.
    public init(_ type: InputViewController.Type, text: String = "", traits: KeyboardSDK.TextInputTraits = .init(),
                needsInputModeSwitchKey: Bool = true, hasFullAccess: Bool = false, primaryLanguage: String = "en-US",
                inputModes: [String] = [], lexicon: [KeyboardSDK.LexiconEntry] = [], pasteboard: String? = nil,
                containerPath: String? = nil, appGroups: [String: String] = [:]) throws(Failure) {
        facts = ControllerFacts(needsInputModeSwitchKey: needsInputModeSwitchKey, hasFullAccess: hasFullAccess,
                                primaryLanguage: primaryLanguage, documentIdentifier: "test-document",
                                traits: KeyboardTestDriver.convert(traits), inputModes: inputModes,
                                lexicon: lexicon.map { KBWire.LexiconEntry(userInput: $0.userInput, documentText: $0.documentText) },
                                pasteboard: pasteboard)
        let plugin = KeyboardPlugin.export([type])
        // Containers and groups as the keyboard will see them; in process, nothing enforces the sandbox.
        let containers = SandboxSpec(enabled: false, openAccess: hasFullAccess, containerPath: containerPath ?? "",
                                     groups: appGroups.sorted { $0.key < $1.key }.map { GroupContainer(name: $0.key, path: $0.value) })
        do {
            let reply = try runtime.load(plugin: plugin, className: String(describing: type), facts: facts,
                                         window: DocumentWindow(buffer: TextBuffer(text: text)), containers: containers)
            record(reply.effects)
        } catch {
            throw .keyboard(error.message)
        }
        try deliver(.lifecycle(.viewDidLoad, animated: false))
    }

    // MARK: The document

    public var buffer: TextBuffer { runtime.window.buffer }
    public var text: String { buffer.text }
    /// The selection in UTF-16 code units.
    public var selection: UTF16Range { buffer.selection }
    public var markedText: String? { buffer.markedText.map(String.init) }
    /// The general pasteboard as the keyboard last left it (or as the test set it).
    public var pasteboard: String? {
        get { facts.pasteboard }
        set {
            facts.pasteboard = newValue
            factsChanged = true
        }
    }

    /// Replaces the user's text replacements; the keyboard sees them on its next call.
    public func setLexicon(_ entries: [KeyboardSDK.LexiconEntry]) {
        facts.lexicon = entries.map { KBWire.LexiconEntry(userInput: $0.userInput, documentText: $0.documentText) }
        factsChanged = true
    }

    /// The layout's display line.
    public var display: String { runtime.services.layout.display }
    /// The layout's key labels, row by row.
    public var labels: [[String]] { runtime.services.layout.rows.map { $0.map(\.label) } }

    // MARK: Life cycle

    public func appear() throws(Failure) {
        guard !isVisible else { return }
        try deliver(.lifecycle(.viewWillAppear, animated: false))
        try deliver(.lifecycle(.viewDidAppear, animated: false))
        isVisible = true
    }

    public func disappear() throws(Failure) {
        guard isVisible else { return }
        try deliver(.lifecycle(.viewWillDisappear, animated: false))
        try deliver(.lifecycle(.viewDidDisappear, animated: false))
        isVisible = false
    }

    public func transition(toWidth width: Double, height: Double) throws(Failure) {
        try deliver(.transition(width: width, height: height))
    }

    /// didReceiveMemoryWarning, as the real process gets it when its footprint passes 80% of
    /// its budget (`Governor.memoryWarningFraction`): test that the keyboard lets go of caches.
    public func simulateMemoryWarning() throws(Failure) {
        try deliver(.memoryWarning)
    }

    // MARK: Keys

    /// Taps a key by label; "space", "return", "delete", "shift", "globe" name roles; "id:X" an identifier.
    public func tap(_ name: String) throws(Failure) { try perform(.tap, on: name) }

    /// Taps each key in turn.
    public func type(_ names: String...) throws(Failure) {
        for name in names { try tap(name) }
    }

    public func perform(_ gesture: Gesture, on name: String) throws(Failure) {
        let layout = runtime.services.layout
        guard let (row, column) = layout.position(ofKeyNamed: name) else {
            throw .noSuchKey(name, labels: Array(labels.joined()))
        }
        let key = layout.rows[row][column]
        let start = clockNanoseconds
        let plan = gesture.steps(repeats: key.repeats, hasLongPress: key.longPressAction != nil)
        for step in plan.steps where key.action(for: step.kind) != nil {
            clockNanoseconds = start + step.atNanoseconds
            let event = KeyEvent(kind: step.kind, tapCount: step.tapCount, repeatCount: step.repeatCount,
                                 timestampNanoseconds: clockNanoseconds)
            try deliver(.key(row: Int32(row), column: Int32(column), event: event))
        }
        clockNanoseconds = start + plan.duration
    }

    public func pause(milliseconds: Int) { clockNanoseconds += Int64(milliseconds) * 1_000_000 }

    // MARK: Changes from outside the keyboard

    /// Changes the document as an app would; the keyboard gets textWillChange/textDidChange
    /// (or the selection callbacks when only the selection moved).
    public func editDocument(_ change: (inout TextBuffer) -> Void) throws(Failure) {
        var changed = buffer
        change(&changed)
        let textChanged = changed.text != buffer.text || changed.markedRange != buffer.markedRange
        guard textChanged || changed.selection != buffer.selection else { return }
        try deliver(.textInput(textChanged ? .textWillChange : .selectionWillChange))
        pendingWindow = DocumentWindow(buffer: changed)
        try deliver(.textInput(textChanged ? .textDidChange : .selectionDidChange))
    }

    /// Changes what the controller reports.
    public func update(needsInputModeSwitchKey: Bool? = nil, hasFullAccess: Bool? = nil,
                       traits: KeyboardSDK.TextInputTraits? = nil) {
        if let v = needsInputModeSwitchKey { facts.needsInputModeSwitchKey = v }
        if let v = hasFullAccess { facts.hasFullAccess = v }
        if let v = traits { facts.traits = KeyboardTestDriver.convert(v) }
        factsChanged = true
    }

    // MARK: Plumbing

    private func deliver(_ call: Call) throws(Failure) {
        sequence += 1
        switch call {
        case .lifecycle(let step, _): events.append(String(step.selector.split(separator: ":")[0]))
        case .textInput(let t): events.append(String(t.selector.dropLast()))
        default: break
        }
        let delivery = Delivery(sequence: sequence, facts: factsChanged ? facts : nil, window: pendingWindow, call: call)
        factsChanged = false
        pendingWindow = nil
        do { record(try runtime.deliver(delivery)) } catch { throw .keyboard(error.message) }
    }

    private func record(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .advanceToNextInputMode: advanceToNextInputModeCount += 1; events.append("advanceToNextInputMode")
            case .dismissKeyboard: dismissCount += 1; events.append("dismissKeyboard")
            case .playInputClick: inputClickCount += 1
            case .log(_, let message): logMessages.append(message)
            case .setPasteboard(let text): facts.pasteboard = text.isEmpty ? nil : text
            case .playSound(let name): soundsPlayed.append(name)
            case .edit, .setLayout, .setDisplay: break  // already applied to the runtime's document and layout
            }
        }
    }

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
