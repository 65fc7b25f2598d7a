import Foundation
import Glibc
import KBHost
import KBSystem
import Synchronization
import Testing

/// Memory the seventh red team held out of the governor's sight, closed: a thread with a
/// descriptor table of its own, shared anonymous memory dropped from its mapping, /dev/zero
/// mapped shared, sockets of protocols /proc/net/tcp and udp do not list, and a main thread
/// that ends while another runs on. Each refusal is the filter's (EPERM) or "no such thing
/// in this namespace" for a /dev/zero that exists outside; the control makes the same
/// attempts in an extension process without the sandbox. Part of SandboxTests' suite (its
/// scenes bind fixed names).
extension SandboxTests {
    static let hiding = ["fdtable", "shared-anon", "mptcp", "udplite", "map-locked"]

    @Test func memoryOutOfTheGovernorsSightIsClosedWithAndWithoutOpenAccess() throws {
        let scene = try Scene()
        #expect(FileManager.default.fileExists(atPath: "/dev/zero"), "the target exists outside")
        for openAccess in [false, true] {
            if openAccess { #expect(try scene.world.run(["access", "dev.kbhost.Hostile", "on"], extraEnvironment: scene.env).status == 0) }
            let o = try scene.attempt(SandboxTests.hiding + ["devzero", "udp", "cmdline"])
            for key in SandboxTests.hiding {
                #expect(o[key] == SandboxTests.seccomp, "\(key) (open access \(openAccess)): \(o[key] ?? "nothing")")
            }
            #expect(o["devzero"] == "denied: No such file or directory (errno 2)", "\(o["devzero"] ?? "nothing")")
            if openAccess { #expect(o["udp"]?.hasPrefix("allowed") == true, "UDP itself stays open: \(o["udp"] ?? "nothing")") }
            // Its command line no longer names the host's pid, a pid outside its namespace (tenth red team, N6).
            #expect(o["cmdline"]?.contains("naming nothing of the host's") == true, "\(o["cmdline"] ?? "nothing")")
        }
    }

    /// The positive control: the same attempts succeed in an extension process without the sandbox.
    @Test func withoutTheSandboxTheHidingPlacesAreThere() throws {
        let scene = try Scene()
        let o = try scene.attemptUnsandboxed(["fdtable", "devzero", "map-locked"])
        #expect(o["fdtable"]?.hasPrefix("allowed: started thread") == true, "\(o["fdtable"] ?? "nothing")")
        #expect(o["map-locked"] == "allowed: locked 1 MiB in memory", "\(o["map-locked"] ?? "nothing")")
        #expect(o["devzero"] == "allowed: mapped 1 MiB of /dev/zero shared", "\(o["devzero"] ?? "nothing")")
        let kept = try scene.attemptUnsandboxed(["shared-anon"], prefix: "shared-anon 16 ")
        #expect(kept["shared-anon"] == "allowed: kept 4096 pages of shared memory out of its mapping", "\(kept["shared-anon"] ?? "nothing")")
        // Protocols the kernel may lack: the refusal above is the filter's either way (EPERM,
        // not EPROTONOSUPPORT); here the control says whether there was anything to refuse.
        let sockets = try scene.attemptUnsandboxed(["mptcp", "udplite"])
        for key in ["mptcp", "udplite"] {
            if sockets[key]?.hasPrefix("allowed: made a socket of protocol") != true {
                print("\(key): this kernel has no such sockets (\(sockets[key] ?? "nothing")); the sandbox's EPERM is still the filter's")
            }
        }
    }

    /// A main thread that ends while another thread runs on leaves the kernel showing no memory
    /// for the process: the governor ends it, naming why, before its other thread takes 64 MiB
    /// under a 30 MiB budget (before the fix: no kill until the host's deadline, the memory unseen).
    @Test func aKeyboardWhoseMainThreadEndsIsEndedByTheGovernor() throws {
        let scene = try Scene()
        let r = try scene.world.run(["type", "--keyboard", "dev.kbhost.Hostile", "--budget", "30", "--text", scene.prefix, "leader"],
                                    extraEnvironment: scene.env)
        #expect(r.status == 4)
        #expect(r.err.contains("failed during key 'leader': ended its main thread while its other threads ran on"), "\(r.err)")
    }
}

extension SandboxTests {
    /// Whether this machine lets root raise RLIMIT_RTPRIO (containers often do not: then no
    /// user here can run real-time threads, and there is nothing to refuse).
    static let realTimeCanBeAllowed: Bool = {
        var limit = rlimit()
        guard getuid() == 0, getrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), &limit) == 0 else { return false }
        let saved = limit
        limit.rlim_max = max(limit.rlim_max, 10)
        let ok = setrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), &limit) == 0
        _ = setrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), [saved])
        return ok
    }()

    /// A user allowed real-time priority (an audio group's `rtprio`) hands that limit to the
    /// keyboard's process: the worker lowers it to 0 before loading, so a keyboard's SCHED_FIFO
    /// thread cannot starve the machine. As `nobody` with RLIMIT_RTPRIO 10: `chrt -f 5` runs
    /// (the control), the keyboard's own request is refused.
    @Test(.enabled(if: realTimeCanBeAllowed, "needs root and a machine that lets RLIMIT_RTPRIO be raised (this one does not)"))
    func aUsersRealTimeAllowanceDoesNotReachTheKeyboard() throws {
        let scene = try Scene()
        let copy = try SandboxTests.productsNobodyMayRead(in: scene.world.root)
        func asNobody(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            try SandboxTests.asNobody(arguments, environment: [
                "KBHOST_HOME": scene.world.root + "/rt-home", "KBHOST_MANIFESTS": copy + "/Manifests", "KBHOST_PRODUCTS": copy,
                "KBHOST_RUNTIME_DIR": scene.world.root + "/rt-home/run", "PATH": "/usr/bin:/bin"], limits: ["/usr/bin/prlimit", "--rtprio=10:10"])
        }
        try FileManager.default.createDirectory(atPath: scene.world.root + "/rt-home", withIntermediateDirectories: true)
        chown(scene.world.root + "/rt-home", 65534, 65534)
        #expect(try asNobody(["/usr/bin/chrt", "-f", "5", "/bin/true"]).status == 0, "the control: nobody may run real-time here")
        let r = try asNobody([copy + "/kbhost", "type", "--keyboard", "dev.kbhost.Hostile", "rt"])
        #expect(Scene.outcomes(r.out)["rt"] == SandboxTests.seccomp, "\(r.out)")
    }
}

