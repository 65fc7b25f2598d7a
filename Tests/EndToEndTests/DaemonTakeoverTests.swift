import Foundation
import Glibc
import KBHost
import KBSystem
import Testing

/// Who runs the daemon, and what a hostile or stuck one cannot do: a live daemon is never
/// stolen from without --replace (even when its socket file went away), --replace and --stop
/// end one that does not answer, a daemon that ends never removes its successor's socket, a
/// script holding every connection slot does not keep `kbhost next` out, and the runtime
/// folder must be the user's own. Each ends with an ordinary `kbhost next` answering in time.
@Suite("kbhost serve: one daemon at a time, taken over safely", .serialized)
struct DaemonTakeoverTests {
    /// `kbhost serve ARGS` started in the background, its standard error kept.
    static func serve(_ d: DaemonTests.Daemon, _ arguments: [String] = []) throws -> (Process, Pipe) {
        let p = Fixtures.kbhostProcess(["serve"] + arguments, environment: d.env.mapValues { $0 })
        let err = Pipe()
        p.standardError = err
        try p.run()
        return (p, err)
    }

    /// Waits until `p` ends (true) or `seconds` pass (false).
    static func ends(_ p: Process, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        return !p.isRunning
    }

    static func nextAnswersInTime(_ d: DaemonTests.Daemon) throws {
        let next = try DaemonLoadTests.within(15, d, ["next"])
        #expect(next.status == 0 && next.elapsed < 5, "kbhost next: status \(next.status) after \(next.elapsed) s")
    }

    /// The daemon's socket file removed under it (a /tmp cleaner, a careless rm): a second
    /// `serve` used to bind a new socket beside the live daemon, which then ran on unseen, and
    /// whose SIGTERM later removed the newcomer's socket. Now the second is refused, naming the pid.
    @Test func aLiveDaemonWhoseSocketWentAwayIsNotStolenFrom() throws {
        let d = try DaemonTests.Daemon()
        #expect(unlink(d.socket) == 0)
        let (second, err) = try Self.serve(d)
        defer { if second.isRunning { second.terminate(); second.waitUntilExit() } }
        let ended = Self.ends(second, within: 10)
        #expect(ended, "a second daemon started beside a live one")
        guard ended else { return }
        #expect(second.terminationStatus == 7)
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("already listens") && message.contains("pid \(d.process.processIdentifier)"), "\(message)")
        #expect(d.process.isRunning, "the live daemon goes on")

