import KBText

/// The protocol between the input manager (host) and an extension process
/// (worker), one socketpair per keyboard. Every exchange is a request from
/// the host and exactly one reply from the worker, in one frame; the worker never
/// speaks unasked. The host accepts a reply only for the call outstanding: a reply
/// to another call, a second reply, or bytes while nothing is outstanding end the
/// worker. A worker's plugin output on stdout/stderr is log text, never protocol.
public enum WireVersion {
    /// Bumped on any change to a message's shape; the handshake compares both sides'.
    public static let protocolVersion: UInt32 = 3
    /// The plugin ABI this build of kbhost speaks: KBH_ABI_VERSION in kbhost_keyboard.h,
    /// copied because the wire is pure and may not import the header (the host must not
    /// reach it). KBExtensionRuntimeTests fails when the two differ.
    public static let abiVersion: UInt32 = 1
}

/// Messages from the host to a worker.
public enum HostMessage: Hashable, Sendable {
    /// First message: the host's protocol and ABI versions. Reply: `WorkerMessage.hello`
    /// or `.failure(.handshake)`.
    case hello(protocolVersion: UInt32, abiVersion: UInt32)
    /// dlopen the plugin and create its principal class. Reply: `.loaded` or `.failure`.
    case load(LoadRequest)
    /// Call one selector (life cycle, text input, key action…). Reply: `.done` or `.failure`.
    case deliver(Delivery)
    /// End cleanly. Reply: none; the worker exits 0.
    case shutdown
}

/// Messages from a worker to the host.
public enum WorkerMessage: Hashable, Sendable {
    /// Reply to `hello`: the worker's versions and its pid.
    case hello(protocolVersion: UInt32, abiVersion: UInt32, pid: Int32)
    /// Reply to `load`: the class's selectors and what its initializer did.
    case loaded(LoadReply)
    /// Reply to `deliver`: what the keyboard did, in order; `sequence` is the
    /// delivery's, echoed (the host makes it unpredictable: see KBHost's
    /// ExtensionProcess). Within `WireLimits` (consecutive insertions travel as one).
    case done(sequence: UInt64, effects: [Effect])
    /// The one error reply. The worker exits after sending it.
    case failure(WorkerFailure)
}

public struct LoadRequest: Hashable, Sendable {
    public var pluginPath: String
    public var className: String
    public var facts: ControllerFacts
    public var window: DocumentWindow
    /// What the keyboard may reach; the worker installs it before it loads the plugin.
    public var sandbox: SandboxSpec

    public init(pluginPath: String, className: String, facts: ControllerFacts, window: DocumentWindow,
                sandbox: SandboxSpec = SandboxSpec()) {
        self.pluginPath = pluginPath
        self.className = className
        self.facts = facts
        self.window = window
        self.sandbox = sandbox
    }
}

/// The kernel-enforced limits of one keyboard's process (seccomp and Landlock),
/// and the folders it may use.
public struct SandboxSpec: Hashable, Sendable {
    /// The protections a kernel may lack; a keyboard runs without one only when the user allowed it.
    public enum Mechanism: String, CaseIterable, Sendable {
        case seccomp
        case landlock                  // the filesystem rules
        case landlockNetwork = "landlock-network"  // TCP bind/connect rules (Landlock ABI 4)
        case landlockScope = "landlock-scope"      // abstract sockets and signals (Landlock ABI 6)
        case namespaces                // user, mount, PID, IPC, UTS and network namespaces
    }

    /// Whether to install the sandbox at all (false only for measurements and debugging).
    public var enabled: Bool
    /// Open access: the network and writes to the group containers.
    public var openAccess: Bool
    /// Folders and files the keyboard may read (its bundle, the system's libraries and data).
    public var readPaths: [String]
    /// Its own container (read/write); "" for none.
    public var containerPath: String
    /// The App Groups its manifest declares, and their folders.
    public var groups: [GroupContainer]
    /// Mechanisms the user allowed to be missing (`kbhost protection ID allow …`).
    public var allowMissing: [String]

