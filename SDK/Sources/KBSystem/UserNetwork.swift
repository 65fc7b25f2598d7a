import CKBShims
import Glibc
import Synchronization

/// The network of a keyboard with open access, in user space: slirp4netns gives the keyboard's
/// own network namespace a tap device and relays its TCP and UDP through sockets of its own,
/// outside. Every socket the keyboard ever made then lives in a namespace that holds nothing
/// else, so /proc/PID/net's tables list all of them (a socket closed with unsent data, which
/// belongs to no process, and one closed while another thread still reads it, included), and
/// what the relay holds for it is one process's, the relay's. In the host's namespace neither
/// could be told from any other program's (seventh red team, F3; eighth, I).
///
/// The host's own 127.0.0.1 is reachable from inside as `gatewayAddress`, as it was to a
/// keyboard that shared the host's namespace; the namespace's own 127.0.0.1 is the keyboard's.
public final class UserNetwork: Sendable {
    /// The relay's process, and a pidfd of it (to take its sockets: `SocketBuffers`).
    public let pid: Int32
    public let pidfd: Int32
    /// Its footprint when it was ready: what it holds above that is the keyboard's traffic.
    public let baseline: Int
    /// Closing it tells the relay to end (slirp4netns --exit-fd); it ends with the host too.
    /// -1 once stopped: `stop` may come from the exit watcher's thread and the owner's at once.
    private let exitFD: Atomic<Int32>

    /// The relay's executable, where Debian's `slirp4netns` package puts it.
    public static let executable: String? = ["/usr/bin/slirp4netns", "/usr/local/bin/slirp4netns", "/bin/slirp4netns"]
        .first { access($0, X_OK) == 0 }
    /// The most descriptors (its sockets among them) the relay may have.
    public static let descriptorLimit = 1024
    /// The address of the host's 127.0.0.1 inside the keyboard's namespace.
    public static let gatewayAddress = "10.0.2.2"

    /// Whether open-access keyboards get a network namespace of their own: the relay is
    /// installed, this user may open the tap device it needs (/dev/net/tun: 0666 on Debian,
    /// some containers keep it root's), and the tests' KBHOST_SANDBOX_PRETEND_MISSING does not
    /// name `user-network`.
    public static var available: Bool { missingReason == nil }

    /// Why open-access keyboards share the host's network here (nil: they do not).
    public static var missingReason: String? {
        if let pretend = getenv("KBHOST_SANDBOX_PRETEND_MISSING"),
           String(cString: pretend).split(separator: ",").contains("user-network") { return "KBHOST_SANDBOX_PRETEND_MISSING names user-network" }
        if executable == nil { return "slirp4netns is not installed (Debian: apt-get install slirp4netns)" }
        if access("/dev/net/tun", R_OK | W_OK) != 0 { return "this user may not open /dev/net/tun" }
        return nil
    }