        // --replace ends it (through its lock: its socket is gone, so it cannot be asked) and takes its place.
        let (replacing, _) = try Self.serve(d, ["--replace"])
        defer { if replacing.isRunning { replacing.terminate(); replacing.waitUntilExit() } }
        #expect(Self.ends(d.process, within: 15), "--replace ended the daemon whose socket was gone")
        for _ in 0..<1000 where !UnixSocket.answers(d.socket) { usleep(10_000) }
        #expect(replacing.isRunning && UnixSocket.answers(d.socket), "and listens in its place")
        try Self.nextAnswersInTime(d)
    }

    /// A suspended daemon (kill -STOP, Ctrl-Z in its terminal) cannot be asked to stop:
    /// `serve --replace` used to give up after 5 s ("did not stop"). Now it is ended by a signal.
    @Test func replaceAndStopEndADaemonThatDoesNotAnswer() throws {
        let d = try DaemonTests.Daemon()
        kill(d.process.processIdentifier, SIGSTOP)
        defer { kill(d.process.processIdentifier, SIGCONT) }
        let (replacing, err) = try Self.serve(d, ["--replace"])
        defer { if replacing.isRunning { replacing.terminate(); replacing.waitUntilExit() } }
        let ended = Self.ends(d.process, within: 20)
        #expect(ended, "--replace ended the suspended daemon")
        guard ended else { return }
        for _ in 0..<1000 where !UnixSocket.answers(d.socket) && replacing.isRunning { usleep(10_000) }
        #expect(replacing.isRunning, "--replace took its place")
        try Self.nextAnswersInTime(d)

        // And --stop ends a suspended one too.
        kill(replacing.processIdentifier, SIGSTOP)
        defer { kill(replacing.processIdentifier, SIGCONT) }
        let stop = try d.kbhost("serve", "--stop")
        #expect(stop.status == 0, "\(stop.err)")
        #expect(stop.out.contains("ended with SIGTERM"), "\(stop.out)")
        #expect(Self.ends(replacing, within: 10))
        #expect(!FileManager.default.fileExists(atPath: d.socket), "its SIGTERM handler removed the socket once it ran")
        _ = try? err.fileHandleForReading.readToEnd()
    }

    /// A daemon ends after its socket was replaced by another's: it removes only its own.
    @Test func aDaemonEndingLeavesItsSuccessorsSocket() throws {
        let d = try DaemonTests.Daemon()
        // A socket file that is not the daemon's where its socket was.
        #expect(unlink(d.socket) == 0)
        let other = try UnixSocket.listen(d.socket)
        defer { Sys.close(other) }
        kill(d.process.processIdentifier, SIGTERM)
        d.process.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: d.socket), "SIGTERM removed a socket that was not the daemon's")
    }

    /// 900 connections that say nothing (the most the daemon keeps) used to keep every later
    /// one out for 30 s: `kbhost next` saved the settings, and no attached session heard of it.
    @Test func aScriptHoldingEveryConnectionSlotDoesNotKeepNextOut() throws {
        let d = try DaemonTests.Daemon()
        _ = try d.kbhost("enable", "dev.kbhost.Calculator")
        var subscriber = try d.connect()
        defer { Sys.close(subscriber.fd) }
        try subscriber.send(String(decoding: try DaemonLoadTests.line(["request": "subscribe", "home": d.w.home]).dropLast(), as: UTF8.self))
        #expect(try DaemonTests.receive(&subscriber, seconds: 10) != nil)
        let idle = try HeldConnections(to: d.socket, upTo: 950)
        defer { idle.close() }
        #expect(idle.count == 950)
        usleep(500_000)  // the daemon accepts them all
        try Self.nextAnswersInTime(d)
        let event = try DaemonTests.receive(&subscriber, seconds: 10)
        #expect(event?.contains("\"current\"") == true, "the subscriber hears of the change: \(event ?? "nothing")")
    }

    /// A socket of another user where the daemon's should be (a runtime folder shared by
    /// mistake, a stale path): a command would hand it the request and read its answer as the
    /// daemon's. The listener here is real and of another user (bound, then `nobody` listens,
    /// so SO_PEERCRED names nobody); the command saves the settings, warns, and sends it
    /// nothing. The control: the same listener as ourselves receives the request.
    @Test(.enabled(if: getuid() == 0, "needs to listen as another user (root; CI runs as root)"))
    func aSocketOfAnotherUserIsNotTalkedTo() throws {
        let w = try World()
        let run = w.root + "/run"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let script = """
            import os, socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.bind(sys.argv[1])
            if sys.argv[2] == "nobody":
                os.setgid(65534); os.setuid(65534)
            s.listen(8)
            print("ready", flush=True)
            s.settimeout(20)
            c, _ = s.accept()
            c.settimeout(3)
            try:
                data = c.recv(65536)
            except socket.timeout:
                data = b""
            print("got %d %s" % (len(data), data.decode(errors="replace").strip()), flush=True)
            """
        for owner in ["nobody", "root"] {
            unlink(run + "/control")
            let listener = Process()
            listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            listener.arguments = ["-c", script, run + "/control", owner]
            let out = Pipe()
            listener.standardOutput = out
            try listener.run()
            defer { if listener.isRunning { listener.terminate() }; listener.waitUntilExit() }
            var lines = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            #expect(lines.hasPrefix("ready"), "the listener: \(lines)")
            let next = try w.run(["enable", "dev.kbhost.System"], extraEnvironment: ["KBHOST_RUNTIME_DIR": run])
            #expect(next.status == 0, "the settings are saved either way: \(next.err)")
            listener.waitUntilExit()
            lines += String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            if owner == "nobody" {
                #expect(next.err.contains("belongs to another user; not talking to it"), "\(next.err)")
                #expect(lines.contains("got 0 "), "another user's listener was sent: \(lines)")
            } else {
                #expect(lines.contains("\"reload\""), "the control: our own listener gets the request: \(lines)")
            }
        }
    }

    /// The runtime folder must be the user's own and closed to others: in someone else's,
    /// they could put their own socket where the sessions look.
    @Test(.enabled(if: getuid() == 0, "only root can give a folder to another user (CI runs as root)"))
    func aRuntimeFolderOfAnotherUserIsRefused() throws {
        let d = try DaemonTests.Daemon()
        let folder = d.w.root + "/theirs"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var env = d.env
        env["KBHOST_RUNTIME_DIR"] = folder
        let control = try d.w.run(["serve", "--stop"], extraEnvironment: env)
        #expect(control.status == 7, "nothing runs there yet")
        #expect(chown(folder, 65534, 65534) == 0)
        let p = Fixtures.kbhostProcess(["serve"], environment: env.mapValues { $0 })
        let err = Pipe()
        p.standardError = err
        try p.run()
        defer { if p.isRunning { p.terminate(); p.waitUntilExit() } }
        let ended = Self.ends(p, within: 10)
        #expect(ended, "serve listened in another user's folder")
        guard ended else { return }
        #expect(p.terminationStatus == 7)
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("is not a folder of your own"), "\(message)")
        // The control: the same folder, ours again, is listened in.
        #expect(chown(folder, 0, 0) == 0)
        let ours = Fixtures.kbhostProcess(["serve"], environment: env.mapValues { $0 })
        ours.standardError = FileHandle.nullDevice
        try ours.run()
        defer { ours.terminate(); ours.waitUntilExit() }
        for _ in 0..<1000 where !UnixSocket.answers(folder + "/control") && ours.isRunning { usleep(10_000) }
        #expect(UnixSocket.answers(folder + "/control"), "the same folder, the user's own, is listened in")
    }
}
