// kbhost-worker: the extension process. One per keyboard. It speaks the wire
// protocol on fd 3, loads exactly one plugin, and calls its selectors through
// libffi. It imports no Foundation, so nearly all of the budget is the keyboard's.
//
// Usage (the host starts it; not for people): kbhost-worker [--data-limit BYTES]
//     [--stack-limit BYTES] [--no-isolate] [--network private|relay|shared]; the host's pid in KBHOST_PARENT
import CKBSandbox
import CKBShims
import Glibc
import KBExtensionRuntime
import KBSystem
import KBWire

let channelFD: Int32 = 3

struct WorkerOptions {
    var dataLimit: UInt64 = 512 << 20
    var stackLimit: UInt64 = 2 << 20
    var threadStack = 256 << 10
    var parent: Int32 = 0
    /// Enter namespaces of its own at start (off only for measurements: `kbhost-bench`).
    var isolate = true
    /// A network namespace of its own from the start (a keyboard without open access, or with
    /// open access through the host's relay: `--network relay`, which also gives it socket
    /// tables of its own).
    var privateNetwork = false
    var ownSocketTables = false
    /// Yield the CPU after each reply (`--hand-off`: an interactive front end waits for it).
    var handOff = false

    init(_ arguments: [String]) {
        // The host's pid (to end at once if it died while this started), read and wiped in place
        // before anything of a keyboard runs: the keyboard reads its own memory.
        if let value = getenv("KBHOST_PARENT") {
            parent = Int32(atoi(value))
            memset(value, 0, strlen(value))
            unsetenv("KBHOST_PARENT")
        }
        var i = 1
        while i < arguments.count {
            if arguments[i] == "--no-isolate" || arguments[i] == "--hand-off" {
                if arguments[i] == "--no-isolate" { isolate = false } else { handOff = true }
                i += 1
                continue
            }
            guard i + 1 < arguments.count else { break }
            let value = arguments[i + 1]
            switch arguments[i] {
            case "--data-limit": dataLimit = UInt64(value) ?? dataLimit
            case "--stack-limit": stackLimit = UInt64(value) ?? stackLimit
            case "--network": (privateNetwork, ownSocketTables) = (value == "private" || value == "relay", value == "relay")
            default: break
            }
            i += 2
        }
    }
}

func fail(_ message: String) -> Never {
    try? Sys.writeAll(2, Array("kbhost-worker: \(message)\n".utf8))
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
        // Few descriptors: each socket can hold buffers the budget does not see.
        try Sys.setResourceLimit(Int32(RLIMIT_NOFILE.rawValue), soft: 256, hard: 256)
        // No real-time scheduling and no raised priority, whatever the user may have (an
        // `@audio rtprio 95` limit would let a keyboard's SCHED_FIFO thread starve the machine;
        // seventh red team): it may only lower its own.
        try Sys.setResourceLimit(Int32(__RLIMIT_RTPRIO.rawValue), soft: 0, hard: 0)
        try Sys.setResourceLimit(Int32(__RLIMIT_RTTIME.rawValue), soft: 0, hard: 0)
        try Sys.setResourceLimit(Int32(__RLIMIT_NICE.rawValue), soft: 0, hard: 0)
        // No locked memory: pinned pages of a file of its container are page cache the kernel can
        // neither write back nor reclaim, outside its footprint (tenth red team, N6).
        try Sys.setResourceLimit(Int32(__RLIMIT_MEMLOCK.rawValue), soft: 0, hard: 0)
        // No core files: a crash the keyboard causes itself, its limit raised, left a core of its
        // whole memory in its container (on a tmpfs home, memory nobody holds) or handed it to the
        // system's core_pattern helper, outside its namespaces. Part of the sandbox: an unsandboxed
        // worker (the tests' positive controls) keeps the user's limit.
        if options.isolate { try Sys.setResourceLimit(Int32(RLIMIT_CORE.rawValue), soft: 0, hard: 0) }
    } catch {
        fail("cannot apply limits: \(error)")
    }
}

