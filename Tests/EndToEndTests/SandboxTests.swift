import Foundation
import Glibc
import KBHost
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

/// Every escape, through `kbhost type --keyboard dev.kbhost.Hostile`: each
/// key inserts one line saying what happened.
@Suite("Sandbox: the hostile keyboard", .serialized)
struct SandboxTests {
    static let keys = ["tcp", "udp", "raw", "packet", "netlink", "io_uring", "neighbor", "home", "passwd", "settings",
                       "own", "group-read", "group-write", "defaults", "pasteboard", "ptrace", "signal", "procmem",
                       "vmread", "abstract", "exec", "fork"]
    static let seccomp = "Operation not permitted (errno 1)"   // the seccomp filter's answer
    static let landlock = "Permission denied (errno 13)"       // Landlock's

    /// A world whose keyboards are the bundled ones, with a neighbour's container to go after.
    func world() throws -> World {
        let w = try World()
        try FileManager.default.createDirectory(atPath: w.home + "/Containers/Keyboards/dev.kbhost.Calculator",
                                                withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: w.home + "/Containers/Keyboards/dev.kbhost.Calculator/notes"))
        #expect(try w.run(["replacements", "add", "omw", "On my way!"], extraEnvironment: env).status == 0)  // writes settings.json
        return w
    }

    var env: [String: String] { ["KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory ?? ""] }

    func attempt(_ w: World, _ listeners: Listeners) throws -> [String: String] {
        let r = try w.run(["type", "--keyboard", "dev.kbhost.Hostile", "--text", "port \(listeners.port) "] + SandboxTests.keys,
                          extraEnvironment: env)
        #expect(r.status == 0, "\(r.err)")
        var outcome: [String: String] = [:]
        for line in r.out.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            var key = String(line[..<colon])
            if key.hasPrefix("port ") { key = String(key.split(separator: " ").last!) }
            outcome[key] = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        #expect(Set(outcome.keys) == Set(SandboxTests.keys), "every attempt reported: \(r.out)")
        return outcome
    }

    @Test func withoutOpenAccessEveryEscapeIsDeniedByTheKernel() throws {
        let w = try world()
        let settingsBefore = try Data(contentsOf: URL(fileURLWithPath: w.home + "/settings.json"))
        let listeners = try Listeners()
        let o = try attempt(w, listeners)
        for key in ["tcp", "udp", "raw", "packet", "netlink", "io_uring", "ptrace", "signal", "vmread", "exec", "fork", "abstract"] {
            #expect(o[key] == "denied: \(SandboxTests.seccomp)", "\(key): \(o[key] ?? "nothing")")
        }
        for key in ["neighbor", "home", "passwd", "settings", "procmem", "group-write"] {
            #expect(o[key] == "denied: \(SandboxTests.landlock)", "\(key): \(o[key] ?? "nothing")")
        }
        #expect(o["defaults"]?.hasPrefix("denied: writing the defaults of app group 'group.dev.kbhost.Hostile' needs open access") == true)
        #expect(o["pasteboard"]?.hasPrefix("denied: reading the pasteboard needs open access") == true)
        // What it may do: its own container, and read its group.
        #expect(o["own"]?.hasPrefix("allowed: wrote 6 bytes to \(w.home)/Containers/Keyboards/dev.kbhost.Hostile/note.txt") == true)
        #expect(o["group-read"]?.hasPrefix("allowed: listed") == true)
        // The host is unaffected: nothing arrived, nothing changed.
        let got = listeners.received()
        #expect(got.tcp == nil && got.udp == nil && !got.abstract)
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.home + "/settings.json")) == settingsBefore)
        #expect(!FileManager.default.fileExists(atPath: w.home + "/Containers/Groups/group.dev.kbhost.Hostile/hostile.txt"))
        #expect(try w.run(["defaults", "group.dev.kbhost.Hostile", "read"], extraEnvironment: env).out == "")
    }

    @Test func openAccessOpensTheNetworkAndGroupWritesAndNothingElse() throws {
        let w = try world()
        #expect(try w.run(["access", "dev.kbhost.Hostile", "on"], extraEnvironment: env).status == 0)
        #expect(try w.run(["pasteboard", "write", "copied by the user"], extraEnvironment: env).status == 0)
        let listeners = try Listeners()
        let o = try attempt(w, listeners)
        #expect(o["tcp"] == "allowed: sent 7 bytes to 127.0.0.1:\(listeners.port)")
        #expect(o["udp"] == "allowed: sent 7 bytes to 127.0.0.1:\(listeners.port)")
        #expect(o["group-write"]?.hasPrefix("allowed: wrote 6 bytes") == true)
        #expect(o["defaults"] == "allowed: wrote hostile = escaped")
        #expect(o["pasteboard"] == "allowed: read \"copied by the user\"")
        for key in ["raw", "packet", "netlink", "io_uring", "ptrace", "signal", "vmread", "exec", "fork", "abstract"] {
            #expect(o[key] == "denied: \(SandboxTests.seccomp)", "\(key) stays closed: \(o[key] ?? "nothing")")
        }
        for key in ["neighbor", "home", "passwd", "settings", "procmem"] {
            #expect(o[key] == "denied: \(SandboxTests.landlock)", "\(key) stays closed: \(o[key] ?? "nothing")")
        }
        let got = listeners.received()
        #expect(got.tcp == "hostile")
        #expect(got.udp == "hostile")
        #expect(!got.abstract)
        // The containing app sees the keyboard's write.
        #expect(try w.run(["defaults", "group.dev.kbhost.Hostile", "read", "hostile"], extraEnvironment: env).out == "escaped\n")
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
        #expect(allowed.out.contains("neighbor: denied: \(SandboxTests.landlock)"), "the other protections stay")
        #expect(allowed.out.contains("tcp: denied: \(SandboxTests.seccomp)"))
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
