package import KBText

/// The protocol between the input manager (host) and an extension process
/// (worker), one socketpair per keyboard. Every exchange is a request from
/// the host and exactly one reply from the worker, in one frame; the worker never
/// speaks unasked. The host accepts a reply only for the call outstanding: a reply
/// to another call, a second reply, or bytes while nothing is outstanding end the
/// worker. A worker's plugin output on stdout/stderr is log text, never protocol.
package enum WireVersion {
    /// Bumped on any change to a message's shape; the handshake compares both sides'.
    package static let protocolVersion: UInt32 = 5
    /// The plugin ABI this build of kbhost speaks: KBH_ABI_VERSION in kbhost_keyboard.h,
    /// copied because the wire is pure and may not import the header (the host must not
    /// reach it). KBExtensionRuntimeTests fails when the two differ.
    package static let abiVersion: UInt32 = 1
}

/// Messages from the host to a worker.
package enum HostMessage: Hashable, Sendable {
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
package enum WorkerMessage: Hashable, Sendable {
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

package struct LoadRequest: Hashable, Sendable {
    package var pluginPath: String
    package var className: String
    package var facts: ControllerFacts
    package var window: DocumentWindow
    /// What the keyboard may reach; the worker installs it before it loads the plugin.
    package var sandbox: SandboxSpec

    package init(pluginPath: String, className: String, facts: ControllerFacts, window: DocumentWindow,
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
package struct SandboxSpec: Hashable, Sendable {
    /// The protections a kernel may lack; a keyboard runs without one only when the user allowed it.
    package enum Mechanism: String, CaseIterable, Sendable {
        case seccomp
        case landlock                  // the filesystem rules
        case landlockNetwork = "landlock-network"  // TCP bind/connect rules (Landlock ABI 4)
        case landlockScope = "landlock-scope"      // abstract sockets and signals (Landlock ABI 6)
        case namespaces                // user, mount, PID, IPC, UTS and network namespaces
        case userNetwork = "user-network"  // with open access, a network of its own through slirp4netns (host side)
    }

    /// Whether to install the sandbox at all (false only for measurements and debugging).
    package var enabled: Bool
    /// Open access: the network and writes to the group containers.
    package var openAccess: Bool
    /// Folders and files the keyboard may read (its bundle, the system's libraries and data): real paths.
    package var readPaths: [String]
    /// What each of `readPaths` was when the host checked it (empty: not given): the extension process
    /// refuses one that is another folder now, put in its place by a rename since (a review).
    package var readIdentities: [ReadPathIdentity] = []
    /// Its own container (read/write); "" for none.
    package var containerPath: String
    /// The App Groups its manifest declares, and their folders.
    package var groups: [GroupContainer]
    /// Mechanisms the user allowed to be missing (`kbhost protection ID allow …`).
    package var allowMissing: [String]

    package init(enabled: Bool = true, openAccess: Bool = false, readPaths: [String] = [], containerPath: String = "",
                groups: [GroupContainer] = [], allowMissing: [String] = []) {
        self.enabled = enabled
        self.openAccess = openAccess
        self.readPaths = readPaths
        self.containerPath = containerPath
        self.groups = groups
        self.allowMissing = allowMissing
    }
}

/// A file or folder as the kernel knows it (st_dev, st_ino): whatever path leads to it.
package struct ReadPathIdentity: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64

    package init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}

package struct GroupContainer: Hashable, Sendable {
    package var name: String
    package var path: String

    package init(name: String, path: String) {
        self.name = name
        self.path = path
    }
}

/// One of the user's text replacements (UILexiconEntry).
package struct LexiconEntry: Hashable, Sendable {
    package var userInput: String
    package var documentText: String

    package init(userInput: String, documentText: String) {
        self.userInput = userInput
        self.documentText = documentText
    }
}

package struct LoadReply: Hashable, Sendable {
    package var selectors: [SelectorInfo]
    package var effects: [Effect]

    package init(selectors: [SelectorInfo], effects: [Effect]) {
        self.selectors = selectors
        self.effects = effects
    }
}

package struct SelectorInfo: Hashable, Sendable {
    package var name: String
    package var types: String

    package init(name: String, types: String) {
        self.name = name
        self.types = types
    }
}

/// What UIInputViewController exposes to the keyboard about its situation.
package struct ControllerFacts: Hashable, Sendable {
    package var needsInputModeSwitchKey: Bool
    package var hasFullAccess: Bool
    package var primaryLanguage: String
    package var documentIdentifier: String
    package var traits: TextInputTraits
    /// The enabled input modes (keyboard identifiers), the current one first.
    package var inputModes: [String]
    /// The user's text replacements (requestSupplementaryLexicon).
    package var lexicon: [LexiconEntry]
    /// The general pasteboard's string; only with full access (nil otherwise or when empty).
    package var pasteboard: String?

    package init(needsInputModeSwitchKey: Bool = true, hasFullAccess: Bool = false, primaryLanguage: String = "en-US",
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
package struct Delivery: Hashable, Sendable {
    package var sequence: UInt64
    package var facts: ControllerFacts?
    package var window: DocumentWindow?
    package var call: Call

    package init(sequence: UInt64, facts: ControllerFacts? = nil, window: DocumentWindow? = nil, call: Call) {
        self.sequence = sequence
        self.facts = facts
        self.window = window
        self.call = call
    }
}

package enum Call: Hashable, Sendable {
    case lifecycle(Lifecycle, animated: Bool)
    case textInput(TextInputCallback)
    case key(row: Int32, column: Int32, event: KeyEvent)
    case transition(width: Double, height: Double)
    case memoryWarning
    /// The person picked `choice`, one of the key's alternates, on a long press: the key's tap
    /// action is called with a KBH_EVENT_ALTERNATE event and the choice as the sender's label.
    case alternate(row: Int32, column: Int32, choice: String, event: KeyEvent)
    /// A drag that began on the key moved (or began, or ended): the key's drag action is called
    /// with a KBH_EVENT_DRAG_* event, and the host's touch() answers with `touch`.
    case drag(row: Int32, column: Int32, touch: DragTouch)

    /// The selector `.transition` calls (kbhost_keyboard.h's table lists it).
    package static let transitionSelector = "viewWillTransitionToWidth:height:"
    /// The selector `.memoryWarning` calls (kbhost_keyboard.h's table lists it).
    package static let memoryWarningSelector = "didReceiveMemoryWarning"
}

/// The view life cycle, in the order UIKit calls it.
package enum Lifecycle: UInt8, CaseIterable, Sendable {
    case viewDidLoad = 0, viewWillAppear, viewDidAppear, viewWillDisappear, viewDidDisappear

    package var selector: String {
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
package enum TextInputCallback: UInt8, CaseIterable, Sendable {
    case textWillChange = 0, textDidChange, selectionWillChange, selectionDidChange

    package var selector: String {
        switch self {
        case .textWillChange: "textWillChange:"
        case .textDidChange: "textDidChange:"
        case .selectionWillChange: "selectionWillChange:"
        case .selectionDidChange: "selectionDidChange:"
        }
    }
}

package struct KeyEvent: Hashable, Sendable {
    package typealias Kind = KeyEventKind

    package var kind: Kind
    package var tapCount: Int32
    package var repeatCount: Int32
    package var timestampNanoseconds: Int64

    package init(kind: Kind, tapCount: Int32 = 1, repeatCount: Int32 = 0, timestampNanoseconds: Int64 = 0) {
        self.kind = kind
        self.tapCount = tapCount
        self.repeatCount = repeatCount
        self.timestampNanoseconds = timestampNanoseconds
    }
}

/// Something the keyboard did during a call, in the order it did it.
package enum Effect: Hashable, Sendable {
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
    /// The keyboard gave a key of its current layout extras (kbh_key_extras_v1), replacing
    /// any it had. Boxed: the common effects stay small.
    indirect case setKeyExtras(KeyExtrasChange)
    /// The keyboard played haptic feedback (it has full access; the worker checked); intensity 0…1.
    case haptic(Haptic, intensity: Double)
}

/// Raw values are the kbh_key_role constants of the same name (the wire carries them),
/// written out so that reordering the cases changes nothing; KBExtensionRuntime maps
/// them to the header's by name, and KBExtensionRuntimeTests checks both.
package enum KeyRole: UInt8, CaseIterable, Sendable {
    case character = 0, space = 1, `return` = 2, delete = 3, shift = 4, globe = 5, mode = 6, function = 7
}

package struct WireKey: Hashable, Sendable {
    package var identifier: String
    package var label: String
    package var role: KeyRole
    package var width: Double
    package var action: String?
    package var touchDownAction: String?
    package var longPressAction: String?
    package var doubleTapAction: String?
    package var repeats: Bool

    package init(identifier: String, label: String, role: KeyRole = .character, width: Double = 1,
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
    package func action(for kind: KeyEvent.Kind) -> String? {
        kind.selector(action: action, touchDown: touchDownAction, longPress: longPressAction,
                      doubleTap: doubleTapAction, repeats: repeats)
    }

    /// Every selector the key names.
    package var actions: [String] {
        [action, touchDownAction, longPressAction, doubleTapAction].compactMap { $0 }
    }
}

package struct WireLayout: Hashable, Sendable {
    package var display: String
    package var rows: [[WireKey]]

    package init(display: String = "", rows: [[WireKey]] = []) {
        self.display = display
        self.rows = rows
    }
}

/// Why a worker gave up. The host turns these into load errors that name the keyboard.
package struct WorkerFailure: Hashable, Sendable, Error {
    package enum Kind: UInt8, CaseIterable, Sendable {
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

    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