extension SandboxTests {
    static let eighth = ["hidden-dir", "umask", "md5sig", "mcast"]
    static let landlocked = ["proc-task"]

    /// The eighth red team's ways in, refused by the filter with and without open access: a
    /// folder its owner may not read (mode 0300, or a umask that takes the owner's bits), a TCP
    /// MD5 key and a multicast membership (kernel memory on a socket). The control: the same
    /// attempts succeed without the sandbox (the hidden folder's 16 MiB written where no walk
    /// can list it).
    @Test func theEighthRedTeamsHidingPlacesAreClosed() throws {
        let scene = try Scene()
        for openAccess in [false, true] {
            if openAccess { #expect(try scene.world.run(["access", "dev.kbhost.Hostile", "on"], extraEnvironment: scene.env).status == 0) }
            let o = try scene.attempt(SandboxTests.eighth + SandboxTests.landlocked)
            for key in SandboxTests.eighth {
                #expect(o[key] == SandboxTests.seccomp, "\(key) (open access \(openAccess)): \(o[key] ?? "nothing")")
            }
            #expect(o["proc-task"] == SandboxTests.landlock, "a thread's net/ and mountinfo: \(o["proc-task"] ?? "nothing")")
        }
        let control = try scene.attemptUnsandboxed(["umask", "md5sig", "mcast", "proc-task"])
        #expect(control["proc-task"]?.hasPrefix("allowed: read ") == true, "\(control["proc-task"] ?? "nothing")")
        #expect(control["umask"]?.hasPrefix("allowed: set umask 0500") == true, "\(control["umask"] ?? "nothing")")
        #expect(control["md5sig"] == "allowed: attached 1 TCP MD5 key", "\(control["md5sig"] ?? "nothing")")
        #expect(control["mcast"] == "allowed: joined 1 multicast group", "\(control["mcast"] ?? "nothing")")
        let hidden = try scene.attemptUnsandboxed(["hidden-dir"], prefix: "hidden-dir 16 ")
        #expect(hidden["hidden-dir"] == "allowed: holds 16 MiB in a folder of mode 0300", "\(hidden["hidden-dir"] ?? "nothing")")
    }

    /// Where the filter is off (a kernel without seccomp, the user allowing the keyboard to run
    /// so) a keyboard can still make such a folder; on a tmpfs home, as an ordinary user (root
    /// reads any folder), the governor's walk cannot list it, and ends the keyboard rather than
    /// trust what it can see: at once, and again at its next start while the folder stays.
    @Test(.enabled(if: getuid() == 0 && TmpfsUsage.isTmpfs("/dev/shm"), "needs root (to run as nobody) and /dev/shm on a tmpfs"))
    func aFolderTheGovernorMayNotReadEndsTheKeyboard() throws {
        let scene = try Scene()
        let copy = try SandboxTests.productsNobodyMayRead(in: scene.world.root)
        let home = "/dev/shm/kbhost-hidden-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        chown(home, 65534, 65534)
        defer { try? FileManager.default.removeItem(atPath: home) }  // root removes what nobody could not
        func asNobody(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            try SandboxTests.asNobody([copy + "/kbhost"] + arguments, environment: [
                "HOME": home, "KBHOST_HOME": home + "/h", "KBHOST_MANIFESTS": copy + "/Manifests", "KBHOST_PRODUCTS": copy,
                "KBHOST_RUNTIME_DIR": home + "/run", "KBHOST_SANDBOX_PRETEND_MISSING": "seccomp", "PATH": "/usr/bin:/bin"])
        }
        #expect(try asNobody(["protection", "dev.kbhost.Hostile", "allow", "seccomp"]).status == 0)
        let first = try asNobody(["type", "--keyboard", "dev.kbhost.Hostile", "--budget", "48", "hidden-dir"])
        #expect(first.status == 4)
        #expect(first.err.contains("a folder kbhost may not read") && first.err.contains("in its containers on a tmpfs"), "\(first.err)")
        let again = try asNobody(["type", "--keyboard", "dev.kbhost.Hostile", "--budget", "48", "own"])
        #expect(again.status == 4 && again.err.contains("a folder kbhost may not read"), "the folder stays, and so does the refusal: \(again.err)")
    }
}

extension SandboxTests {
    /// One call's edits within KBH_MAX_CALL_EDIT_WORK by count can still cost the host seconds:
    /// 32 marked-text edits at the end of a million regional indicators (each cluster boundary
    /// found by walking back over the run) held it 3.6 s a call (eighth red team, A). The check
    /// now also stops at 250 ms of the host's time and refuses the call, applying none of it.
    /// The control: the same call over a thousand regional indicators is applied.
    @Test func editsThatTakeTheHostTooLongToCheckAreRefused() throws {
        let scene = try Scene()
        let small = try scene.world.run(["type", "--keyboard", "dev.kbhost.Hostile", "--json", "--text", "ri 1 ", "ri"], extraEnvironment: scene.env)
        #expect(small.status == 0, "the control: \(small.err)")
        #expect(small.out.contains("🇦🇦"), "the thousand flags were typed")
        let large = try scene.world.run(["type", "--keyboard", "dev.kbhost.Hostile", "--text", "kept ", "own", "ri"], extraEnvironment: scene.env)
        #expect(large.status == 4)
        #expect(large.err.contains("failed during key 'ri': made 34 edits in one call whose check took the host more than 250 ms"), "\(large.err)")
        #expect(large.out.hasPrefix("kept own: allowed"), "what was typed before stays, and nothing of the refused call: \(large.out.prefix(200))")
        #expect(!large.out.contains("🇦"), "none of the refused call's edits were applied")
    }
}

extension SandboxTests {
    /// A descriptor sent over the channel to the host (SCM_RIGHTS) would wait in the host's
    /// queue, held by no process (eighth red team, H: 600 MiB of files parked so); the host's end
    /// refuses descriptors (SO_PASSRIGHTS), sandbox or not. A setsockopt level whose low 32 bits
    /// are SOL_SOCKET's passed a 64-bit "not SOL_SOCKET" rule (J); every level is now compared
    /// for equality, which fails closed. The controls: outside the sandbox the wide level raises
    /// SO_RCVBUF, and a socket pair without the option passes a descriptor.
    @Test func descriptorsCannotBeParkedWithTheHostNorOptionsReachedThroughAWideLevel() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { pair.forEach { close($0) } }
        func sendDescriptor() -> Int32 {
            var byte: UInt8 = 0
            var control = [UInt8](repeating: 0, count: 64)
            return withUnsafeMutablePointer(to: &byte) { bytePointer in
                var iov = iovec(iov_base: bytePointer, iov_len: 1)
                return control.withUnsafeMutableBytes { raw -> Int32 in
                    var msg = msghdr()
                    msg.msg_iov = withUnsafeMutablePointer(to: &iov) { $0 }
                    msg.msg_iovlen = 1
                    msg.msg_control = raw.baseAddress
                    msg.msg_controllen = 24  // CMSG_SPACE(sizeof(int)) on 64-bit
                    let header = raw.baseAddress!.assumingMemoryBound(to: cmsghdr.self)
                    header.pointee.cmsg_len = 20  // CMSG_LEN(sizeof(int))
                    header.pointee.cmsg_level = SOL_SOCKET
                    header.pointee.cmsg_type = Int32(SCM_RIGHTS)
                    (raw.baseAddress! + 16).storeBytes(of: Int32(1), as: Int32.self)
                    return sendmsg(pair[0], &msg, Int32(MSG_DONTWAIT)) >= 0 ? 0 : errno
                }
            }
        }
        #expect(sendDescriptor() == 0, "the control: a descriptor passes where the receiver takes them")
        let kernelRefuses = Sys.refuseDescriptorPassing(pair[1])
        if kernelRefuses {
            #expect(sendDescriptor() == EPERM, "refused where the receiver does not")
        } else {
            print("this kernel has no SO_PASSRIGHTS (Linux 6.16): the host's end cannot refuse descriptors")
        }
        let scene = try Scene()
        let o = try scene.attempt(["pass-fd"])
        if kernelRefuses { #expect(o["pass-fd"] == SandboxTests.seccomp, "\(o["pass-fd"] ?? "nothing")") }
        #expect(try scene.world.run(["access", "dev.kbhost.Hostile", "on"], extraEnvironment: scene.env).status == 0)
        let open = try scene.attempt(["wide-level", "pass-fd", "linger", "user-timeout"])
        #expect(open["wide-level"] == SandboxTests.seccomp, "\(open["wide-level"] ?? "nothing")")
        // SO_LINGER: a lingering close waits for its peer, and the governor, counting the socket
        // through its own copy, once held the last reference: its close waited forever (ninth red team, K).
        #expect(open["linger"] == SandboxTests.seccomp, "\(open["linger"] ?? "nothing")")
        // TCP_USER_TIMEOUT: what a connection closed with data unsent keeps once the keyboard has
        // ended, where the host cannot destroy it (fourteenth red team, F1: an hour).
        #expect(open["user-timeout"] == SandboxTests.seccomp, "\(open["user-timeout"] ?? "nothing")")
        if kernelRefuses { #expect(open["pass-fd"] == SandboxTests.seccomp, "\(open["pass-fd"] ?? "nothing")") }
        let control = try scene.attemptUnsandboxed(["wide-level", "pass-fd", "linger", "user-timeout"])
        #expect(control["linger"] == "allowed: set SO_LINGER to 1000 s", "\(control["linger"] ?? "nothing")")
        #expect(control["user-timeout"] == "allowed: set TCP_USER_TIMEOUT to 3600 s", "\(control["user-timeout"] ?? "nothing")")
        #expect(control["wide-level"] == "allowed: set SO_RCVBUF to 8388608 through a wide level", "\(control["wide-level"] ?? "nothing")")
        if kernelRefuses {
            #expect(control["pass-fd"] == SandboxTests.seccomp, "the host's end refuses with the sandbox off too: \(control["pass-fd"] ?? "nothing")")
        }
    }
}

extension SandboxTests {
    /// On a tmpfs home the governor reads every mapping of a keyboard to find deleted files it
    /// maps; 65,530 of them made each count take 2.3 s, and the pause after a slow count left
    /// 21 s between counts for every keyboard of the host (ninth red team, L). Now a keyboard
    /// with more than 4,096 mappings there is ended (16,384 still kept the counting thread busy most
    /// of a core, tenth red team, L2); the control, 2,000, runs.
    @Test(.enabled(if: TmpfsUsage.isTmpfs("/dev/shm"), "needs /dev/shm on a tmpfs"))
    func tooManyMappingsOnATmpfsHomeEndTheKeyboard() throws {
        let w = try World()
        let home = "/dev/shm/kbhost-vmas-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: home) }
        let env = ["KBHOST_HOME": home, "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? "", "KBHOST_RUNTIME_DIR": home + "/run"]
        let control = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "--text", "vmas 2000 ", "vmas"], extraEnvironment: env)
        #expect(control.status == 0, "\(control.err)")
        #expect(control.out.contains("vmas: allowed: made 2000 mappings"), "\(control.out)")
        let many = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "--text", "vmas 5000 ", "vmas"], extraEnvironment: env)
        #expect(many.status == 4)
        #expect(many.err.contains("memory mappings, more than the 4096 a keyboard may while its containers are on a tmpfs or it has open access"), "\(many.err)")
    }
}
extension SandboxTests {
    /// One key of the hostile keyboard typed with `text` before it, under `budget` MiB, with its home
    /// (`home`, removed by the caller) on /dev/shm.
    func hostileKey(_ key: String, text: String, budget: Int, home: String, json: Bool = false) throws -> (status: Int32, out: String, err: String) {
        let env = ["KBHOST_HOME": home, "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? "", "KBHOST_RUNTIME_DIR": home + "/run"]
        let r = try World().run(["type", "--keyboard", "dev.kbhost.Hostile", "--budget", "\(budget)"] + (json ? ["--json"] : [])
                                + ["--text", text, key], extraEnvironment: env)
        return (r.status, r.out, r.err)
    }

    /// The text a `--json` run typed and its peak footprint.
    func typedAndPeak(_ out: String) throws -> (text: String, peak: Int) {
        let json = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        return (json?["text"] as? String ?? "", json?["peakFootprintBytes"] as? Int ?? 0)
    }

    /// A file deleted while mapped is counted through its line in /proc/PID/maps, which the governor
    /// read no further than 64 MiB: a keyboard put its line past 1,150 lines of 61 KB (mappings of a
    /// file 60 folders deep, each folder's name 255 newlines, four bytes each there) and held 400 MiB
    /// to 1.2 GB so under a 48 MiB budget (twenty-first red team); 4,000 such lines took the kernel
    /// 0.6 s to write at every count. Now a listing past 4 MiB ends the keyboard, and what comes
    /// before it is read line by line. The control: behind 50 such lines (3 MB) the file is counted,
    /// in the footprint under 512 MiB and in the kill under 48.
    @Test(.enabled(if: TmpfsUsage.isTmpfs("/dev/shm") && getuid() == 0,
                   "needs /dev/shm on a tmpfs, and root: an ordinary user may not read a mapping's file (the keyboard is ended for keeping one)"))
    func aDeletedFileMappedPastLongLinesOfMapsIsCounted() throws {
        let home = "/dev/shm/kbhost-buried-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { Fixtures.removeTree(home) }
        let control = try hostileKey("buried", text: "buried 50 size 96 ", budget: 512, home: home, json: true)
        #expect(control.status == 0, "\(control.err)")
        let (text, peak) = try typedAndPeak(control.out)
        #expect(text.contains("buried: allowed: held 96 MiB in a deleted file mapped past 50 long lines"), "\(control.out)")
        #expect(peak > 96 << 20, "the file is in its footprint: peak \(peak) bytes")
        let over = try hostileKey("buried", text: "buried 50 size 96 ", budget: 48, home: home)
        #expect(over.status == 4 && over.err.contains("failed during key 'buried': went over its memory budget of 48.0 MiB"), "\(over.err)")
        #expect(over.err.contains("files on a tmpfs"), "the kill says where: \(over.err)")
        let padded = try hostileKey("buried", text: "buried 1150 size 96 ", budget: 512, home: home)
        #expect(padded.status == 4, "\(padded.out)")
        #expect(padded.err.contains("failed during key 'buried': kept memory mappings whose listing in /proc/PID/maps runs past 4 MiB"), "\(padded.err)")
    }

    /// A deleted file's mapping is looked up by its range after the listing is read: a keyboard
    /// that moved such mappings with mremap nonstop, listed before 3.6 MB of long lines, had each
    /// range gone by the time it was looked up, and held 384-768 MiB under a 48 MiB budget
    /// (twenty-first red team, F2). Its descriptors and mappings are read with it stopped now.
    /// The control: under 512 MiB it runs, and its peak footprint shows the files it holds.
    @Test(.enabled(if: TmpfsUsage.isTmpfs("/dev/shm") && getuid() == 0,
                   "needs /dev/shm on a tmpfs, and root: an ordinary user may not read a mapping's file (the keyboard is ended for keeping one)"))
    func deletedFilesMappedAndMovedNonstopAreCounted() throws {
        let home = "/dev/shm/kbhost-moving-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { Fixtures.removeTree(home) }
        let control = try hostileKey("moving", text: "moving 5 size 12 ", budget: 512, home: home, json: true)
        #expect(control.status == 0, "\(control.err)")
        let (text, peak) = try typedAndPeak(control.out)
        #expect(text.contains("moving: allowed: held 5 files it deleted, each by one page it moved nonstop"), "\(control.out)")
        // Past 40 MiB, at least three of the deleted files were counted as they moved (a named one is at most
        // 12 MiB); a count comes at a random time, and under load the last may come before the fifth file.
        #expect(peak > 40 << 20, "the moving files are in its footprint: peak \(peak) bytes")
        let killed = try hostileKey("moving", text: "moving 5 size 12 ", budget: 48, home: home)
        #expect(killed.status == 4, "\(killed.out)")
        #expect(killed.err.contains("failed during key 'moving': went over its memory budget of 48.0 MiB"), "\(killed.err)")
        #expect(killed.err.contains("files on a tmpfs"), "the kill says where: \(killed.err)")
        // Fourteen files take longer than the key's deadline: the host kills it, and says so. The
        // governor saw the main thread of a process that slow to go ended first, and that was
        // reported instead (two runs of three).
        let late = try hostileKey("moving", text: "moving 14 size 16 ", budget: 512, home: home)
        #expect(late.status == 4 && late.err.contains("failed during key 'moving': did not answer within 2500 ms and was killed"), "\(late.err)")
    }
}
extension SandboxTests {
    /// The governor holds each large file a count found on a tmpfs by a descriptor of its own, so
    /// that it is counted wherever it is renamed. A keyboard that deleted six such files and was then
    /// ended between two calls left them alive on those descriptors until the session's next call
    /// to it: 280 MiB in the twenty-second red team's run. They go with the kill now. The control:
    /// before the kill the host holds them (they are the keyboard's, counted).
    @Test(.enabled(if: TmpfsUsage.isTmpfs("/dev/shm"), "needs /dev/shm on a tmpfs"))
    func aKeyboardEndedBetweenCallsLeavesNoFileHeldByTheHost() throws {
        let home = "/dev/shm/kbhost-leak-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { Fixtures.removeTree(home) }
        var configuration = Fixtures.configuration
        configuration.memoryBudgetBytes = 48 << 20
        let session = try KeyboardSession(keyboard: try Fixtures.sample("dev.kbhost.Hostile"), configuration: configuration,
                                          access: KeyboardAccess(home: home))
        defer { session.close() }
        try session.appear()
        /// This process's descriptors of files deleted from the keyboard's home.
        func held() -> Int {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.filter { fd in
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? ""
                return target.hasPrefix(home) && target.hasSuffix("(deleted)")
            }.count
        }
        try session.tap("tracked-leak")
        #expect(session.document.text.contains("tracked-leak: allowed"), "\(session.document.text)")
        // Its counts held back (a test hook), so that none lets the deleted files go before the kill.
        Governor.stallCounts(of: session.pid, true)
        defer { Governor.stallCounts(of: session.pid, false) }
        var waited = 0
        while held() < 6 && waited < 100 { usleep(5_000); waited += 1 }
        #expect(held() == 6, "the control: the host holds the six files it found, once they are deleted")
        while Governor.shared.kill(of: session.pid) == nil && waited < 300 { usleep(5_000); waited += 1 }
        #expect(Governor.shared.kill(of: session.pid) != nil, "the governor ended it between calls")
        #expect(held() == 0, "and let go of its files as it did")
    }
}
extension SandboxTests {
    /// With open access a keyboard may flock; a lock belongs to the open file, and a mapping keeps
    /// the open file with no descriptor: 20,000 locks were held so, unseen by the count of locks
    /// through descriptors (tenth red team, N5). Its mappings are counted with its sockets now,
    /// and more than 4,096 end it; the control, 2,000 locks so held, runs.
    @Test func locksHeldByMappingsAreBounded() throws {
        let w = try World()
        let env = ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? "", "KBHOST_RUNTIME_DIR": w.home + "/run"]
        #expect(try w.run(["access", "dev.kbhost.Hostile", "on"], extraEnvironment: env).status == 0)
        let control = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "--text", "flocks 2000 ", "mapped-flocks"], extraEnvironment: env)
        #expect(control.status == 0, "\(control.err)")
        #expect(control.out.contains("mapped-flocks: allowed: holds 2000 locks by mappings"), "\(control.out)")
        let many = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "--text", "flocks 5000 ", "mapped-flocks"], extraEnvironment: env)
        #expect(many.status == 4)
        #expect(many.err.contains("memory mappings, more than the 4096 a keyboard may while its containers are on a tmpfs or it has open access"), "\(many.err)")
    }
}
extension SandboxTests {
    /// A hostile keyboard on a tmpfs home with a 10-s deadline per call; what `key` typed (the
    /// report in its document), its peak footprint, and the failure if it was ended.
    func unstoppableRun(_ text: String, budget: Int, home: String, deadline: Int = 10_000) throws -> (text: String, peak: Int, failure: String?) {
        var configuration = Fixtures.configuration
        configuration.memoryBudgetBytes = budget << 20
        configuration.eventDeadlineMilliseconds = deadline
        let session = try KeyboardSession(keyboard: try Fixtures.sample("dev.kbhost.Hostile"), document: TextDocument(text: text),
                                          configuration: configuration, access: KeyboardAccess(home: home))
        defer { session.close() }
        try session.appear()
        var failure: String?
        do { try session.tap("unstoppable") } catch { failure = "\(error)" }
        return (session.document.text, session.peakFootprint ?? 0, failure)
    }