    /// Starts the relay for the network namespace (and user namespace) of process `target`
    /// and waits until the namespace's interface is up, at most `deadlineMilliseconds`.
    public init(for target: Int32, deadlineMilliseconds: Int) throws(SystemError) {
        guard let executable = UserNetwork.executable else { throw SystemError("slirp4netns is not installed", errno: ENOENT) }
        let (readyRead, readyWrite) = try Sys.pipe()
        let exitRead: Int32, exitWrite: Int32
        do { (exitRead, exitWrite) = try Sys.pipe() } catch {
            Sys.close(readyRead); Sys.close(readyWrite)
            throw error
        }
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { Sys.close(null); Sys.close(readyWrite); Sys.close(exitRead) }
        // The relay reads what the keyboard sends: under a seccomp filter of its own, and run as
        // root in a mount namespace of its own with its capabilities dropped too (its
        // --enable-sandbox needs root: as an ordinary user it fails at setegid(0), and the user's
        // relay has nothing of root's to lose).
        let arguments = [executable, "--configure", "--mtu=65520", "--ready-fd=3", "--exit-fd=4", "--enable-seccomp"]
            + (geteuid() == 0 ? ["--enable-sandbox"] : []) + [String(target), "tap0"]
        let spawned: Int32
        do {
            spawned = try Spawn.spawn(path: executable, arguments: arguments, environment: ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"],
                                      files: [.init(null, as: 1), .init(null, as: 2), .init(readyWrite, as: 3), .init(exitRead, as: 4)])
        } catch {
            Sys.close(readyRead); Sys.close(exitWrite)
            throw error
        }
        pid = spawned
        exitFD = Atomic(exitWrite)
        do {
            pidfd = try Sys.pidfdOpen(spawned)
        } catch {
            _ = Glibc.kill(spawned, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(spawned, &status, 0)
            Sys.close(readyRead); Sys.close(exitWrite)
            throw error
        }
        defer { Sys.close(readyRead) }
        // Each of the keyboard's connections and UDP flows is a socket of the relay's, and every
        // count walks them: 8,000 UDP flows made each count take half a second (eleventh red team,
        // F2). A keyboard has 256 descriptors; its relay, 1,024.
        _ = kbs_limit_descriptors(spawned, UInt(UserNetwork.descriptorLimit))
        // Ready: it writes "1" once the interface is configured; it ends (end of file) if it cannot.
        var fds = [pollfd(fd: readyRead, events: Int16(POLLIN), revents: 0)]
        let start = Sys.monotonicNanoseconds()
        var ready = false
        while true {
            let left = Int64(deadlineMilliseconds) - (Sys.monotonicNanoseconds() - start) / 1_000_000
            guard left > 0 else { break }
            guard (try? Sys.poll(&fds, timeoutMilliseconds: Int32(left))) ?? 0 > 0 else { continue }
            var byte: UInt8 = 0
            ready = Glibc.read(readyRead, &byte, 1) == 1
            break
        }
        baseline = FootprintReader(pid: spawned)?.read()?.total ?? 0
        guard ready else {
            stop()
            throw SystemError("slirp4netns did not bring up the keyboard's network within \(deadlineMilliseconds) ms", errno: ETIMEDOUT)
        }
    }

    deinit { stop() }

    /// What `stop` sweeps, once the keyboard has ended: a sock_diag socket made in its network and
    /// a pidfd of the keyboard's process (both this relay's own; see `sweepsOnStop`).
    private let sweep = Mutex<(diagnostics: Int32, keyboard: Int32)?>(nil)

    /// At `stop`, once the keyboard's process (`keyboardPidfd`) has ended, every TCP socket left in
    /// its network is destroyed through `diagnostics` (sock_diag, made in that network). A keyboard
    /// that ends, or is killed, with data still unsent on its connections leaves them to the kernel as
    /// orphans in a network with no process and, once the relay is gone, no way out: they held 173
    /// MiB for two minutes after a kill, counted by nobody (fourteenth red team, F1). Takes both
    /// descriptors (closed at `stop`).
    public func sweepsOnStop(diagnostics: Int32, keyboardPidfd: Int32) {
        let old = sweep.withLock { s in defer { s = (diagnostics, keyboardPidfd) }; return s }
        if let old { Sys.close(old.diagnostics); Sys.close(old.keyboard) }
    }

    /// Ends the relay and reaps it: its sockets close with it. Where the keyboard's network is
    /// known (`sweepsOnStop`), its TCP sockets left behind go first, their resets through the relay.
    public func stop() {
        sweep.withLock { pending in
            // Under the lock: a second `stop` (the exit watcher's and the host's race) returns once it is done.
            guard let s = pending else { return }
            pending = nil
            // The keyboard is gone or going (this runs once it was reaped or killed): its end first,
            // so that what it closed last is in the tables.
            var fds = [pollfd(fd: s.keyboard, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, 1000)
            // Best effort: a kernel that cannot destroy them (`kbhost doctor`: budget: socket-sweep) leaves
            // them one retry (the network's tcp_orphan_retries).
            _ = try? SocketBuffers.destroyConnections(inNamespaceOf: s.diagnostics)
            Sys.close(s.diagnostics)
            Sys.close(s.keyboard)
        }
        let fd = exitFD.exchange(-1, ordering: .acquiringAndReleasing)
        guard fd >= 0 else { return }
        Sys.close(fd)
        _ = try? Sys.pidfdSendSignal(pidfd, SIGKILL)
        _ = try? Sys.reap(pidfd: pidfd, wait: true)
        Sys.close(pidfd)
    }
}
