// kbhost-worker: the extension process. One per keyboard. It speaks the wire
// protocol on fd 3, loads exactly one plugin, and calls its selectors through
// libffi. It imports no Foundation, so nearly all of the budget is the keyboard's.
//
// Usage (the host starts it; not for people): kbhost-worker [--data-limit BYTES]
//     [--stack-limit BYTES] [--parent PID]
import CKBShims
import CKeyboardABI
import Glibc
import KBSystem
import KBText
import KBWire

let channelFD: Int32 = 3

struct WorkerOptions {
    var dataLimit: UInt64 = 512 << 20
    var stackLimit: UInt64 = 2 << 20
    var threadStack = 256 << 10
    var parent: Int32 = 0

    init(_ arguments: [String]) {
        var i = 1
        while i + 1 < arguments.count {
            let value = arguments[i + 1]
            switch arguments[i] {
            case "--data-limit": dataLimit = UInt64(value) ?? dataLimit
            case "--stack-limit": stackLimit = UInt64(value) ?? stackLimit
            case "--parent": parent = Int32(value) ?? 0
            default: break
            }
            i += 2
        }
    }
}

func fail(_ message: String) -> Never {
    let line = Array("kbhost-worker: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(70)
}

/// Limits first, before anything of the plugin is loaded.
func applyLimits(_ options: WorkerOptions) {
    do {
        try Sys.setParentDeathSignal(SIGKILL)
        if options.parent != 0 && getppid() != options.parent { exit(0) }  // the host died while we started
        try Sys.setResourceLimit(Int32(RLIMIT_DATA.rawValue), soft: options.dataLimit, hard: options.dataLimit)
        try Sys.setResourceLimit(Int32(RLIMIT_STACK.rawValue), soft: options.stackLimit, hard: options.stackLimit)
        try Sys.setDefaultThreadStackSize(options.threadStack)
    } catch {
        fail("cannot apply limits: \(error)")
    }
}

/// The host end of the socketpair: blocking reads of whole frames, one write per reply.
struct Channel {
    var reader = FrameReader()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    mutating func receive() -> HostMessage? {
        while true {
            do {
                if let frame = try reader.nextFrame() { return try HostMessage.decode(frame) }
            } catch {
                send(.failure(WorkerFailure(.badRequest, "malformed message from the host: \(error)")))
                exit(65)
            }
            let n: Int
            do {
                n = try buffer.withUnsafeMutableBytes { (b) throws(SystemError) in try Sys.read(channelFD, into: b) }
            } catch {
                fail("reading from the host: \(error)")
            }
            if n == 0 { return nil }  // the host closed the channel: end quietly
            buffer.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
    }

    func send(_ message: WorkerMessage) {
        var frame: [UInt8] = []
        Framing.appendFrame(message.encoded(), to: &frame)
        do {
            try Sys.sendAll(channelFD, frame)
        } catch {
            fail("writing to the host: \(error)")
        }
    }
}

/// Calls into the plugin and answers each request with exactly one reply.
struct Worker {
    var channel = Channel()
    let services = WorkerServices()
    var instance: UnsafeMutableRawPointer?
    var textInputToken: UInt8 = 0

    mutating func run() {
        guard case .hello(let p, let a)? = channel.receive() else { fail("no handshake from the host") }
        guard p == WireVersion.protocolVersion, a == WireVersion.abiVersion else {
            reply(.failure(WorkerFailure(.handshake, "host speaks protocol \(p) / ABI \(a); this worker speaks protocol \(WireVersion.protocolVersion) / ABI \(WireVersion.abiVersion)")))
            exit(65)
        }
        reply(.hello(protocolVersion: WireVersion.protocolVersion, abiVersion: WireVersion.abiVersion, pid: getpid()))

        while let message = channel.receive() {
            switch message {
            case .hello: failRequest("a second hello")
            case .load(let request): load(request)
            case .deliver(let delivery): deliver(delivery)
            case .shutdown: exit(0)
            }
        }
        exit(0)
    }

    mutating func reply(_ message: WorkerMessage) { channel.send(message) }

    mutating func failRequest(_ what: String) -> Never {
        reply(.failure(WorkerFailure(.badRequest, "the host sent \(what)")))
        exit(65)
    }

    mutating func load(_ request: LoadRequest) {
        guard instance == nil else { failRequest("a second load") }
        services.facts = request.facts
        services.mirror = request.window
        do {
            let resolved = try PluginLoader.resolve(path: request.pluginPath, className: request.className)
            services.selectors = resolved.selectors
            services.className = resolved.className
            instance = try resolved.create(host: services.table)
        } catch {
            reply(.failure(error))
            exit(66)
        }
        let selectors = services.selectors.values.map { SelectorInfo(name: $0.name, types: $0.types) }
            .sorted { $0.name < $1.name }
        finishCall { .loaded(LoadReply(selectors: selectors, effects: $0)) }
    }

    mutating func deliver(_ delivery: Delivery) {
        guard let instance else { failRequest("a delivery before load") }
        if let facts = delivery.facts { services.facts = facts }
        if let window = delivery.window { services.mirror = window }
        switch delivery.call {
        case .lifecycle(let step, var animated):
            services.selectors[step.selector].map { sel in
                if step == .viewDidLoad { sel.call(instance: instance) } else { sel.call(instance: instance, &animated) }
            }
        case .textInput(let callback):
            services.selectors[callback.selector].map { sel in
                var input: UnsafeMutableRawPointer? = withUnsafeMutablePointer(to: &textInputToken) { UnsafeMutableRawPointer($0) }
                sel.call(instance: instance, &input)
            }
        case .key(let row, let column, let event):
            dispatchKey(row: Int(row), column: Int(column), event: event, instance: instance)
        case .transition(var width, var height):
            services.selectors["viewWillTransitionToWidth:height:"]?.call(instance: instance, &width, &height)
        case .memoryWarning:
            services.selectors["didReceiveMemoryWarning"]?.call(instance: instance)
        }
        finishCall { .done(sequence: delivery.sequence, effects: $0) }
    }

    /// Target–action: the key's action for this event, with no argument, the
    /// sender, or the sender and the event, as its encoding says.
    mutating func dispatchKey(row: Int, column: Int, event: KeyEvent, instance: UnsafeMutableRawPointer) {
        let layout = services.layout
        guard row >= 0, row < layout.rows.count, column >= 0, column < layout.rows[row].count else {
            failRequest("a tap on key (\(row), \(column)), which the layout does not have")
        }
        let key = layout.rows[row][column]
        let actionName: String? = switch event.kind {
        case .touchUpInside: key.action
        case .touchDown: key.touchDownAction
        case .touchDownRepeat: key.doubleTapAction
        case .longPress: key.longPressAction
        case .repeat: key.repeats ? key.action : nil
        }
        guard let actionName, let selector = services.selectors[actionName] else { return }
        let strings = services.keyStrings[row][column]
        var sender = kbh_key_v1(identifier: strings.identifier, label: strings.label,
                                role: kbh_key_role(rawValue: UInt32(key.role.rawValue)),
                                row: Int32(row), column: Int32(column))
        var cEvent = kbh_event_v1(kind: kbh_event_kind(rawValue: UInt32(event.kind.rawValue)), tap_count: event.tapCount,
                                  repeat_count: event.repeatCount, timestamp_ns: event.timestampNanoseconds)
        withUnsafeMutablePointer(to: &sender) { senderPointer in
            withUnsafeMutablePointer(to: &cEvent) { eventPointer in
                var senderArg: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(senderPointer)
                var eventArg: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(eventPointer)
                selector.call(instance: instance, &senderArg, &eventArg)
            }
        }
    }

    /// Replies with what the plugin did, or with the failure it caused.
    mutating func finishCall(_ makeReply: ([Effect]) -> WorkerMessage) {
        if let failure = services.failure {
            reply(.failure(failure))
            exit(66)
        }
        let effects = services.effects
        services.effects.removeAll(keepingCapacity: true)
        reply(makeReply(effects))
    }
}

let options = WorkerOptions(CommandLine.arguments)
applyLimits(options)
var worker = Worker()
worker.run()