    /// A count that cannot stop a keyboard within 100 ms (one of its threads in a call the kernel does
    /// not interrupt for a stop) used to read nothing it held unnamed: a file it deleted and wrote
    /// 96 MiB to while a thread sat in such a call went unseen, and a limit on such counts in a row let
    /// it do that again after one count that stopped it (a review). Such a count now reads it all the
    /// same, with every other thread stopped. The control: the call really outlasts the wait.
    @Test(.enabled(if: TmpfsUsage.isTmpfs("/dev/shm"), "needs /dev/shm on a tmpfs"))
    func aKeyboardThatCannotBeStoppedIsCountedAllTheSame() throws {
        let home = "/dev/shm/kbhost-unstoppable-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { Fixtures.removeTree(home) }
        let control = try unstoppableRun("unstoppable 1 size 96 ", budget: 512, home: home)
        #expect(control.failure == nil, "\(control.failure ?? "")")
        #expect(control.text.contains("unstoppable: allowed: kept its stops waiting 1 times"), "\(control.text)")
        let longest = control.text.split(separator: "longest ").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
        #expect(longest >= 300, "the control: its thread stayed in one call \(longest) ms, past the 100-ms wait for a stop")
        #expect(control.peak > 96 << 20, "the deleted file is in its footprint: peak \(control.peak) bytes")
        let over = try unstoppableRun("unstoppable 1 size 96 ", budget: 48, home: home)
        #expect(over.failure?.contains("went over its memory budget of 48.0 MiB") == true, "\(over.failure ?? over.text)")
    }

