import CKeyboardABI
import Glibc
package import KBText
package import KBWire

/// Everything the extension process does with a plugin, without the process:
/// load the principal class, then answer each delivery with the effects the
/// keyboard produced. The worker executable wraps it in a socket loop; the
/// testing kit drives it in process.
package final class ExtensionRuntime {
    package let services = WorkerServices()
    package private(set) var instance: UnsafeMutableRawPointer?
    /// The opaque document handed to textWillChange: and friends.
    private let textInput = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    /// The class loaded, and the library it came from (for a new presentation).
    private var loaded: ResolvedClass?
    private var loadedPath = "", loadedName = ""

    package init() {}

    /// The document window as the keyboard sees it (with its own edits applied).
    package var window: DocumentWindow { services.mirror }

    /// Loads a plugin library with dlopen and creates its principal class.
    /// A second load of the same class is a new presentation (see `present`).
    package func load(_ request: LoadRequest) throws(WorkerFailure) -> LoadReply {
        if let loaded, instance != nil {
            guard request.pluginPath == loadedPath, request.className == loadedName else {
                throw WorkerFailure(.badRequest, "the host sent a second load, of another class (\(request.className))")
            }
            return try present(loaded, facts: request.facts, window: request.window)
        }
        let resolved = try PluginLoader.resolve(path: request.pluginPath, className: request.className)
        services.sandbox = request.sandbox
        (loadedPath, loadedName) = (request.pluginPath, request.className)
        return try create(resolved, facts: request.facts, window: request.window)
    }

    /// Creates a class from a plugin description already in this process
    /// (the value a plugin's kbhost_keyboard_plugin_v1 returns).
    /// `containers` gives the keyboard its folders (no kernel enforcement in process).
    /// A second load of the same class is a new presentation (see `present`).
    package func load(plugin: UnsafeRawPointer, className: String, facts: ControllerFacts,
                     window: DocumentWindow, containers: SandboxSpec = SandboxSpec(enabled: false)) throws(WorkerFailure) -> LoadReply {
        if let loaded, instance != nil {
            guard className == loadedName else {
                throw WorkerFailure(.badRequest, "the host sent a second load, of another class (\(className))")
            }
            return try present(loaded, facts: facts, window: window)
        }
        let resolved = try PluginLoader.resolve(plugin: plugin, origin: "in-process plugin", className: className)
        services.sandbox = containers
        loadedName = className
        return try create(resolved, facts: facts, window: window)
    }

    /// A new presentation in the same process, as iOS does when a keyboard is
    /// shown again: the controller ends (its `dealloc` selector, when the class
    /// has one: KBH_DEALLOC_SELECTOR_V1) and a new instance of the class is created.
    private func present(_ resolved: ResolvedClass, facts: ControllerFacts, window: DocumentWindow) throws(WorkerFailure) -> LoadReply {
        if let old = instance {
            services.selectors[ResolvedClass.deallocSelector]?.call(instance: old)
            instance = nil
        }
        return try create(resolved, facts: facts, window: window)
    }

    private func create(_ resolved: ResolvedClass, facts: ControllerFacts, window: DocumentWindow) throws(WorkerFailure) -> LoadReply {
        guard instance == nil else { throw WorkerFailure(.badRequest, "the host sent a second load") }
        services.facts = facts
        services.mirror = window
        services.selectors = resolved.selectors
        services.className = resolved.className
        loaded = resolved
        instance = try resolved.create(host: services.table)
        let selectors = resolved.selectors.values.map { SelectorInfo(name: $0.name, types: $0.types) }
            .sorted { $0.name < $1.name }
        return LoadReply(selectors: selectors, effects: try takeEffects())
    }

    /// Calls one selector and returns what the keyboard did, in order.
    package func deliver(_ delivery: Delivery) throws(WorkerFailure) -> [Effect] {
        guard let instance else { throw WorkerFailure(.badRequest, "the host sent a delivery before load") }
        if let facts = delivery.facts { services.facts = facts }
        if let window = delivery.window { services.mirror = window }
        switch delivery.call {
        case .lifecycle(let step, var animated):
            if let sel = services.selectors[step.selector] {
                if step == .viewDidLoad {
                    sel.call(instance: instance)
                } else {
                    withUnsafeMutablePointer(to: &animated) { sel.call(instance: instance, arguments: $0) }
                }
            }
        case .textInput(let callback):
            if let sel = services.selectors[callback.selector] {
                var input: UnsafeMutableRawPointer? = textInput
                withUnsafeMutablePointer(to: &input) { sel.call(instance: instance, arguments: $0) }
            }
        case .key(let row, let column, let event):
            try dispatchKey(row: Int(row), column: Int(column), event: event, instance: instance)
        case .transition(var width, var height):
            if let sel = services.selectors[Call.transitionSelector] {
                withUnsafeMutablePointer(to: &width) { w in
                    withUnsafeMutablePointer(to: &height) { h in sel.call(instance: instance, arguments: w, h) }
                }
            }
        case .memoryWarning:
            services.selectors[Call.memoryWarningSelector]?.call(instance: instance)
        case .alternate(let row, let column, let choice, let event):
            let place = KeyNaming.Position(row: Int(row), column: Int(column))
            guard services.keyExtras[place]?.alternates.contains(choice) == true else {
                throw WorkerFailure(.badRequest, "the host sent alternate '\(choice)' of key (\(row), \(column)), which the key does not offer")
            }
            try dispatchKey(row: Int(row), column: Int(column), event: event, instance: instance, alternate: choice)
        case .drag(let row, let column, let touch):
            guard let action = services.keyExtras[KeyNaming.Position(row: Int(row), column: Int(column))]?.dragAction else {
                throw WorkerFailure(.badRequest, "the host sent a drag on key (\(row), \(column)), which has no drag action")
            }
            services.currentTouch = touch
            defer { services.currentTouch = nil }
            let event = KeyEvent(kind: .touchUpInside, timestampNanoseconds: touch.timestampNanoseconds)
            try dispatchKey(row: Int(row), column: Int(column), event: event, instance: instance,
                            drag: (action, kbh_event_kind(rawValue: KBH_EVENT_DRAG_BEGAN.rawValue + UInt32(touch.phase.rawValue))))
        }
        return try takeEffects()
    }

    /// Target–action: the key's action for this event, with no argument, the
    /// sender, or the sender and the event, as its encoding says.
    /// With `alternate`: the key's tap action, with a KBH_EVENT_ALTERNATE event and the alternate as the sender's label.
    /// With `drag`: that selector, with that event kind (the touch is the services' `currentTouch`).
    private func dispatchKey(row: Int, column: Int, event: KeyEvent, instance: UnsafeMutableRawPointer,
                             alternate: String? = nil, drag: (action: String, kind: kbh_event_kind)? = nil) throws(WorkerFailure) {
        let layout = services.layout
        guard row >= 0, row < layout.rows.count, column >= 0, column < layout.rows[row].count else {
            throw WorkerFailure(.badRequest, "the host sent a tap on key (\(row), \(column)), which the layout does not have")
        }
        let key = layout.rows[row][column]
        guard let actionName = drag?.action ?? key.action(for: event.kind), let selector = services.selectors[actionName] else { return }
        let strings = services.keyStrings[row][column]
        let chosen = alternate.flatMap { strdup($0) }
        defer { free(chosen) }
        var sender = kbh_key_v1(identifier: strings.identifier, label: chosen ?? strings.label,
                                role: key.role.abi,
                                row: Int32(row), column: Int32(column))
        let kind = drag?.kind ?? (alternate == nil ? kbh_event_kind(rawValue: UInt32(event.kind.rawValue)) : KBH_EVENT_ALTERNATE)
        var cEvent = kbh_event_v1(kind: kind, tap_count: event.tapCount,
                                  repeat_count: event.repeatCount, timestamp_ns: event.timestampNanoseconds)
        withUnsafeMutablePointer(to: &sender) { senderPointer in
            withUnsafeMutablePointer(to: &cEvent) { eventPointer in
                // libffi wants a pointer to each argument's value; these arguments are pointers.
                var senderArg: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(senderPointer)
                var eventArg: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(eventPointer)
                withUnsafeMutablePointer(to: &senderArg) { s in
                    withUnsafeMutablePointer(to: &eventArg) { e in
                        switch selector.argumentCount {
                        case 2: selector.call(instance: instance)
                        case 3: selector.call(instance: instance, arguments: s)
                        default: selector.call(instance: instance, arguments: s, e)
                        }
                    }
                }
            }
        }
    }

    /// The effects of the call that just returned, or the failure it caused:
    /// also when they are more than one reply may carry (`WireLimits`).
    private func takeEffects() throws(WorkerFailure) -> [Effect] {
        if let failure = services.failure { throw failure }
        let effects = services.effects
        services.effects.removeAll(keepingCapacity: true)
        if let violation = WireLimits.violation(effects) {
            throw WorkerFailure(.overLimit, "class \(services.className): \(violation)")
        }
        return effects
    }
}
