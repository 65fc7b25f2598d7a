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
        let name = Array("kbhost-hostile-test".utf8)
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
    var prefix: String { "port \(listeners.port) victim \(victim) " }

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
    func attemptUnsandboxed(_ keys: [String]) throws -> [String: String] {
        let session = try KeyboardSession(keyboard: try Fixtures.sample("dev.kbhost.Hostile"), document: TextDocument(text: prefix),
                                          configuration: Fixtures.configuration,
                                          access: KeyboardAccess(home: world.home, sandboxed: false))
        defer { session.close() }
        try session.appear()
        for key in keys { try session.tap(key) }
        return Scene.outcomes(session.document.text)
    }
}

/// Every escape, through `kbhost type --keyboard dev.kbhost.Hostile`: each
/// key inserts one line saying what happened. A refusal counts only as EPERM,
/// EACCES, EROFS, SIGSYS, or ENOENT for a target that provably exists outside.
@Suite("Sandbox: the hostile keyboard", .serialized)
struct SandboxTests {
    static let keys = ["tcp", "udp", "raw", "packet", "netlink", "io_uring", "neighbor", "home", "passwd", "settings",
                       "own", "group-read", "group-write", "defaults", "pasteboard", "ptrace", "signal", "procmem",
                       "vmread", "abstract", "exec", "fork", "prlimit", "renice", "sched", "affinity", "ioprio", "setpgid",
                       "daemon", "unix", "socketpair", "shm", "msgq", "chmod", "chmod-group", "utime", "chown", "inotify",
                       "memfd", "pipe", "hugepages", "env", "cwd", "fds", "processes", "listen", "fifo", "aio", "setown",
                       "ifconf", "procnet", "flock"]
    static let seccomp = "denied: Operation not permitted (errno 1)"   // the seccomp filter's answer
    static let landlock = "denied: Permission denied (errno 13)"       // Landlock's
    static let notHere = "denied: No such file or directory (errno 2)" // not in the keyboard's namespace
    static let readOnly = "denied: Read-only file system (errno 30)"   // a read-only mount

    /// Denied by the filter, with and without open access.
    static let filtered = ["raw", "packet", "netlink", "io_uring", "ptrace", "signal", "vmread", "exec", "fork", "abstract",
                           "prlimit", "renice", "sched", "affinity", "ioprio", "setpgid", "socketpair", "shm", "msgq",
                           "chown", "inotify", "memfd", "pipe", "hugepages", "listen", "fifo", "aio", "setown", "ifconf",
                           "chmod", "chmod-group", "utime"]
    /// Nothing of that name in the keyboard's namespaces, though each exists outside.
    static let unnameable = ["neighbor", "home", "passwd", "settings", "procmem", "daemon", "unix"]