    /// A keyboard that keeps its stops waiting for under a second each time, again and again, is
    /// ended once they waited more than a second in all within ten (it was only when they waited
    /// that long in a row). The control: one such call, and the keyboard goes on.
    @Test(.enabled(if: TmpfsUsage.isTmpfs("/dev/shm"), "needs /dev/shm on a tmpfs"))
    func stopsKeptWaitingAgainAndAgainEndTheKeyboard() throws {
        let home = "/dev/shm/kbhost-unstoppable-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { Fixtures.removeTree(home) }
        let control = try unstoppableRun("unstoppable 1 size 0 ", budget: 48, home: home)
        #expect(control.failure == nil && control.text.contains("unstoppable: allowed"), "\(control.failure ?? control.text)")
        // (Up to thirty: each wait is charged the CPU the stalling call used meanwhile, less of each on a loaded
        // machine, where it takes more of them; on a quiet one the third or fourth ends it.)
        let again = try unstoppableRun("unstoppable 30 size 0 ", budget: 48, home: home, deadline: 60_000)
        #expect(again.failure?.contains("could not be paused to count its descriptors and mappings for over 1.0 s in all within 10 s") == true,
                "\(again.failure ?? again.text)")
    }
}
extension SandboxTests {
    /// One counting thread counts every keyboard. It used to wait up to 0.1 s for each stop of a keyboard
    /// that kept a thread in a call the kernel does not interrupt, and to ask again 2 ms later: the other
    /// keyboards were counted in between only, their counts up to 0.26 s apart (twenty-third red team), so
    /// a second keyboard of the same author filled its files that much longer before its kill. A stop is
    /// now asked and read once it has come, the others counted meanwhile. Here a real process under a
    /// 48 MiB budget with a folder on a tmpfs (counted about every 5 ms) is counted as often while the
    /// hostile keyboard keeps its stops waiting as before it did (the control).
    @Test(.enabled(if: TmpfsUsage.isTmpfs("/dev/shm"), "needs /dev/shm on a tmpfs"))
    func aKeyboardKeepingItsStopsWaitingDelaysNoOtherKeyboardsCounts() throws {
        let home = "/dev/shm/kbhost-unstoppable-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let folder = home + "-other"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { Fixtures.removeTree(home); Fixtures.removeTree(folder) }
        let process = try WatchedProcess()
        let (other, otherfd) = (process.pid, process.pidfd)
        defer { withExtendedLifetime(process) {} }
        Governor.shared.watch(pid: other, pidfd: otherfd, budget: 48 << 20)
        Governor.shared.countHeld(of: other, folders: [folder], sockets: false)
        usleep(100_000)
        func counted(during microseconds: UInt32) -> Int {
            let before = Governor.shared.heavyCounts(of: other)
            usleep(microseconds)
            return Governor.shared.heavyCounts(of: other) - before
        }
        let control = counted(during: 500_000)
        #expect(control >= 25, "the control: counted \(control) times in 0.5 s")
        // The hostile keyboard keeps its stops waiting (two calls of ~0.45 s each) on a thread of its own.
        let stalling = DispatchSemaphore(value: 0)
        let outcome = Mutex<String>("")
        Thread.detachNewThread {
            let run = try? self.unstoppableRun("unstoppable 2 size 0 ", budget: 48, home: home)
            outcome.withLock { $0 = run.map { $0.failure ?? $0.text } ?? "no session" }
            stalling.signal()
        }
        usleep(250_000)  // its session started and its first long call begun
        let meanwhile = counted(during: 500_000)
        stalling.wait()
        #expect(outcome.withLock { $0 }.contains("unstoppable"), "the keyboard ran its stalls: \(outcome.withLock { $0 })")
        #expect(meanwhile * 2 >= control, "counted \(meanwhile) times in 0.5 s meanwhile, against \(control) before")
    }

