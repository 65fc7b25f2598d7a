import Foundation
import Glibc
import KBHost
import KBSystem
import KBText
import Synchronization
import Testing

/// Listeners on the host's side of every escape the hostile keyboard tries
/// over the network or a socket: if anything arrives, the sandbox leaked.
final class Listeners {
    let tcp: Int32, udp: Int32, abstract: Int32
    let port: UInt16

    init() throws {
        let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        a.sin_port = 0
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        try Listeners.check(withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(tcp, $0, size) } })
        try Listeners.check(listen(tcp, 4))
        var len = size
        try Listeners.check(withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(tcp, $0, &len) } })
        // UDP on the same port number.
        let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        try Listeners.check(withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(udp, $0, size) } })
        // The abstract Unix socket the keyboard knows by name.
        let abstract = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var u = sockaddr_un()
        u.sun_family = sa_family_t(AF_UNIX)
        // Named after the TCP port (ephemeral, so unique while this scene holds it): two test
        // runs on one machine never bind the same name.
        let name = Array("kbhost-hostile-test-\(UInt16(bigEndian: a.sin_port))".utf8)
        withUnsafeMutableBytes(of: &u.sun_path) { p in for (i, b) in name.enumerated() { p[i + 1] = b } }
        let ulen = socklen_t(MemoryLayout<sa_family_t>.size + 1 + name.count)
        try Listeners.check(withUnsafePointer(to: &u) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(abstract, $0, ulen) } })
        try Listeners.check(listen(abstract, 4))
        self.tcp = tcp
        self.udp = udp
        self.abstract = abstract
        port = UInt16(bigEndian: a.sin_port)
    }

    deinit { close(tcp); close(udp); close(abstract) }

    static func check(_ rc: Int32) throws {
        if rc != 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// What reached the host: bytes over TCP, UDP datagrams, abstract connections.
    func received() -> (tcp: String?, udp: String?, abstract: Bool) {
        var tcpText: String?
        let c = accept(tcp, nil, nil)
        if c >= 0 {
            var buf = [UInt8](repeating: 0, count: 64)
            var pfd = pollfd(fd: c, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, 2000)
            let n = recv(c, &buf, buf.count, 0)
            tcpText = String(decoding: buf.prefix(max(0, n)), as: UTF8.self)
            close(c)
        }
        var buf = [UInt8](repeating: 0, count: 64)
        let n = recv(udp, &buf, buf.count, 0)
        let a = accept(abstract, nil, nil)
        if a >= 0 { close(a) }
        return (tcpText, n > 0 ? String(decoding: buf.prefix(n), as: UTF8.self) : nil, a >= 0)
    }
}

/// Real targets outside the keyboard, set up before each attempt: a victim
/// process of the same user, a neighbour's container with a secret,
/// settings.json, the daemon on its control socket, a listener on a pathname
/// socket, a SysV segment and message queue holding "secret".
final class Scene {
    let world: World
    let listeners: Listeners
    let victim: pid_t
    let daemon: Process
    let pathListener: Int32
    let shmID: Int32, msgID: Int32
    static let ipcKey: key_t = 0x6b62