/// How the process was isolated at start: in its namespaces, or why not.
enum Isolation {
    case namespaced(privateNetwork: Bool)
    case without(String)

    nonisolated(unsafe) static var current = Isolation.without("not requested")
}

/// Namespaces before anything else: only the keyboard's process returns from
/// here (the launcher and the namespace's init stay behind; see isolation.c).
func isolate(_ options: WorkerOptions) {
    guard options.isolate else { return }
    if pretendMissing.contains("namespaces") {
        Isolation.current = .without("KBHOST_SANDBOX_PRETEND_MISSING")
        return
    }
    var message = [CChar](repeating: 0, count: 512)
    switch kbh_isolate_start(options.privateNetwork, options.ownSocketTables, &message, message.count) {
    case 0:
        Isolation.current = .namespaced(privateNetwork: options.privateNetwork)
        // Threads: each holds a kernel stack the footprint does not show. In its own
        // user namespace this limit counts only the keyboard's tasks (an ordinary
        // user's; the kernel does not apply it to root).
        try? Sys.setResourceLimit(6 /* RLIMIT_NPROC */, soft: 256, hard: 256)
        // Pending signals (and POSIX timers, which reserve one each): kernel memory the footprint does not show.
        try? Sys.setResourceLimit(11 /* RLIMIT_SIGPENDING */, soft: 256, hard: 256)
    case 1: Isolation.current = .without(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    default: fail(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}

/// For tests and `kbhost doctor`: behave as on a kernel without these protections.
let pretendMissing: [String] = getenv("KBHOST_SANDBOX_PRETEND_MISSING")
    .map { String(cString: $0).split(separator: ",").map(String.init) } ?? []

/// The host end of the socketpair: blocking reads of whole frames, one write per reply.
struct Channel {
    var reader = FrameReader()
    /// Yield after each reply (WorkerOptions.handOff).
    var handOff = false
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
        var frame = message.encodedFrame()
        let size = frame.count - Framing.headerSize
        let tooLarge = size > Framing.maximumFrameSize  // a frame the host would refuse: say why instead, and end
        if tooLarge {
            frame = WorkerMessage.failure(WorkerFailure(.overLimit, "the keyboard's reply of \(size) bytes is larger than the \(Framing.maximumFrameSize) bytes a frame may hold")).encodedFrame()
        }
        do {
            try Sys.sendAll(channelFD, frame)
        } catch {
            fail("writing to the host: \(error)")
        }
        // The host waits for this reply: where it shares this CPU, it runs now rather than after
        // this process has freed the call's values and gone back to its read.
        if handOff { sched_yield() }
        if tooLarge { exit(66) }
    }
}

/// Answers each request with exactly one reply; a failure reply ends the process.
struct Worker {
    var channel = Channel()
    let runtime = ExtensionRuntime()

    mutating func run() -> Never {
        guard case .hello(let p, let a)? = channel.receive() else { fail("no handshake from the host") }
        guard p == WireVersion.protocolVersion, a == WireVersion.abiVersion else {
            finish(WorkerFailure(.handshake, "host speaks protocol \(p) / ABI \(a); this worker speaks protocol \(WireVersion.protocolVersion) / ABI \(WireVersion.abiVersion)"))
        }
        channel.send(.hello(protocolVersion: WireVersion.protocolVersion, abiVersion: WireVersion.abiVersion, pid: kbh_host_pid()))
        // While the host prepares the load (or while a spare waits for one): the filter.
        if case .namespaced(let privateNetwork) = Isolation.current {
            var message = [CChar](repeating: 0, count: 256)
            _ = kbh_sandbox_prepare(!privateNetwork, &message, message.count)
        }

        while let message = channel.receive() {
            do throws(WorkerFailure) {
                switch message {
                case .hello: throw WorkerFailure(.badRequest, "the host sent a second hello")
                case .load(let request):
                    // A second load is a new presentation (a new controller): the sandbox is in place.
                    if runtime.instance == nil { try installSandbox(request.sandbox) }
                    channel.send(.loaded(try runtime.load(request)))
                case .deliver(let delivery):
                    channel.send(.done(sequence: delivery.sequence, effects: try runtime.deliver(delivery)))
                case .shutdown: exit(0)
                }
            } catch {
                finish(error)
            }
        }
        exit(0)
    }

    func finish(_ failure: WorkerFailure) -> Never {
        channel.send(.failure(failure))
        exit(failure.kind == .badRequest || failure.kind == .handshake ? 65 : 66)
    }
}

/// The kernel's limits on what the keyboard can reach, installed before its
/// library is opened: nothing of the plugin ever runs outside them.
func installSandbox(_ spec: SandboxSpec) throws(WorkerFailure) {
    if !spec.containerPath.isEmpty {
        try? Sys.setEnvironment("HOME", spec.containerPath)
        try? Sys.setEnvironment("TMPDIR", spec.containerPath + "/tmp")
    }
    guard spec.enabled else { return }
    func mask(_ names: [String]) -> UInt32 { names.reduce(0) { $0 | kbh_mechanism_named($1) } }
    let reads = spec.readPaths.map { strdup($0) }
    let identities = spec.readIdentities.flatMap { [CUnsignedLongLong($0.device), CUnsignedLongLong($0.inode)] }
    let groups = spec.groups.map { strdup($0.path) }
    let container = strdup(spec.containerPath)
    let namespaced: Bool, networkIsolated: Bool
    let whyNot: UnsafeMutablePointer<CChar>?
    switch Isolation.current {
    case .namespaced(let privateNetwork): (namespaced, networkIsolated, whyNot) = (true, privateNetwork, nil)
    case .without(let reason): (namespaced, networkIsolated, whyNot) = (false, false, strdup(reason))
    }
    defer {
        for p in reads + groups { free(p) }
        free(container)
        free(whyNot)
    }
    var skipped: UInt32 = 0
    var message = [CChar](repeating: 0, count: 1024)
    let rc = reads.map { UnsafePointer($0) }.withUnsafeBufferPointer { readBuffer in
        groups.map { UnsafePointer($0) }.withUnsafeBufferPointer { groupBuffer in
            identities.withUnsafeBufferPointer { identityBuffer in
                var request = kbh_sandbox_request(open_access: spec.openAccess,
                                                  read_paths: readBuffer.baseAddress, read_path_count: readBuffer.count,
                                                  read_identities: identities.isEmpty ? nil : identityBuffer.baseAddress,
                                                  container: UnsafePointer(container),
                                                  group_paths: groupBuffer.baseAddress, group_path_count: groupBuffer.count,
                                                  allow_missing: mask(spec.allowMissing), pretend_missing: mask(pretendMissing),
                                                  namespaced: namespaced, network_isolated: networkIsolated,
                                                  namespace_error: UnsafePointer(whyNot))
                return kbh_sandbox_apply(&request, &skipped, &message, message.count)
            }
        }
    }
    guard rc == 0 else {
        let text = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        throw WorkerFailure(.sandbox, String(decoding: text, as: UTF8.self))
    }
    if skipped != 0 {
        let names = SandboxSpec.Mechanism.allCases.filter { mask([$0.rawValue]) & skipped != 0 }.map(\.rawValue)
        try? Sys.writeAll(2, Array("kbhost-worker: running without \(names.joined(separator: ", ")), as the user allowed\n".utf8))
    }
}

func main() -> Never {
    let options = WorkerOptions(CommandLine.arguments)
    // Its arguments, wiped once read: a keyboard reads its own /proc/self/cmdline (they once named the
    // host's pid, outside its PID namespace, tenth red team, N6; that now comes by KBHOST_PARENT).
    for i in 1..<Int(CommandLine.argc) {
        if let argument = CommandLine.unsafeArgv[i] { memset(argument, 0, strlen(argument)) }
    }
    applyLimits(options)
    isolate(options)
    var worker = Worker()
    worker.channel.handOff = options.handOff
    worker.run()
}

main()