    func expectConfined(_ o: [String: String], _ scene: Scene) {
        for key in SandboxTests.filtered { #expect(o[key] == SandboxTests.seccomp, "\(key): \(o[key] ?? "nothing")") }
        for key in SandboxTests.unnameable { #expect(o[key] == SandboxTests.notHere, "\(key): \(o[key] ?? "nothing")") }
        #expect(o["processes"] == SandboxTests.landlock, "other processes cannot be listed")
        #expect(o["procnet"] == SandboxTests.landlock, "nor its network namespace's sockets (with open access, the host's)")
        #expect(o["own"]?.hasPrefix("allowed: wrote 6 bytes to \(scene.world.home)/Containers/Keyboards/dev.kbhost.Hostile/note.txt") == true)
        #expect(o["group-read"]?.hasPrefix("allowed: listed") == true)
        // A clean start: a fixed environment (no secret of the user's), its container as working directory, its channel only.
        #expect(o["env"] == "allowed: PATH LANG SWIFT_BACKTRACE HOME TMPDIR", "\(o["env"] ?? "")")
        #expect(o["cwd"] == "allowed: \(scene.world.home)/Containers/Keyboards/dev.kbhost.Hostile")
        #expect(o["fds"] == "allowed: 0 1 2 3")
        // The host's side: nothing arrived, nothing changed, the victim is as it was.
        #expect(!scene.pathListenerWasReached())
        let limits = (try? String(contentsOfFile: "/proc/\(scene.victim)/limits", encoding: .utf8)) ?? ""
        #expect(limits.contains("Max file size             unlimited"), "the victim's limits are untouched")
        #expect(FileManager.default.isReadableFile(atPath: scene.settings))
    }

    @Test func withoutOpenAccessTheKeyboardReachesNothingButItsContainer() throws {
        let scene = try Scene()
        scene.expectTargetsExist()
        let settingsBefore = try Data(contentsOf: URL(fileURLWithPath: scene.settings))
        let o = try scene.attempt()
        expectConfined(o, scene)
        for key in ["tcp", "udp"] { #expect(o[key] == SandboxTests.seccomp, "\(key): \(o[key] ?? "nothing")") }
        #expect(o["group-write"] == SandboxTests.readOnly, "\(o["group-write"] ?? "nothing")")
        #expect(o["flock"] == SandboxTests.seccomp, "no lock to hold up the app's writes: \(o["flock"] ?? "nothing")")
        #expect(o["defaults"]?.hasPrefix("denied: writing the defaults of app group 'group.dev.kbhost.Hostile' needs open access") == true)
        #expect(o["pasteboard"]?.hasPrefix("denied: reading the pasteboard needs open access") == true)
        let got = scene.listeners.received()
        #expect(got.tcp == nil && got.udp == nil && !got.abstract)
        #expect(try Data(contentsOf: URL(fileURLWithPath: scene.settings)) == settingsBefore, "no grant, no budget, nothing")
        #expect(!FileManager.default.fileExists(atPath: scene.world.home + "/Containers/Groups/group.dev.kbhost.Hostile/hostile.txt"))
        #expect(try !scene.world.run(["defaults", "group.dev.kbhost.Hostile", "read"], extraEnvironment: scene.env).out.contains("hostile"))
    }

    @Test func openAccessOpensTheNetworkAndGroupWritesAndNothingElse() throws {
        let scene = try Scene()
        #expect(try scene.world.run(["access", "dev.kbhost.Hostile", "on"], extraEnvironment: scene.env).status == 0)
        #expect(try scene.world.run(["pasteboard", "write", "copied by the user"], extraEnvironment: scene.env).status == 0)
        scene.expectTargetsExist()
        let o = try scene.attempt()
        expectConfined(o, scene)
        #expect(o["tcp"] == "allowed: sent 7 bytes to 127.0.0.1:\(scene.listeners.port)")
        #expect(o["udp"] == "allowed: sent 7 bytes to 127.0.0.1:\(scene.listeners.port)")
        #expect(o["group-write"]?.hasPrefix("allowed: wrote 6 bytes") == true)
        #expect(o["defaults"] == "allowed: wrote hostile = escaped")
        #expect(o["pasteboard"] == "allowed: read \"copied by the user\"")
        #expect(o["flock"] == "allowed: took its group's lock")
        let got = scene.listeners.received()
        #expect(got.tcp == "hostile")
        #expect(got.udp == "hostile")
        #expect(!got.abstract)
        #expect(try scene.world.run(["defaults", "group.dev.kbhost.Hostile", "read", "hostile"], extraEnvironment: scene.env).out == "escaped\n")
    }

    /// The positive control: without the sandbox, the same keys reach every target.
    @Test func withoutTheSandboxTheSameAttemptsReachEveryTarget() throws {
        let scene = try Scene()
        scene.expectTargetsExist()
        let o = try scene.attemptUnsandboxed(SandboxTests.filtered.filter { !["exec", "fork", "hugepages"].contains($0) }
                                             + SandboxTests.unnameable + ["processes", "procnet", "flock"])
        for key in ["raw", "packet", "netlink"] {
            #expect(o[key]?.hasPrefix("allowed") == true || o[key]?.hasPrefix("denied: Operation not permitted") == true,
                    "\(key): \(o[key] ?? "nothing") (needs CAP_NET_RAW: allowed as root)")
        }
        let reached = ["procnet", "flock", "listen", "fifo", "aio", "setown", "ifconf", "io_uring", "ptrace", "signal", "vmread", "abstract", "prlimit", "renice", "sched", "affinity", "ioprio",
                       "setpgid", "socketpair", "shm", "msgq", "chown", "inotify", "memfd", "pipe", "neighbor", "passwd",
                       "settings", "procmem", "daemon", "unix", "chmod", "chmod-group", "utime"]
        for key in reached { #expect(o[key]?.hasPrefix("allowed") == true, "\(key): \(o[key] ?? "nothing")") }
        #expect(o["shm"] == "allowed: read \"secret\"")
        #expect(o["msgq"] == "allowed: read \"secret\"")
        #expect(scene.pathListenerWasReached())
        let limits = (try? String(contentsOfFile: "/proc/\(scene.victim)/limits", encoding: .utf8)) ?? ""
        #expect(limits.contains("Max file size             0"), "prlimit really reached the victim")
        #expect(o["abstract"] == "allowed: connected to @kbhost-hostile-test")
        if let seen = o["processes"].flatMap({ Int($0.split(separator: " ").last ?? "") }) {
            #expect(seen > 2, "outside its PID namespace a process sees the others")
        } else {
            Issue.record("processes: \(o["processes"] ?? "nothing")")
        }
    }

    /// CI runs as root, which changes several answers: the same attempts as an
    /// ordinary user (nobody), from a copy of the products nobody can read.
    @Test func asAnOrdinaryUserTheSameAttemptsAreDenied() throws {
        guard getuid() == 0 else {
            // Already an ordinary user: the other tests are this test.
            return
        }
        let scene = try Scene()
        let products = Fixtures.installation.productsDirectory
        let copy = scene.world.root + "/nobody"
        let bundle = copy + "/Manifests/Hostile"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        for file in ["kbhost", "kbhost-worker", "libHostileKeyboard.so"] {
            try FileManager.default.copyItem(atPath: products + "/" + file, toPath: copy + "/" + file)
        }
        try FileManager.default.copyItem(atPath: (Fixtures.installation.manifestsDirectory ?? "") + "/Hostile/Info.plist",
                                         toPath: bundle + "/Info.plist")
        let home = scene.world.root + "/nobody-home"  // not inside the products: those the keyboard may read
        try FileManager.default.createDirectory(atPath: home + "/Containers/Keyboards/dev.kbhost.Calculator", withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: home + "/Containers/Keyboards/dev.kbhost.Calculator/notes"))
        for path in [scene.world.root, copy] { chmod(path, 0o755) }
        for path in [home, home + "/Containers", home + "/Containers/Keyboards", home + "/Containers/Keyboards/dev.kbhost.Calculator"] {
            chown(path, 65534, 65534)
        }
        // A victim of the same (ordinary) user.
        let victim = try Spawn.spawn(path: "/usr/bin/setpriv", arguments: ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                                                          "/bin/sleep", "60"], environment: [], files: [])
        defer { kill(victim, SIGKILL); var s: Int32 = 0; waitpid(victim, &s, 0) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        let keys = SandboxTests.filtered.filter { $0 != "abstract" } + ["neighbor", "passwd", "procmem", "own", "env", "cwd", "fds", "threads"]
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", copy + "/kbhost", "type", "--keyboard",
                             "dev.kbhost.Hostile", "--text", "port 9 victim \(victim) "] + keys
        process.environment = ["KBHOST_HOME": home, "KBHOST_PRODUCTS": copy, "KBHOST_MANIFESTS": copy + "/Manifests",
                               "KBHOST_RUNTIME_DIR": home + "/run", "PATH": "/usr/bin:/bin"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(errors)")
        let o = Scene.outcomes(text)
        for key in SandboxTests.filtered where key != "abstract" { #expect(o[key] == SandboxTests.seccomp, "\(key): \(o[key] ?? "nothing")") }
        for key in ["neighbor", "passwd", "procmem"] { #expect(o[key] == SandboxTests.notHere, "\(key): \(o[key] ?? "nothing")") }
        #expect(o["own"]?.hasPrefix("allowed: wrote 6 bytes") == true, "\(o["own"] ?? "")")
        #expect(o["cwd"] == "allowed: \(home)/Containers/Keyboards/dev.kbhost.Hostile")
        #expect(o["fds"] == "allowed: 0 1 2 3")
        // Threads are bounded in its user namespace (RLIMIT_NPROC; the kernel exempts root, so only here).
        #expect(o["threads"]?.hasPrefix("denied: started 25") == true, "\(o["threads"] ?? "")")
        #expect(Fixtures.processExists(victim))
    }

    /// A world whose keyboards are the bundled ones, with a neighbour's container.
    func world() throws -> World {
        let w = try World()
        try FileManager.default.createDirectory(atPath: w.home + "/Containers/Keyboards/dev.kbhost.Calculator",
                                                withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: w.home + "/Containers/Keyboards/dev.kbhost.Calculator/notes"))
        return w
    }

    var env: [String: String] { ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""] }

    @Test func withoutNamespacesTheKeyboardDoesNotStartUnlessTheUserAllowsIt() throws {
        let w = try world()
        var pretend = env
        pretend["KBHOST_SANDBOX_PRETEND_MISSING"] = "namespaces"
        let refused = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "own"], extraEnvironment: pretend)
        #expect(refused.status == 4)
        #expect(refused.err.contains("lacks unprivileged user namespaces"), "\(refused.err)")
        #expect(refused.err.contains("kbhost protection dev.kbhost.Hostile allow namespaces"))
        #expect(try w.run(["protection", "dev.kbhost.Hostile", "allow", "namespaces"], extraEnvironment: env).status == 0)
        let allowed = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "own", "neighbor", "prlimit", "shm"], extraEnvironment: pretend)
        #expect(allowed.status == 0, "\(allowed.err)")
        #expect(allowed.out.contains("own: allowed"))
        // Without the namespaces, Landlock and the filter still hold.
        #expect(allowed.out.contains("neighbor: \(SandboxTests.landlock)"), "\(allowed.out)")
        #expect(allowed.out.contains("prlimit: \(SandboxTests.seccomp)"))
        #expect(allowed.out.contains("shm: \(SandboxTests.seccomp)"))
    }

    @Test func aClosedMemoryCallSaysWhyInTheKeyboardsLog() throws {
        let w = try world()
        // x32 ends the keyboard, so that its log is printed with the failure.
        let r = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "memfd", "pipe", "hugepages", "x32"], extraEnvironment: env)
        #expect(r.out.hasPrefix("memfd: \(SandboxTests.seccomp)"))
        for call in ["memfd_create", "pipe2", "prctl(PR_SET_THP_DISABLE)"] {
            #expect(r.err.contains("kbhost sandbox: \(call) is closed to keyboards: memory held that way would escape the memory budget"),
                    "\(call): \(r.err)")
        }
    }

    /// A spare is taken only by a keyboard whose network it matches, and a
    /// keyboard that takes one is sandboxed as any other.
    @Test func aPreparedSpareServesTheNextLaunchAndOnlyAMatchingOne() throws {
        let scene = try Scene()
        var config = Fixtures.configuration
        config.keepSpare = true
        let access = KeyboardAccess(home: scene.world.home)
        let first = try KeyboardSession(keyboard: try Fixtures.sample("dev.kbhost.NumberPad"), configuration: config, access: access)
        first.close()
        var closed = config
        closed.privateNetwork = true
        var waited = 0
        while SpareProcesses.shared.readyPID(like: closed) == nil && waited < 2000 { usleep(1000); waited += 1 }
        let spare = try #require(SpareProcesses.shared.readyPID(like: closed), "a spare was prepared")
        // Without open access the spare is taken, and the keyboard in it is confined.
        let hostile = try Fixtures.sample("dev.kbhost.Hostile")
        let taken = try KeyboardSession(keyboard: hostile, document: TextDocument(text: scene.prefix), configuration: config, access: access)
        #expect(taken.pid == spare)
        try taken.appear()
        for key in ["tcp", "neighbor", "prlimit", "own"] { try taken.tap(key) }
        let o = Scene.outcomes(taken.document.text)
        #expect(o["tcp"] == SandboxTests.seccomp)
        #expect(o["neighbor"] == SandboxTests.notHere)
        #expect(o["prlimit"] == SandboxTests.seccomp)
        #expect(o["own"]?.hasPrefix("allowed") == true)
        taken.close()
        // With open access it is not: the spare has no network.
        waited = 0
        while SpareProcesses.shared.readyPID(like: closed) == nil && waited < 2000 { usleep(1000); waited += 1 }
        let next = SpareProcesses.shared.readyPID(like: closed)
        let open = try KeyboardSession(keyboard: hostile, document: TextDocument(text: scene.prefix), configuration: config,
                                       hasFullAccess: true, access: access)
        #expect(open.pid != next)
        try open.appear()
        try open.tap("tcp")
        #expect(Scene.outcomes(open.document.text)["tcp"] == "allowed: sent 7 bytes to 127.0.0.1:\(scene.listeners.port)")
        open.close()
        SpareProcesses.shared.drain()
    }

    /// With KBHOST_HOME outside /tmp, the keyboard's /tmp is its container's
    /// tmp. A link swapped in for that folder, again and again while keyboards
    /// start (the race between the host's check and the worker's mount), never
    /// becomes its /tmp: the victim folder's file keeps its mode.
    @Test func itsTmpIsItsOwnAndALinkSwappedInNeverBecomesIt() throws {
        let root = "/var/tmp/kbhost-test-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let home = root + "/home", victim = root + "/victim"
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: victim + "/file.txt", contents: Data("secret".utf8), attributes: [.posixPermissions: 0o600])
        // Nothing the keyboard reads may live under /tmp (a checkout in a temporary folder would):
        // the worker and the keyboard are copied beside the home.
        let products = root + "/products"
        try FileManager.default.createDirectory(atPath: products + "/Manifests/Hostile", withIntermediateDirectories: true)
        for file in ["kbhost-worker", "libHostileKeyboard.so"] {
            try FileManager.default.copyItem(atPath: Fixtures.installation.productsDirectory + "/" + file, toPath: products + "/" + file)
        }
        try FileManager.default.copyItem(atPath: (Fixtures.installation.manifestsDirectory ?? "") + "/Hostile/Info.plist",
                                         toPath: products + "/Manifests/Hostile/Info.plist")
        let w = try World()
        let env = ["KBHOST_HOME": home, "KBHOST_PRODUCTS": products, "KBHOST_MANIFESTS": products + "/Manifests"]
        let first = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "tmp", "tmp-peek"], extraEnvironment: env)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("tmp: allowed: wrote 3 bytes to /tmp"), "\(first.out)")
        #expect(first.out.contains("tmp-peek: \(SandboxTests.notHere)"), "\(first.out)")
        // The positive control: a link to the victim, used as a folder, reaches its file.
        let container = home + "/Containers/Keyboards/dev.kbhost.Hostile"
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: victim)
        #expect(FileManager.default.isReadableFile(atPath: root + "/link/file.txt"))
        // The attack: swap the container's tmp and the link while keyboards start.
        let swapping = Mutex(true), swaps = Mutex(0)
        let swapper = Thread {
            while swapping.withLock({ $0 }) {
                if rename(container + "/tmp", root + "/stash") == 0 {
                    if rename(root + "/link", container + "/tmp") == 0 {
                        sched_yield()
                        _ = rename(container + "/tmp", root + "/link")
                        swaps.withLock { $0 += 1 }
                    }
                    _ = rename(root + "/stash", container + "/tmp")
                }
            }
        }
        swapper.start()
        var seen: [String] = []
        for _ in 0..<30 { seen.append(try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "tmp-peek"], extraEnvironment: env).out) }
        swapping.withLock { $0 = false }
        usleep(50_000)
        #expect(swaps.withLock { $0 } > 30, "the link really was swapped in")
        #expect(!seen.contains { $0.contains("tmp-peek: allowed") }, "no keyboard ever had the victim's folder as its /tmp")
    }

    /// KBHostReadOnlyPaths is checked where it leads, not as text: a link under
    /// /opt to a secret elsewhere, or a file under /etc only its owner may read,
    /// stops the keyboard instead of being mounted for it.
    @Test(.enabled(if: getuid() == 0, "needs to plant a link under /opt and a file under /etc (root; CI runs as root)"))
    func readOnlyPathsAreCheckedWhereTheyLead() throws {
        let w = try world()
        let tag = UUID().uuidString
        let secret = w.root + "/secret.txt"
        _ = FileManager.default.createFile(atPath: secret, contents: Data("secret".utf8))
        let link = "/opt/kbhost-test-\(tag)", hidden = "/etc/kbhost-test-\(tag)"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: secret)
        _ = FileManager.default.createFile(atPath: hidden, contents: Data("key".utf8), attributes: [.posixPermissions: 0o600])
        defer { unlink(link); unlink(hidden) }
        #expect(FileManager.default.contents(atPath: link) == Data("secret".utf8), "the link leads to the secret outside")
        for (path, why) in [(link, "which is not system data"), (hidden, "which not everyone may read")] {
            try w.makeBundle(id: "dev.example.Reader", library: "libNumberPadKeyboard.so", principal: "NumberPadViewController",
                             extra: ["KBHostReadOnlyPaths": [path]])
            let r = try w.run(["type", "--keyboard", "dev.example.Reader", "1"],
                              extraEnvironment: env.merging(["KBHOST_KEYBOARDS": w.root + "/bundles"]) { $1 })
            #expect(r.status == 4, "\(r.out)")
            #expect(r.err.contains("KBHostReadOnlyPaths") && r.err.contains(why), "\(r.err)")
        }
    }

    /// Page tables count: a huge mapping read once every 2 MiB holds almost no
    /// pages but 128 MiB of page tables, and goes over a 30 MiB budget.
    @Test func pageTablesCountInTheFootprint() throws {
        let w = try world()
        let control = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "--budget", "512", "pagetables"], extraEnvironment: env)
        #expect(control.status == 0 && control.out.hasPrefix("pagetables: allowed: read 64 GiB once every 2 MiB"),
                "the control: it runs under 512 MiB. \(control.err)")
        let r = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "--budget", "30", "own", "pagetables"], extraEnvironment: env)
        #expect(r.status == 4)
        #expect(r.out.hasPrefix("own: allowed"), "what it typed before stays")
        #expect(r.err.contains("failed during key 'pagetables': went over its memory budget of 30.0 MiB"), "\(r.err)")
    }

    @Test func theKeyboardsProcessHasNamespacesOfItsOwn() throws {
        let keyboard = try Fixtures.sample("dev.kbhost.NumberPad")
        let session = try KeyboardSession(keyboard: keyboard, configuration: Fixtures.configuration)
        defer { session.close() }
        for ns in ["user", "mnt", "pid", "ipc", "uts", "net"] {
            let theirs = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(session.pid)/ns/\(ns)")
            let mine = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/\(ns)")
            #expect(theirs != mine, "\(ns): \(theirs) is the host's own")
        }
        let status = try String(contentsOfFile: "/proc/\(session.pid)/status", encoding: .utf8)
        let nspid = status.split(separator: "\n").first { $0.hasPrefix("NSpid:") } ?? ""
        #expect(nspid.hasSuffix("\t2"), "pid 2 in its PID namespace, under an init: \(nspid)")
    }

    @Test func aMissingProtectionStopsTheKeyboardUnlessTheUserAllowsIt() throws {
        let w = try world()
        var pretend = env
        pretend["KBHOST_SANDBOX_PRETEND_MISSING"] = "landlock-scope"
        let refused = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "own"], extraEnvironment: pretend)
        #expect(refused.status == 4)
        #expect(refused.err.contains("lacks Landlock's scoping of signals and abstract sockets"))
        #expect(refused.err.contains("kbhost protection dev.kbhost.Hostile allow landlock-scope"))
        #expect(try w.run(["protection", "dev.kbhost.Hostile", "allow", "landlock-scope"], extraEnvironment: env).status == 0)
        let allowed = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "own", "neighbor", "tcp"], extraEnvironment: pretend)
        #expect(allowed.status == 0, "\(allowed.err)")
        #expect(allowed.out.contains("own: allowed"))
        #expect(allowed.out.contains("neighbor: \(SandboxTests.notHere)"), "the other protections stay")
        #expect(allowed.out.contains("tcp: \(SandboxTests.seccomp)"))
        // The allowance is for that keyboard and that protection only.
        #expect(try w.run(["type", "--keyboard", "dev.kbhost.NumberPad", "1"], extraEnvironment: pretend).status == 4)
        pretend["KBHOST_SANDBOX_PRETEND_MISSING"] = "seccomp"
        let other = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "own"], extraEnvironment: pretend)
        #expect(other.status == 4)
        #expect(other.err.contains("protection 'seccomp'"))
    }

    @Test func anX32SystemCallEndsTheKeyboardAndKeepsItsText() throws {
        let w = try world()
        let r = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "own", "x32"], extraEnvironment: env)
        #expect(r.status == 4)
        #expect(r.out.hasPrefix("own: allowed"), "what it typed before stays")
        #expect(r.err.contains("failed during key 'x32': ended by signal SIGSYS"), "\(r.err)")
    }

    @Test func theExtensionProcessRunsUnderBothFiltersWithoutCapabilities() throws {
        let keyboard = try Fixtures.sample("dev.kbhost.NumberPad")
        let session = try KeyboardSession(keyboard: keyboard, configuration: Fixtures.configuration)
        defer { session.close() }
        let status = try String(contentsOfFile: "/proc/\(session.pid)/status", encoding: .utf8)
        func field(_ name: String) -> String? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
        }
        #expect(field("Seccomp") == "2", "a seccomp filter is installed")
        #expect(field("NoNewPrivs") == "1")
        #expect(field("CapEff") == "0000000000000000")
        #expect(field("CapBnd") == "0000000000000000")
        // The host's own process is untouched.
        let mine = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        #expect(mine.contains("Seccomp:\t0"))
    }
}
