import Foundation
public import KBHost
import KBSystem
import KBWire
public import KeyboardSDK

/// Runs a built keyboard the way kbhost runs it — in its own sandboxed
/// extension process, under a memory budget the governor enforces — and lets
/// a test type into it and read the document, the events and the memory
/// figures. What iOS cannot give a keyboard author: the controller in a unit
/// test, with the device's memory limit enforced.
///
///     let keyboard = try KeyboardProcess(bundle: packageFolder, budget: .profile("older-phone"))
///     try keyboard.type("h", "i")
///     #expect(keyboard.text == "hi")
///     #expect(keyboard.peakFootprintBytes! < 48 << 20)
///
/// The bundle is a folder with the keyboard's Info.plist; its library is found
/// in the folder, or in the folder's .build/debug or .build/release (a Swift
/// package made by `kbhost new`). The extension process is kbhost's own
/// kbhost-worker (KBHOST_PRODUCTS, or the kbhost package's build).
public final class KeyboardProcess {
    /// A memory budget: MiB, or a device profile (older-phone 48, recent-phone 77, tablet 90).
    public enum Budget: Sendable {
        case megabytes(Int)
        case profile(String)

        public static let `default` = Budget.megabytes(Governor.defaultBudget >> 20)

        var bytes: Int? {
            switch self {
            case .megabytes(let m): m > 0 ? m << 20 : nil
            case .profile(let name): MemoryBudget.profile(named: name)?.budget
            }
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        /// The bundle or its manifest is wrong, or its library is not built.
        case bundle(String)
        /// The keyboard failed: crashed, hung, went over its budget, sent garbage. `kind` is
        /// crash, exit, hang, memory, protocol, load, sandbox or spawn.
        case keyboard(kind: String, message: String)
        case noSuchKey(String, labels: [String])
        /// A script token that is not a step.
        case script(String)
        /// The key offers no such alternate on a long press; `alternates`: those it does.
        case noSuchAlternate(String, choice: String, alternates: [String])

        init(_ error: SessionError) {
            switch error {
            case .noSuchKey(let name, _, let labels): self = .noSuchKey(name, labels: labels)
            case .noSuchAlternate(let name, let choice, _, let alternates): self = .noSuchAlternate(name, choice: choice, alternates: alternates)
            case .keyboardFailed(let f): self = .keyboard(kind: f.kind, message: f.description)
            }
        }

        public var description: String {
            switch self {
            case .script(let s): s
            case .bundle(let s): s
            case .keyboard(_, let s): s
            case .noSuchKey(let name, let labels): "no key '\(name)'; keys: \(labels.joined(separator: " "))"
            case .noSuchAlternate(let name, let choice, let alternates):
                "key '\(name)' offers no alternate '\(choice)'; alternates: \(alternates.joined(separator: " "))"
            }
        }
    }

    public let manifest: KeyboardManifest
    public let budgetBytes: Int
    private let session: KeyboardSession
    private let footprint: FootprintReader?
    private var sampledPeak = 0

    /// Loads the keyboard (viewDidLoad) and shows it (viewWillAppear, viewDidAppear).
    public init(bundle: String, budget: Budget = .default, text: String = "",
                traits: KeyboardSDK.TextInputTraits = .init(), hasFullAccess: Bool = false,
                needsInputModeSwitchKey: Bool = true, lexicon: [KeyboardSDK.LexiconEntry] = [],
                home: String? = nil) throws(Failure) {
        let folder = (bundle as NSString).standardizingPath
        do { manifest = try KeyboardManifest.load(contentsOf: folder + "/Info.plist") } catch {
            throw .bundle("\(error)")
        }
        let installation = Installation.current()
        let found: String?
        do { found = try installation.authorLibrary(for: manifest) } catch { throw .bundle("\(error)") }
        guard let library = found else {
            throw .bundle("\(folder): \(manifest.executable) is not built (looked in the folder, .build/debug and .build/release); run swift build (or make) first")
        }
        guard let bytes = budget.bytes else {
            throw .bundle("unknown budget \(budget); profiles: \(Governor.profiles.map(\.name).joined(separator: ", "))")
        }
        budgetBytes = bytes
        var configuration = installation.processConfiguration
        configuration.memoryBudgetBytes = bytes
        let t = KeyboardTestDriver.convert(traits)
        let access = KeyboardAccess(home: home, lexicon: lexicon.map { TextReplacement(userInput: $0.userInput, documentText: $0.documentText) })
        do {
            session = try KeyboardSession(keyboard: LoadableKeyboard(manifest: manifest, libraryPath: library),
                                          document: TextDocument(text: text, traits: t), configuration: configuration,
                                          needsInputModeSwitchKey: needsInputModeSwitchKey, hasFullAccess: hasFullAccess,
                                          access: access)
            try session.appear()
        } catch {
            throw .keyboard(kind: error.kind, message: error.description)
        }
        footprint = FootprintReader(pid: session.pid)
        sample()
    }

    deinit { session.close() }

    // MARK: Typing

    public func tap(_ name: String) throws(Failure) { try perform(.tap, on: name) }

    public func type(_ names: String...) throws(Failure) {
        for n in names { try tap(n) }
    }

    /// A tap script as `kbhost type` takes it: key names, double:K, long:K, long:K:CHOICE, hold:K:MS, pause:MS,
    /// drag:K:DX[,DY]/…, rotate:…, reopen.
    public func run(script: String) throws(Failure) {
        let steps: [TapStep]
        do { steps = try TapStep.script(script) } catch { throw .script(error.description) }
        for step in steps {
            defer { sample() }
            do { try step.perform(on: session) } catch { throw Failure(error) }
        }
    }