    var env: [String: String] {
        ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? "", "KBHOST_RUNTIME_DIR": world.home + "/run",
         "KBHOST_TEST_SECRET": "hunter2"]
    }
    var settings: String { world.home + "/settings.json" }
    var neighbour: String { world.home + "/Containers/Keyboards/dev.kbhost.Calculator" }
    /// What the hostile keyboard reads from its document: the listeners' port, the victim, and in a
    /// network namespace of its own (open access through kbhost's relay) that the host is the gateway.
    var prefix: String { controlPrefix + (UserNetwork.available ? "gateway " : "") }
    /// The same for a keyboard outside the sandbox, on the host's own network.
    var controlPrefix: String { "port \(listeners.port) victim \(victim) " }

    init() throws {
        world = try World()
        try FileManager.default.createDirectory(atPath: world.home + "/Containers/Keyboards/dev.kbhost.Calculator",
                                                withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: world.home + "/Containers/Keyboards/dev.kbhost.Calculator/notes"))
        listeners = try Listeners()
        victim = try Spawn.spawn(path: "/bin/sleep", arguments: ["sleep", "120"], environment: [], files: [])
        // The pathname listener, in KBHOST_HOME.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var u = sockaddr_un()
        u.sun_family = sa_family_t(AF_UNIX)
        let path = Array((world.home + "/listener.sock").utf8)
        try FileManager.default.createDirectory(atPath: world.home, withIntermediateDirectories: true)
        withUnsafeMutableBytes(of: &u.sun_path) { p in for (i, b) in path.enumerated() { p[i] = b } }
        try Listeners.check(withUnsafePointer(to: &u) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } })
        try Listeners.check(listen(fd, 4))
        pathListener = fd
        // SysV IPC of this user, holding a secret.
        let shm = shmget(Scene.ipcKey, 4096, IPC_CREAT | 0o600)
        let msg = msgget(Scene.ipcKey, IPC_CREAT | 0o600)
        try Listeners.check(shm >= 0 && msg >= 0 ? 0 : -1)
        if let p = shmat(shm, nil, 0), p != UnsafeMutableRawPointer(bitPattern: -1) {
            _ = "secret".withCString { strcpy(p.assumingMemoryBound(to: CChar.self), $0) }
            shmdt(p)
        }
        var message = (Int(1), (UInt8(ascii: "s"), UInt8(ascii: "e"), UInt8(ascii: "c"), UInt8(ascii: "r"), UInt8(ascii: "e"), UInt8(ascii: "t")))
        try Listeners.check(msgsnd(msg, &message, 6, IPC_NOWAIT))
        shmID = shm
        msgID = msg
        // settings.json, and the daemon serving this home.
        let manifests = Fixtures.installation.manifestsDirectory ?? ""
        daemon = Fixtures.kbhostProcess(["serve"], environment: ["KBHOST_HOME": world.home, "KBHOST_MANIFESTS": manifests,
                                                                "KBHOST_RUNTIME_DIR": world.home + "/run"])
        #expect(try world.run(["replacements", "add", "omw", "On my way!"], extraEnvironment: ["KBHOST_MANIFESTS": manifests]).status == 0)
        // The group's defaults, written by the app: its lock file is there to be held.
        #expect(try world.run(["defaults", "group.dev.kbhost.Hostile", "write", "seed", "1"],
                              extraEnvironment: ["KBHOST_MANIFESTS": manifests]).status == 0)
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        var waited = 0
        while !FileManager.default.fileExists(atPath: world.home + "/run/control") && waited < 500 { usleep(10_000); waited += 1 }
    }

    deinit {
        daemon.terminate()
        daemon.waitUntilExit()
        kill(victim, SIGKILL)
        var status: Int32 = 0
        waitpid(victim, &status, 0)
        close(pathListener)
        shmctl(shmID, IPC_RMID, nil)
        msgctl(msgID, IPC_RMID, nil)
        chmod(settings, 0o600)
    }

    /// The scene is real: every target exists outside the keyboard.
    func expectTargetsExist() {
        for path in [settings, neighbour + "/notes", world.home + "/run/control", world.home + "/listener.sock", "/etc/passwd",
                     "/proc/\(victim)/mem"] {
            #expect(FileManager.default.fileExists(atPath: path), "the target \(path) exists outside the sandbox")
        }
        #expect(Fixtures.processExists(victim))
    }

    /// Whether anything connected to the pathname listener.
    func pathListenerWasReached() -> Bool {
        let c = accept(pathListener, nil, nil)
        if c >= 0 { close(c) }
        return c >= 0
    }

    static func outcomes(_ text: String) -> [String: String] {
        var outcome: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            var key = String(line[..<colon])
            if key.contains(" ") { key = String(key.split(separator: " ").last!) }
            outcome[key] = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        return outcome
    }

    /// Every attempt through `kbhost type`, sandboxed as a user's keyboard is.
    func attempt(_ keys: [String] = SandboxTests.keys) throws -> [String: String] {
        let r = try world.run(["type", "--keyboard", "dev.kbhost.Hostile", "--text", prefix] + keys, extraEnvironment: env)
        #expect(r.status == 0, "\(r.err)")
        let outcome = Scene.outcomes(r.out)
        #expect(Set(outcome.keys) == Set(keys), "every attempt reported: \(r.out)")
        return outcome
    }

    /// The positive control: the same keyboard and keys in an extension
    /// process without the sandbox (namespaces, Landlock, seccomp all off).
    func attemptUnsandboxed(_ keys: [String], prefix extra: String = "") throws -> [String: String] {
        let session = try KeyboardSession(keyboard: try Fixtures.sample("dev.kbhost.Hostile"), document: TextDocument(text: controlPrefix + extra),
                                          configuration: Fixtures.configuration,
                                          access: KeyboardAccess(home: world.home, sandboxed: false))
        defer { session.close() }
        try session.appear()
        for key in keys { try session.tap(key) }
        return Scene.outcomes(session.document.text)
    }
}
