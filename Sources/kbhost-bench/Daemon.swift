import Foundation
import Glibc
import KBHost
import KBSystem

/// How fast a `next` reaches an attached session through `kbhost serve`:
/// (a) the settings written and a reload request on the control socket until a
/// subscriber has the event, and (b) the whole `kbhost next` command (process
/// start included) until then.
struct DaemonFigures {
    var socket: Samples
    var command: Samples

    static func measure(kbhost: String, requests: Int, commands: Int) throws -> DaemonFigures {
        let root = try AtomicFile.makeTemporaryFolder(prefix: "kbhost-bench-daemon")  // mkdtemp: never a folder another user made
        defer { try? FileManager.default.removeItem(atPath: root) }
        let home = root + "/home", run = root + "/run"
        var env = ProcessInfo.processInfo.environment
        env["KBHOST_HOME"] = home
        env["KBHOST_RUNTIME_DIR"] = run
        env["KBHOST_KEYBOARDS"] = nil
        try SettingsStore(directory: home).update { s in
            s.enabled = [SystemKeyboard.identifier, "dev.kbhost.NumberPad", "dev.kbhost.Calculator"]
        }
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: kbhost)
        daemon.arguments = ["serve"]
        daemon.environment = env
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer { daemon.terminate(); daemon.waitUntilExit() }
        var fd: Int32?
        for _ in 0..<500 where fd == nil {
            fd = UnixSocket.connect(run + "/control")
            if fd == nil { usleep(10_000) }
        }
        guard let subscriberFD = fd else { throw BenchError("kbhost serve did not start listening") }
        var subscriber = LineChannel(fd: subscriberFD)
        defer { Sys.close(subscriberFD) }
        func json(_ object: [String: Any]) -> String {
            String(decoding: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(), as: UTF8.self)
        }
        try subscriber.send(json(["request": "subscribe", "home": home]))
        _ = try subscriber.receive()

        var socketSamples: [Int64] = []
        for i in 0..<(requests + 10) {
            guard let c = UnixSocket.connect(run + "/control") else { throw BenchError("cannot connect to the daemon") }
            var client = LineChannel(fd: c)
            let start = Sys.monotonicNanoseconds()
            try SettingsStore(directory: home).update { s in
                s.current = s.enabled[((s.enabled.firstIndex(of: s.current) ?? 0) + 1) % s.enabled.count]
            }
            try client.send(json(["request": "reload", "home": home]))
            guard let event = try subscriber.receive(), event.contains("\"current\"") else {
                throw BenchError("the subscriber got no event")
            }
            let elapsed = Sys.monotonicNanoseconds() - start
            _ = try client.receive()
            Sys.close(c)
            if i >= 10 { socketSamples.append(elapsed) }
        }

        var commandSamples: [Int64] = []
        for i in 0..<(commands + 2) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: kbhost)
            p.arguments = ["next"]
            p.environment = env
            p.standardOutput = FileHandle.nullDevice
            let start = Sys.monotonicNanoseconds()
            try p.run()
            guard let event = try subscriber.receive(), event.contains("\"current\"") else {
                throw BenchError("the subscriber got no event")
            }
            let elapsed = Sys.monotonicNanoseconds() - start
            p.waitUntilExit()
            if i >= 2 { commandSamples.append(elapsed) }
        }
        return DaemonFigures(socket: Samples(socketSamples), command: Samples(commandSamples))
    }
}