    public func perform(_ gesture: Gesture, on name: String) throws(Failure) {
        defer { sample() }
        do { try session.perform(gesture, on: name) } catch { throw Failure(error) }
    }

    /// A long press on a key that offers alternates, then `choice` picked, exactly as
    /// `KeyboardTestDriver.chooseAlternate(_:on:)` (the script token `long:KEY:CHOICE`).
    public func chooseAlternate(_ choice: String, on name: String) throws(Failure) {
        defer { sample() }
        do { try session.chooseAlternate(choice, on: name) } catch { throw Failure(error) }
    }

    /// A drag from the centre of a key through points given from there, exactly as
    /// `KeyboardTestDriver.drag(_:path:)` (the script token `drag:KEY:DX[,DY]/…`).
    public func drag(_ name: String, path: [(dx: Double, dy: Double)]) throws(Failure) {
        defer { sample() }
        do { try session.drag(name, path: path.map { TapStep.DragOffset(dx: $0.dx, dy: $0.dy) }) } catch { throw Failure(error) }
    }

    /// The alternates a key offers on a long press, as the host received them from the keyboard's process.
    public func alternates(of name: String) -> [String] {
        session.layout.key(named: name).flatMap { session.layout.extras(of: $0)?.alternates } ?? []
    }

    /// Lets time pass on the session's (virtual) clock.
    public func pause(milliseconds: Int) { session.pause(milliseconds: milliseconds) }

    /// The keyboard's size changes (viewWillTransition): rotate to landscape with a wide size.
    public func transition(toWidth width: Double, height: Double) throws(Failure) {
        do { try session.transition(toWidth: width, height: height) } catch {
            throw .keyboard(kind: error.kind, message: error.description)
        }
    }

    /// viewWillDisappear → viewDidDisappear (marked text is committed by the app).
    public func disappear() throws(Failure) {
        do { try session.disappear() } catch { throw .keyboard(kind: error.kind, message: error.description) }
    }

    /// didReceiveMemoryWarning now. The governor also sends it by itself, before the next
    /// call, once the footprint has passed `Governor.memoryWarningFraction` of the budget.
    public func simulateMemoryWarning() throws(Failure) {
        defer { sample() }
        do { try session.deliverMemoryWarning() } catch { throw .keyboard(kind: error.kind, message: error.description) }
    }

    /// The keyboard is dismissed and shown again, as iOS does it: the controller disappears
    /// and ends, and a new instance of its class is created in the same process (viewDidLoad,
    /// viewWillAppear, viewDidAppear). What the old one still holds stays in the footprint:
    /// representing a few times and comparing `footprintBytes` shows a reopen leak.
    public func representKeyboard() throws(Failure) {
        defer { sample() }
        do { try session.represent() } catch { throw .keyboard(kind: error.kind, message: error.description) }
    }

    // MARK: Changes from outside the keyboard

    /// Changes the document as an app would, exactly as `KeyboardTestDriver.editDocument`:
    /// the keyboard gets textWillChange/textDidChange (or the selection callbacks when only
    /// the selection moved) and a fresh window. Marked text set here is the app's.
    public func editDocument(_ change: (inout TextBuffer) -> Void) throws(Failure) {
        defer { sample() }
        do { try session.editDocument { change(&$0.buffer) } } catch {
            throw .keyboard(kind: error.kind, message: error.description)
        }
    }

    // MARK: What a test reads

    public var text: String { session.document.text }
    public var markedText: String? { session.document.buffer.markedText.map(String.init) }
    public var selection: UTF16Range { session.document.buffer.selection }
    public var display: String { session.layout.display }
    public var labels: [[String]] { session.layout.labels }
    /// The payload of a key (by label, role or "id:X"), as the host received it from the keyboard's
    /// process, as `KeyboardTestDriver.payload(of:)`: nil when it has none, or there is no such key.
    public func payload(of name: String) -> String? { session.layout.payload(ofKeyNamed: name) }
    /// Life-cycle calls and what the keyboard asked for and logged, in order ("viewDidLoad",
    /// "playInputClick", "log: …"), as `KeyboardTestDriver.events` lists them.
    public var events: [String] { session.events.map(\.description) }
    /// Whether `events` also lists the keyboard's edits through its proxy ("insertText: a",
    /// "deleteBackward", …); off by default.
    public var recordsProxyCalls: Bool {
        get { session.recordsProxyCalls }
        set { session.recordsProxyCalls = newValue }
    }
    /// How many controllers the keyboard has had: 1, and one more per `representKeyboard()`.
    public var presentations: Int { session.presentations }
    /// Haptic feedback the keyboard played (it needs open access), as `KeyboardTestDriver.haptics`.
    public var haptics: [String] { session.events.compactMap { $0.name == "haptic" ? $0.detail : nil } }
    /// The keyboard's stdout and stderr so far.
    public var log: String { session.logText }
    public var pid: Int32 { session.pid }
    /// Set once the keyboard has failed.
    public var failure: String? { session.failure?.description }

    /// The footprint now: anonymous resident memory + the shared memory it made + swap, as the governor counts it.
    public var footprintBytes: Int? { footprint?.read()?.total }

    /// The highest footprint seen: the governor's samples and one after every gesture.
    public var peakFootprintBytes: Int? {
        let peak = max(session.peakFootprint ?? 0, sampledPeak)
        return peak > 0 ? peak : nil
    }

    private func sample() {
        if let now = footprint?.read()?.total { sampledPeak = max(sampledPeak, now) }
    }
}
