import ArgumentParser
import Foundation
import KBHost
import KBSystem
import KBWire
/// `kbhost doctor`: whether this machine can run keyboards as kbhost promises, and what to do if not.
struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the machine: libffi, libseccomp, seccomp, Landlock, the memory budget's mechanisms, the worker.",
        discussion: """
            Each line says what is there, or what is missing and what to do. Exits 1 when something required is missing.
            Lines marked ! are manifests in your keyboards folders that every command skips, and why; they do not change the exit status.
            """)

    @Flag(help: "Print JSON.") var json = false

    struct Check: Encodable {
        var name: String
        var ok: Bool
        var required: Bool
        /// Not about the machine: something every command skips and warns about (a manifest it cannot use).
        var warning = false
        var detail: String
    }

    func run() throws {
        var checks: [Check] = []
        func check(_ name: String, required: Bool = true, _ ok: Bool, _ detail: String, fix: String) {
            checks.append(Check(name: name, ok: ok, required: required, detail: ok ? detail : "\(detail) — \(fix)"))
        }
        let installation = Installation.current()
        check("worker", FileManager.default.isExecutableFile(atPath: installation.workerPath), installation.workerPath,
              fix: "build kbhost (swift build) or set KBHOST_PRODUCTS to the folder holding kbhost-worker")
        check("libffi", (try? Sys.openLibrary("libffi.so.8", flags: RTLD_LAZY)) != nil, "libffi.so.8 (dispatch into plugin code)",
              fix: "apt-get install libffi-dev (scripts/install-deps)")
        check("libseccomp", (try? Sys.openLibrary("libseccomp.so.2", flags: RTLD_LAZY)) != nil, "libseccomp.so.2 (the system call filter)",
              fix: "apt-get install libseccomp-dev (scripts/install-deps)")
        let kernel = Protection.kernel()
        let needs: [(SandboxSpec.Mechanism, String)] = [
            (.seccomp, "seccomp filters"), (.landlock, "Landlock filesystem rules"),
            (.landlockNetwork, "Landlock TCP rules (ABI 4, Linux 6.7)"),
            (.landlockScope, "Landlock signal and abstract-socket scoping (ABI 6, Linux 6.12)"),
            (.namespaces, "unprivileged user namespaces, with mount, PID, IPC, UTS and network namespaces in them"),
        ]
        for (m, what) in needs {
            let fix = m == .namespaces
                ? "allow unprivileged user namespaces (sysctl user.max_user_namespaces > 0; on Ubuntu, "
                  + "kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for kbhost-worker); "
                  + "or, per keyboard: kbhost protection ID allow namespaces"
                : "a newer kernel (with Landlock in lsm=); or, per keyboard: kbhost protection ID allow \(m.rawValue)"
            check("sandbox: \(m.rawValue)", kernel.available[m.rawValue] ?? false,
                  m == .landlock ? "\(what), Landlock ABI \(kernel.landlockABI)" : what, fix: fix)
        }
        // Open access in a network of its own (only keyboards with open access need it: without,
        // one starts only where the user allowed it to share the host's network).
        check("sandbox: user-network", required: false, UserNetwork.available,
              "open-access keyboards in network namespaces of their own, through slirp4netns"
                + (UserNetwork.available ? "" : ": \(UserNetwork.missingReason ?? "")"),
              fix: "apt-get install slirp4netns (scripts/install-deps), and /dev/net/tun readable and writable by you "
                + "(Debian's default); until then a keyboard with open access starts only if allowed your own network: "
                + "kbhost protection ID allow user-network")
        // What an open-access keyboard leaves in its network as it ends (connections closed with
        // data unsent) is destroyed then; a kernel that cannot leaves it to give up on its own.
        let pretendNoSweep = getenv("KBHOST_SANDBOX_PRETEND_MISSING").map { String(cString: $0).split(separator: ",").contains("socket-diagnostics") } ?? false
        let sweeps = !pretendNoSweep && SocketBuffers.destroySupported == true
        check("budget: socket-sweep", required: false, sweeps,
              "what an open-access keyboard leaves in its network is destroyed as it ends (sock_diag SOCK_DESTROY)",
              fix: "a kernel with CONFIG_INET_DIAG_DESTROY; without it such connections give up on their own after one retry, in seconds")
        var pidfdOK = false
        if let fd = try? Sys.pidfdOpen(getpid()) { pidfdOK = true; Sys.close(fd) }
        check("budget: pidfd", pidfdOK, "pidfd_open (the governor kills through pidfds)", fix: "Linux 5.3 or later")
        let status = ProcMemory.readSmallFile("/proc/self/status") ?? ""
        let fields = ["RssAnon:", "RssShmem:", "VmSwap:"].filter { status.contains($0) }
        check("budget: footprint", fields.count == 3, "/proc/PID/status RssAnon, RssShmem, VmSwap",
              fix: "a kernel with these /proc fields (4.5 or later), /proc mounted")
        let data = try? Sys.resourceLimit(Int32(RLIMIT_DATA.rawValue))
        check("budget: RLIMIT_DATA", data.map { $0.hard == UInt64(rlim_t.max) || $0.hard >= 512 << 20 } ?? false,
              "the worker's 512 MiB backstop fits under the hard limit", fix: "raise the hard RLIMIT_DATA (ulimit -Hd)")
        // The whole path: a bundled keyboard in its sandboxed extension process.
        if let keyboard = try? installation.keyboard("dev.kbhost.NumberPad") {
            var detail = "dev.kbhost.NumberPad loaded, sandboxed, and typed"
            var ok = false
            do {
                let session = try KeyboardSession(keyboard: keyboard, configuration: installation.processConfiguration)
                try session.appear()
                try session.tap("1")
                ok = session.document.text == "1"
                session.close()
            } catch { detail = "\(error)" }
            check("end to end", ok, detail, fix: "see the lines above")
        } else {
            check("end to end", required: false, false, "the bundled keyboards are not built", fix: "swift build")
        }
        // The keyboards every command sees, and the manifests they skip (as `kbhost list` warns).
        let home = SettingsStore.defaultDirectory()
        if let registry = try? KeyboardRegistry.discover(installation: installation, home: home) {
            check("keyboards", required: false, true,
                  "\(registry.keyboards.count) (the system keyboard, bundled ones, KBHOST_KEYBOARDS, \(TerminalText.line(home))/Keyboards)"
                  + (registry.problems.isEmpty ? "" : "; \(registry.problems.count) manifest(s) skipped"), fix: "")
            for problem in registry.problems {
                checks.append(Check(name: "skipped", ok: false, required: false, warning: true,
                                    detail: "\(TerminalText.line(problem)) — fix or remove it"))
            }
        }
        // The IBus engine (optional): is it registered where the user's ibus-daemon looks?
        let component = IBusInstall.componentDir(nil) + "/kbhost.xml"
        let paths = (ProcessInfo.processInfo.environment["IBUS_COMPONENT_PATH"] ?? "/usr/share/ibus/component").split(separator: ":")
        let installed = FileManager.default.fileExists(atPath: component)
        let seen = paths.contains { $0 == Substring(IBusInstall.componentDir(nil)) }
        check("ibus", required: false, installed && seen,
              installed ? "\(component), in this session's IBUS_COMPONENT_PATH" : "not registered with IBus",
              fix: installed ? "log out and in (IBUS_COMPONENT_PATH comes from ~/.config/environment.d)" : "kbhost ibus install")
        if json {
            try printJSON(checks)
        } else {
            for c in checks { Console.out("\(c.ok ? "✓" : c.required ? "✗" : c.warning ? "!" : "–") \(c.name): \(c.detail)") }
        }
        if checks.contains(where: { !$0.ok && $0.required }) { throw ExitCode(Kbhost.Exit.checkFailed) }
    }
}