    public init(enabled: Bool = true, openAccess: Bool = false, readPaths: [String] = [], containerPath: String = "",
                groups: [GroupContainer] = [], allowMissing: [String] = []) {
        self.enabled = enabled
        self.openAccess = openAccess
        self.readPaths = readPaths
        self.containerPath = containerPath
        self.groups = groups
        self.allowMissing = allowMissing
    }
}

public struct GroupContainer: Hashable, Sendable {
    public var name: String
    public var path: String

    public init(name: String, path: String) {
        self.name = name
        self.path = path
    }
}

/// One of the user's text replacements (UILexiconEntry).
public struct LexiconEntry: Hashable, Sendable {
    public var userInput: String
    public var documentText: String

    public init(userInput: String, documentText: String) {
        self.userInput = userInput
        self.documentText = documentText
    }
}

public struct LoadReply: Hashable, Sendable {
    public var selectors: [SelectorInfo]
    public var effects: [Effect]

    public init(selectors: [SelectorInfo], effects: [Effect]) {
        self.selectors = selectors
        self.effects = effects
    }
}

public struct SelectorInfo: Hashable, Sendable {
    public var name: String
    public var types: String

    public init(name: String, types: String) {
        self.name = name
        self.types = types
    }
}

/// What UIInputViewController exposes to the keyboard about its situation.
public struct ControllerFacts: Hashable, Sendable {
    public var needsInputModeSwitchKey: Bool
    public var hasFullAccess: Bool
    public var primaryLanguage: String
    public var documentIdentifier: String
    public var traits: TextInputTraits
    /// The enabled input modes (keyboard identifiers), the current one first.
    public var inputModes: [String]
    /// The user's text replacements (requestSupplementaryLexicon).
    public var lexicon: [LexiconEntry]
    /// The general pasteboard's string; only with full access (nil otherwise or when empty).
    public var pasteboard: String?

    public init(needsInputModeSwitchKey: Bool = true, hasFullAccess: Bool = false, primaryLanguage: String = "en-US",
                documentIdentifier: String = "", traits: TextInputTraits = TextInputTraits(), inputModes: [String] = [],
                lexicon: [LexiconEntry] = [], pasteboard: String? = nil) {
        self.needsInputModeSwitchKey = needsInputModeSwitchKey
        self.hasFullAccess = hasFullAccess
        self.primaryLanguage = primaryLanguage
        self.documentIdentifier = documentIdentifier
        self.traits = traits
        self.inputModes = inputModes
        self.lexicon = lexicon
        self.pasteboard = pasteboard
    }
}

/// One call into the keyboard. `facts` and `window` travel only when they changed.
public struct Delivery: Hashable, Sendable {
    public var sequence: UInt64
    public var facts: ControllerFacts?
    public var window: DocumentWindow?
    public var call: Call

    public init(sequence: UInt64, facts: ControllerFacts? = nil, window: DocumentWindow? = nil, call: Call) {
        self.sequence = sequence
        self.facts = facts
        self.window = window
        self.call = call
    }
}

public enum Call: Hashable, Sendable {
    case lifecycle(Lifecycle, animated: Bool)
    case textInput(TextInputCallback)
    case key(row: Int32, column: Int32, event: KeyEvent)
    case transition(width: Double, height: Double)
    case memoryWarning

    /// The selector `.transition` calls (kbhost_keyboard.h's table lists it).
    public static let transitionSelector = "viewWillTransitionToWidth:height:"
    /// The selector `.memoryWarning` calls (kbhost_keyboard.h's table lists it).
    public static let memoryWarningSelector = "didReceiveMemoryWarning"
}

/// The view life cycle, in the order UIKit calls it.
public enum Lifecycle: UInt8, CaseIterable, Sendable {
    case viewDidLoad = 0, viewWillAppear, viewDidAppear, viewWillDisappear, viewDidDisappear

    public var selector: String {
        switch self {
        case .viewDidLoad: "viewDidLoad"
        case .viewWillAppear: "viewWillAppear:"
        case .viewDidAppear: "viewDidAppear:"
        case .viewWillDisappear: "viewWillDisappear:"
        case .viewDidDisappear: "viewDidDisappear:"
        }
    }
}