    /// A keyboard whose threads wait for a CPU is not resisting its stop: a keyboard that kept both CPUs
    /// busy (200 spinning threads) had another, idle one ended for keeping its stops waiting over 1 s in
    /// all within 10 s, and itself made current (twenty-fifth red team, D). Waits are charged by the CPU
    /// the keyboard used while it was not yet stopped. Here a real process (SCHED_IDLE, on a CPU a
    /// spinning thread of the test keeps busy, with a folder on a tmpfs so that every count stops it)
    /// is watched for three seconds and not ended; the control: stopping it really takes over 0.1 s.
    @Test(.enabled(if: TmpfsUsage.isTmpfs("/dev/shm") && sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2, "needs /dev/shm on a tmpfs and 2 CPUs"))
    func aKeyboardKeptFromTheCPUIsNotChargedForItsStops() throws {
        let folder = "/dev/shm/kbhost-starved-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { Fixtures.removeTree(folder) }
        let process = try WatchedProcess()
        let (victim, pidfd) = (process.pid, process.pidfd)
        defer { withExtendedLifetime(process) {} }
        // The victim on CPU 1 at the lowest priority, and threads of the test spinning there.
        try Sys.setAffinity(of: victim, 0b10)  // CPU 1
        var idle = sched_param(sched_priority: 0)
        #expect(sched_setscheduler(victim, 5 /* SCHED_IDLE */, &idle) == 0)
        let spinning = Atomic<Bool>(true)
        for _ in 0..<8 {  // (one CPU's worth of load, in eight threads: its turn comes that much later)
            Thread {
                try? Sys.setAffinity(of: 0, 0b10)
                while spinning.load(ordering: .relaxed) {}
            }.start()
        }
        defer { spinning.store(false, ordering: .relaxed) }
        usleep(50_000)
        // The control: a stop of it takes over 0.1 s to come, and it uses next to no CPU meanwhile.
        var stop = try #require(ProcessPause.Stop.begin(pid: victim, pidfd: pidfd, within: 1_000_000_000))
        while !stop.check() && !stop.expired(at: Sys.monotonicNanoseconds()) { usleep(1000) }
        let took = Sys.monotonicNanoseconds() - stop.asked
        let charged = stop.resisted()
        stop.end(pidfd: pidfd)
        #expect(took > 100_000_000, "the control: its stop came after \(took / 1_000_000) ms")
        #expect(charged < 20_000_000, "it used \(charged / 1_000_000) ms of CPU meanwhile")
        // Watched, with its folder counted (and it stopped) at every count, for three seconds.
        Governor.shared.watch(pid: victim, pidfd: pidfd, budget: 48 << 20)
        Governor.shared.countHeld(of: victim, folders: [folder], sockets: false)
        let counts = Governor.shared.heavyCounts(of: victim)
        sleep(3)
        #expect(Governor.shared.kill(of: victim) == nil, "\(String(describing: Governor.shared.kill(of: victim)))")
        #expect(Governor.shared.heavyCounts(of: victim) - counts >= 10, "it was counted meanwhile")
    }
}
