import Foundation
import Glibc
import KBHost
import KBSystem
import KBText
import Synchronization
import Testing

/// Every escape, through `kbhost type --keyboard dev.kbhost.Hostile`: each
/// key inserts one line saying what happened. A refusal counts only as EPERM,
/// EACCES, EROFS, SIGSYS, or ENOENT for a target that provably exists outside.
@Suite("Sandbox: the hostile keyboard", .serialized)
struct SandboxTests {
    /// The host's 127.0.0.1 as an open-access keyboard reaches it (`UserNetwork.gatewayAddress`
    /// in a network namespace of its own).
    static var hostAddress: String { UserNetwork.available ? UserNetwork.gatewayAddress : "127.0.0.1" }
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
        #expect(o["tcp"] == "allowed: sent 7 bytes to \(SandboxTests.hostAddress):\(scene.listeners.port)")
        #expect(o["udp"] == "allowed: sent 7 bytes to \(SandboxTests.hostAddress):\(scene.listeners.port)")
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

    /// kbhost, its worker and the hostile keyboard copied where `nobody` may read and run them (a
    /// checkout may lie in a folder only its owner reads, as a fresh clone under `mktemp -d` does):
    /// the copy's folder, with `Manifests/Hostile` beside the binaries (`KBHOST_PRODUCTS` names it).
    static func productsNobodyMayRead(in root: String) throws -> String {
        let products = Fixtures.installation.productsDirectory
        let copy = root + "/nobody"
        let bundle = copy + "/Manifests/Hostile"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        for file in ["kbhost", "kbhost-worker", "libHostileKeyboard.so"] {
            try FileManager.default.copyItem(atPath: products + "/" + file, toPath: copy + "/" + file)
        }
        try FileManager.default.copyItem(atPath: (Fixtures.installation.manifestsDirectory ?? "") + "/Hostile/Info.plist",
                                         toPath: bundle + "/Info.plist")
        for path in [root, copy, copy + "/Manifests", bundle] { chmod(path, 0o755) }
        return copy
    }