/// UITextInputDelegate's four callbacks.
public enum TextInputCallback: UInt8, CaseIterable, Sendable {
    case textWillChange = 0, textDidChange, selectionWillChange, selectionDidChange

    public var selector: String {
        switch self {
        case .textWillChange: "textWillChange:"
        case .textDidChange: "textDidChange:"
        case .selectionWillChange: "selectionWillChange:"
        case .selectionDidChange: "selectionDidChange:"
        }
    }
}

public struct KeyEvent: Hashable, Sendable {
    public typealias Kind = KeyEventKind

    public var kind: Kind
    public var tapCount: Int32
    public var repeatCount: Int32
    public var timestampNanoseconds: Int64

    public init(kind: Kind, tapCount: Int32 = 1, repeatCount: Int32 = 0, timestampNanoseconds: Int64 = 0) {
        self.kind = kind
        self.tapCount = tapCount
        self.repeatCount = repeatCount
        self.timestampNanoseconds = timestampNanoseconds
    }
}

/// Something the keyboard did during a call, in the order it did it.
public enum Effect: Hashable, Sendable {
    case edit(TextEdit)
    case setLayout(WireLayout)
    case setDisplay(String)
    case advanceToNextInputMode
    case dismissKeyboard
    case playInputClick
    case log(level: UInt8, message: String)
    /// The keyboard set the pasteboard (it has full access; the worker checked).
    case setPasteboard(String)
    /// The keyboard played a sound other than the click (it has full access).
    case playSound(String)
}

/// Raw values are the kbh_key_role constants of the same name (the wire carries them),
/// written out so that reordering the cases changes nothing; KBExtensionRuntime maps
/// them to the header's by name, and KBExtensionRuntimeTests checks both.
public enum KeyRole: UInt8, CaseIterable, Sendable {
    case character = 0, space = 1, `return` = 2, delete = 3, shift = 4, globe = 5, mode = 6, function = 7
}

public struct WireKey: Hashable, Sendable {
    public var identifier: String
    public var label: String
    public var role: KeyRole
    public var width: Double
    public var action: String?
    public var touchDownAction: String?
    public var longPressAction: String?
    public var doubleTapAction: String?
    public var repeats: Bool

    public init(identifier: String, label: String, role: KeyRole = .character, width: Double = 1,
                action: String? = nil, touchDownAction: String? = nil, longPressAction: String? = nil,
                doubleTapAction: String? = nil, repeats: Bool = false) {
        self.identifier = identifier
        self.label = label
        self.role = role
        self.width = width
        self.action = action
        self.touchDownAction = touchDownAction
        self.longPressAction = longPressAction
        self.doubleTapAction = doubleTapAction
        self.repeats = repeats
    }

    /// The selector this key calls for an event kind, if any.
    public func action(for kind: KeyEvent.Kind) -> String? {
        kind.selector(action: action, touchDown: touchDownAction, longPress: longPressAction,
                      doubleTap: doubleTapAction, repeats: repeats)
    }

    /// Every selector the key names.
    public var actions: [String] {
        [action, touchDownAction, longPressAction, doubleTapAction].compactMap { $0 }
    }
}

public struct WireLayout: Hashable, Sendable {
    public var display: String
    public var rows: [[WireKey]]

    public init(display: String = "", rows: [[WireKey]] = []) {
        self.display = display
        self.rows = rows
    }
}

/// Why a worker gave up. The host turns these into load errors that name the keyboard.
public struct WorkerFailure: Hashable, Sendable, Error {
    public enum Kind: UInt8, CaseIterable, Sendable {
        case handshake = 0      // protocol or ABI versions differ
        case dlopen             // the library would not load
        case missingEntry       // no kbhost_keyboard_plugin_v1 export
        case abiMismatch        // the plugin was built for another ABI
        case classNotFound      // no class of the principal class's name
        case encodingMismatch   // a selector's type encoding is not what the host passes
        case badLayout          // a layout names an action the class lacks, or is malformed
        case badRequest         // the host sent something the worker cannot do
        case createFailed       // the class's create returned NULL
        case sandbox            // the sandbox could not be installed (the kernel lacks a protection)
        case overLimit          // one call did more than a reply may carry (WireLimits, KBH_MAX_CALL_*)
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
