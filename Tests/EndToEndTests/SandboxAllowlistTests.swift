import Foundation
import Glibc
import KBHost
import Testing

/// The filter is an allowlist: calls no deny list named are refused too. Each
/// attempt aims at a real target (the victim process, its group's lock file
/// and folder, the machine's page cache and kernel log), and the positive
/// control makes the same attempts in an extension process without the sandbox.
/// Part of SandboxTests' suite, so that its scenes (which bind fixed names)
/// are never set up twice at once.
extension SandboxTests {
    /// Not on the old deny list (an attacker's first tries past it), and refused now.
    static let unlisted = ["lease", "dnotify", "personality", "sync", "capget", "getsid", "sysinfo"]
    /// On the old deny list by name; now refused because nothing allows them.
    static let formerlyListed = ["syslog", "perf", "userfaultfd"]
    /// The system call behind each key, as the log names it.
    static let calls = ["lease": "fcntl", "dnotify": "fcntl", "personality": "personality", "sync": "sync", "capget": "capget",
                        "getsid": "getsid", "sysinfo": "sysinfo", "syslog": "syslog", "perf": "perf_event_open",
                        "userfaultfd": "userfaultfd"]

    /// The sandboxed attempts, each twice, then x32 so that the keyboard's log is printed with its failure.
    func attempt(_ scene: Scene, _ keys: [String]) throws -> (outcome: [String: String], log: String) {
        let r = try scene.world.run(["type", "--keyboard", "dev.kbhost.Hostile", "--text", scene.prefix] + keys + keys + ["x32"],
                                    extraEnvironment: scene.env)
        #expect(r.status == 4, "x32 ends it: \(r.err)")
        return (Scene.outcomes(r.out), r.err)
    }

    func expectRefused(_ o: [String: String], log: String, _ keys: [String]) {
        for key in keys {
            #expect(o[key] == SandboxTests.seccomp, "\(key): \(o[key] ?? "nothing")")
            let call = SandboxTests.calls[key] ?? key
            let line = "kbhost sandbox: \(call) is not allowed to keyboards" + (call == "fcntl" ? " with these arguments" : "")
            #expect(log.components(separatedBy: line + " (EPERM)").count == 2, "the filter refused \(call), said once: \(log)")
        }
    }

    @Test func callsNoDenyListNamedAreRefusedWithAndWithoutOpenAccess() throws {
        let scene = try Scene()
        scene.expectTargetsExist()
        // In two runs: a failure quotes the last 8 lines of the keyboard's log.
        let batches = [Array(SandboxTests.unlisted.prefix(5)), Array(SandboxTests.unlisted.dropFirst(5)) + SandboxTests.formerlyListed]
        for openAccess in [false, true] {
            if openAccess { #expect(try scene.world.run(["access", "dev.kbhost.Hostile", "on"], extraEnvironment: scene.env).status == 0) }
            for keys in batches {
                let (o, log) = try attempt(scene, keys)
                expectRefused(o, log: log, keys)
            }
        }
        #expect(Fixtures.processExists(scene.victim))
    }

    /// The positive control: the same keys reach their targets without the sandbox.
    @Test(.enabled(if: getuid() == 0, "leases, the kernel log and counters on another process need root's capabilities"))
    func withoutTheSandboxTheSameCallsReachTheirTargets() throws {
        let scene = try Scene()
        let o = try scene.attemptUnsandboxed(SandboxTests.unlisted + SandboxTests.formerlyListed)
        #expect(o["lease"] == "allowed: took a read lease on its group's lock file")
        #expect(o["dnotify"] == "allowed: watches its group's folder")
        #expect(o["personality"]?.hasPrefix("allowed: set READ_IMPLIES_EXEC") == true, "\(o["personality"] ?? "nothing")")
        #expect(o["sync"] == "allowed: flushed the machine's dirty pages")
        #expect(o["capget"]?.hasPrefix("allowed: read the victim's capabilities") == true, "\(o["capget"] ?? "nothing")")
        #expect(o["getsid"]?.hasPrefix("allowed: the victim's session is") == true, "\(o["getsid"] ?? "nothing")")
        if let tasks = o["sysinfo"].flatMap({ Int($0.split(separator: " ")[4]) }) {
            #expect(tasks > 3, "the machine's tasks, far more than the keyboard's own")
        } else {
            Issue.record("sysinfo: \(o["sysinfo"] ?? "nothing")")
        }
        #expect(o["syslog"]?.hasPrefix("allowed: read") == true, "\(o["syslog"] ?? "nothing")")
        #expect(o["perf"] == "allowed: counts the victim's time")
        #expect(o["userfaultfd"] == "allowed: made a userfaultfd")
    }

    /// With open access a keyboard makes UDP sockets, but may not raise their buffers: their
    /// queued datagrams are kernel memory no footprint shows (fourth red team, N5: 1.59 GB held
    /// by 200 sockets filling each other). The control: the same call outside the sandbox.
    @Test func socketBuffersCannotBeRaisedWithOpenAccess() throws {
        let scene = try Scene()
        #expect(try scene.world.run(["access", "dev.kbhost.Hostile", "on"], extraEnvironment: scene.env).status == 0)
        let (o, log) = try attempt(scene, ["udp", "rcvbuf", "rcvlowat"])
        #expect(o["udp"]?.hasPrefix("allowed") == true, "UDP itself is open: \(o["udp"] ?? "nothing")")
        #expect(o["rcvbuf"] == SandboxTests.seccomp, "\(o["rcvbuf"] ?? "nothing")")
        #expect(log.contains("kbhost sandbox: setsockopt(SO_RCVBUF) is closed to keyboards: memory held that way would escape the memory budget (EPERM)"),
                "\(log)")
        // SO_RCVLOWAT raised a TCP socket's receive buffer to 32 MiB just as well (tenth red team, N6).
        #expect(o["rcvlowat"] == SandboxTests.seccomp, "\(o["rcvlowat"] ?? "nothing")")
        #expect(log.contains("kbhost sandbox: setsockopt(SO_RCVLOWAT) is closed to keyboards"), "\(log)")
        let control = try scene.attemptUnsandboxed(["rcvbuf", "rcvlowat"])
        #expect(control["rcvbuf"]?.hasPrefix("allowed: a receive queue of") == true, "\(control["rcvbuf"] ?? "nothing")")
        #expect(control["rcvlowat"]?.hasPrefix("allowed: a receive buffer of") == true, "\(control["rcvlowat"] ?? "nothing")")
    }