    /// `command` run as nobody (setpriv; behind `limits`, a prlimit command line, when given):
    /// its status, standard output and error.
    static func asNobody(_ command: [String], environment: [String: String],
                         limits: [String] = []) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        let setpriv = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        let argv = limits + setpriv + command
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text, errors)
    }

    /// CI runs as root, which changes several answers: the same attempts as an
    /// ordinary user (nobody), from a copy of the products nobody can read.
    @Test(.enabled(if: getuid() == 0, "already an ordinary user: the other tests are this test (CI runs as root)"))
    func asAnOrdinaryUserTheSameAttemptsAreDenied() throws {
        let scene = try Scene()
        let copy = try SandboxTests.productsNobodyMayRead(in: scene.world.root)
        let home = scene.world.root + "/nobody-home"  // not inside the products: those the keyboard may read
        try FileManager.default.createDirectory(atPath: home + "/Containers/Keyboards/dev.kbhost.Calculator", withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: home + "/Containers/Keyboards/dev.kbhost.Calculator/notes"))
        for path in [home, home + "/Containers", home + "/Containers/Keyboards", home + "/Containers/Keyboards/dev.kbhost.Calculator"] {
            chown(path, 65534, 65534)
        }
        // A victim of the same (ordinary) user.
        let victim = try Spawn.spawn(path: "/usr/bin/setpriv", arguments: ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                                                          "/bin/sleep", "60"], environment: [], files: [])
        defer { kill(victim, SIGKILL); var s: Int32 = 0; waitpid(victim, &s, 0) }
        let environment = ["KBHOST_HOME": home, "KBHOST_PRODUCTS": copy, "KBHOST_MANIFESTS": copy + "/Manifests",
                           "KBHOST_RUNTIME_DIR": home + "/run", "PATH": "/usr/bin:/bin"]
        /// `kbhost ARGUMENTS` from the copy, as nobody: its status, standard output and error.
        func asNobody(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            try SandboxTests.asNobody([copy + "/kbhost"] + arguments, environment: environment)
        }
        let keys = SandboxTests.filtered.filter { $0 != "abstract" } + ["neighbor", "passwd", "procmem", "own", "env", "cwd", "fds", "threads"]
            + SandboxTests.hiding + ["devzero"]
        let (status, text, errors) = try asNobody(["type", "--keyboard", "dev.kbhost.Hostile", "--text", "port 9 victim \(victim) "] + keys)
        #expect(status == 0, "\(errors)")
        let o = Scene.outcomes(text)
        for key in SandboxTests.filtered where key != "abstract" { #expect(o[key] == SandboxTests.seccomp, "\(key): \(o[key] ?? "nothing")") }
        for key in ["neighbor", "passwd", "procmem", "devzero"] { #expect(o[key] == SandboxTests.notHere, "\(key): \(o[key] ?? "nothing")") }
        for key in SandboxTests.hiding { #expect(o[key] == SandboxTests.seccomp, "\(key): \(o[key] ?? "nothing")") }
        #expect(o["own"]?.hasPrefix("allowed: wrote 6 bytes") == true, "\(o["own"] ?? "")")
        #expect(o["cwd"] == "allowed: \(home)/Containers/Keyboards/dev.kbhost.Hostile")
        #expect(o["fds"] == "allowed: 0 1 2 3")
        // Threads are bounded in its user namespace (RLIMIT_NPROC; the kernel exempts root, so only here).
        #expect(o["threads"]?.hasPrefix("denied: started 25") == true, "\(o["threads"] ?? "")")
        #expect(Fixtures.processExists(victim))
        // What its descriptors hold is counted for an ordinary user too: the governor reads a
        // keyboard's fdinfo across its user namespace.
        let locks = try asNobody(["type", "--keyboard", "dev.kbhost.Hostile", "--budget", "10", "--text", "locks 60000 ", "locks"])
        #expect(locks.status == 4)
        #expect(locks.err.contains("file locks, more than the 4096 a keyboard may hold"), "\(locks.err)")
        // And a main thread that ends with another running on is seen as an ordinary user too.
        let leader = try asNobody(["type", "--keyboard", "dev.kbhost.Hostile", "--budget", "30", "leader"])
        #expect(leader.status == 4)
        #expect(leader.err.contains("ended its main thread while its other threads ran on"), "\(leader.err)")
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
        // With open access it is taken too where the keyboard gets a network of its own through
        // the relay (`UserNetwork`), which is brought up in it; else not: the spare has no network.
        waited = 0
        while SpareProcesses.shared.readyPID(like: closed) == nil && waited < 2000 { usleep(1000); waited += 1 }
        let next = SpareProcesses.shared.readyPID(like: closed)
        let open = try KeyboardSession(keyboard: hostile, document: TextDocument(text: scene.prefix), configuration: config,
                                       hasFullAccess: true, access: access)
        if UserNetwork.available { #expect(open.pid == next) } else { #expect(open.pid != next) }
        try open.appear()
        try open.tap("tcp")
        #expect(Scene.outcomes(open.document.text)["tcp"] == "allowed: sent 7 bytes to \(SandboxTests.hostAddress):\(scene.listeners.port)")
        open.close()
        SpareProcesses.shared.drain()
    }

    /// The next spare starts once the keyboard that launched has appeared, not
    /// while it loads (the two would share the CPU: the load took 2.4× the
    /// spawn+dlopen floor instead of 1.1× on two cores, kbhost-bench --only 2).
    @Test func theNextSpareStartsAfterTheKeyboardAppears() throws {
        let scene = try Scene()
        var config = Fixtures.configuration
        config.keepSpare = true
        var kind = config
        kind.privateNetwork = true
        let access = KeyboardAccess(home: scene.world.home)
        SpareProcesses.shared.drain()
        var waited = 0
        while SpareProcesses.shared.isReadyOrPreparing(like: kind) && waited < 2000 { usleep(1000); waited += 1 }
        let session = try KeyboardSession(keyboard: try Fixtures.sample("dev.kbhost.NumberPad"), configuration: config, access: access)
        #expect(!SpareProcesses.shared.isReadyOrPreparing(like: kind), "no spare starts during the load")
        try session.appear()
        #expect(SpareProcesses.shared.isReadyOrPreparing(like: kind), "the next spare starts once it appeared")
        session.close()
        waited = 0
        while SpareProcesses.shared.readyPID(like: kind) == nil && waited < 2000 { usleep(1000); waited += 1 }
        #expect(SpareProcesses.shared.readyPID(like: kind) != nil)
        SpareProcesses.shared.drain()
    }
}