    /// SO_PEERPIDFD on its channel gave a keyboard a pidfd of the host, a process outside its PID
    /// namespace (twelfth red team: every use of it was refused, but no keyboard needs one). The
    /// control: the same call outside the sandbox gets one.
    @Test func aKeyboardGetsNoPidfdOfTheHost() throws {
        let scene = try Scene()
        let (o, _) = try attempt(scene, ["peer-pidfd"])
        #expect(o["peer-pidfd"] == SandboxTests.seccomp, "\(o["peer-pidfd"] ?? "nothing")")
        let control = try scene.attemptUnsandboxed(["peer-pidfd"])
        #expect(control["peer-pidfd"]?.hasPrefix("allowed: got a pidfd of its channel's peer") == true, "\(control["peer-pidfd"] ?? "nothing")")
    }

    /// Open file description locks are closed: /proc names no process for them, so
    /// the governor could not count them as it counts record locks.
    @Test func openFileDescriptionLocksAreClosed() throws {
        let scene = try Scene()
        let (o, log) = try attempt(scene, ["ofd-lock"])
        #expect(o["ofd-lock"] == SandboxTests.seccomp, "\(o["ofd-lock"] ?? "nothing")")
        #expect(log.contains("kbhost sandbox: fcntl(F_OFD_SETLK) is closed to keyboards: memory held that way would escape the memory budget (EPERM)"),
                "\(log)")
        let control = try scene.attemptUnsandboxed(["ofd-lock"])
        #expect(control["ofd-lock"] == "allowed: took an open file description lock", "\(control["ofd-lock"] ?? "nothing")")
    }

    /// With open access, what its TCP sockets queue counts in its footprint: a server that
    /// never reads leaves each send queue at the 4 MiB the kernel grows it to on its own
    /// (no setsockopt needed), 156 MB with 40 sockets; in its own network (the relay), where a TCP
    /// buffer grows to 1 MiB, its sockets and the relay's still hold over 40 MB.
    @Test func socketQueuesCountInTheFootprintWithOpenAccess() throws {
        let scene = try Scene()
        #expect(try scene.world.run(["access", "dev.kbhost.Hostile", "on"], extraEnvironment: scene.env).status == 0)
        func run(budget: String) throws -> (status: Int32, out: String, err: String) {
            let (server, port) = try SandboxTests.quietServer(backlog: 64)  // a new one: a run fills its backlog
            defer { close(server) }
            let r = try scene.world.run(["type", "--keyboard", "dev.kbhost.Hostile", "--budget", budget, "--json", "--text",
                                         scene.prefix + "port \(port) sockets 40 ", "sockq"], extraEnvironment: scene.env)
            return (r.status, r.out, r.err)
        }
        let control = try run(budget: "512")
        #expect(control.status == 0, "the control: it runs under 512 MiB. \(control.err)")
        let json = try JSONSerialization.jsonObject(with: Data(control.out.utf8)) as? [String: Any]
        let text = json?["text"] as? String ?? ""
        let queued = Int(text.split(separator: "sockq: allowed: queued ").last?.split(separator: " ").first ?? "") ?? 0
        #expect(queued > 35_000_000, "the queues are real: \(text)")
        let peak = json?["peakFootprintBytes"] as? Int ?? 0
        #expect(peak > 35_000_000, "and in its footprint: peak \(peak) bytes")
        let killed = try run(budget: "32")
        #expect(killed.status == 4)
        #expect(killed.err.contains("failed during key 'sockq': went over its memory budget of 32.0 MiB"), "\(killed.err)")
        #expect(killed.err.contains("in its sockets' queues"), "the kill says where the memory was: \(killed.err)")
    }

    /// A TCP listener on 127.0.0.1 that accepts nothing and reads nothing. With `narrow`, what it
    /// takes in before its peers must stop is small (a 4 KiB receive buffer, a 536-byte segment,
    /// inherited by its connections): a client's data waits on the client's side.
    static func quietServer(backlog: Int32, narrow: Bool = false) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if narrow {
            var buffer: Int32 = 4096, segment: Int32 = 536
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_MAXSEG, &segment, socklen_t(MemoryLayout<Int32>.size))
        }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        try Listeners.check(withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } })
        try Listeners.check(listen(fd, backlog))
        try Listeners.check(withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) } })
        return (fd, UInt16(bigEndian: a.sin_port))
    }

    /// Two calls on its own things that reached beyond it: raising its core limit (a crash it
    /// causes itself then left a core of its whole memory in its container, or with the
    /// system's core_pattern helper outside its namespaces) and renameat2(RENAME_WHITEOUT), which
    /// leaves a character device behind (mknod by another name). Refused with and without open
    /// access; plain renames stay. The control (as root): both succeed outside the sandbox.
    @Test func noCoreFilesAndNoWhiteoutDevices() throws {
        let scene = try Scene()
        for openAccess in [false, true] {
            if openAccess { #expect(try scene.world.run(["access", "dev.kbhost.Hostile", "on"], extraEnvironment: scene.env).status == 0) }
            let (o, log) = try attempt(scene, ["core", "whiteout", "own"])
            #expect(o["core"] == SandboxTests.seccomp, "\(o["core"] ?? "nothing")")
            #expect(o["whiteout"] == SandboxTests.seccomp, "\(o["whiteout"] ?? "nothing")")
            #expect(log.contains("kbhost sandbox: renameat2 is not allowed to keyboards with these arguments (EPERM)"), "\(log)")
            #expect(o["own"]?.hasPrefix("allowed: wrote 6 bytes") == true, "its own files stay its own: \(o["own"] ?? "nothing")")
        }
        let container = scene.world.home + "/Containers/Keyboards/dev.kbhost.Hostile"
        #expect(!FileManager.default.fileExists(atPath: container + "/whiteout-from"))
        guard getuid() == 0 else { return }  // the control: a whiteout needs CAP_MKNOD, raising a hard limit CAP_SYS_RESOURCE
        let control = try scene.attemptUnsandboxed(["core", "whiteout"])
        #expect(control["core"] == "allowed: may leave core files of any size", "\(control["core"] ?? "nothing")")
        #expect(control["whiteout"] == "allowed: left a whiteout device in its container", "\(control["whiteout"] ?? "nothing")")
    }

    /// A 32-bit system call (int 0x80) ends the keyboard, as x32 does.
    @Test func anInt80SystemCallEndsTheKeyboard() throws {
        let w = try World()
        let env = ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""]
        let r = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "own", "int80"], extraEnvironment: env)
        #expect(r.status == 4)
        #expect(r.out.hasPrefix("own: allowed"), "what it typed before stays")
        #expect(r.err.contains("failed during key 'int80': ended by signal SIGSYS"), "\(r.err)")
    }
}
