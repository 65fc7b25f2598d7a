import Foundation
import KBHost
import Testing

@Suite("Settings survive concurrency and kill -9")
struct SettingsDurabilityTests {
    /// Many kbhost processes change the settings at once; the lock must keep every update.
    @Test func concurrentEnablesAreNeverLost() throws {
        let w = try World()
        let ids = (0..<16).map { "dev.example.K\($0)" }
        for id in ids { try w.addKeyboard(id, name: id) }
        var processes: [Process] = []
        // Enablers, and a few cyclers racing them.
        for arguments in ids.map({ ["enable", $0] }) + Array(repeating: ["next"], count: 4) {
            let p = Fixtures.kbhostProcess(arguments, environment: w.environment)
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            processes.append(p)
        }
        for p in processes { try p.run() }
        for p in processes { p.waitUntilExit() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 })
        let settings = try SettingsStore(directory: w.home).load()
        #expect(Set(settings.enabled) == Set(ids + [SystemKeyboard.identifier]), "every enable landed")
        #expect(settings.enabled.contains(settings.current))
    }

    /// A writer killed with SIGKILL at random moments never leaves a file that does not load.
    @Test func killNineDuringWritesAlwaysLeavesValidSettings() throws {
        let w = try World()
        let ids = (0..<4).map { "dev.example.K\($0)" }
        for id in ids { try w.addKeyboard(id, name: id) }
        let store = SettingsStore(directory: w.home)
        var killed = 0
        for round in 0..<60 {
            let p = Fixtures.kbhostProcess(round % 2 == 0 ? ["enable"] + ids : ["disable"] + ids.prefix(2),
                                           environment: w.environment)
            p.standardError = FileHandle.nullDevice
            try p.run()
            usleep(UInt32.random(in: 0...30_000))
            if p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                killed += 1
            }
            p.waitUntilExit()
            let settings = try store.load()   // throws if the file were torn
            #expect(settings.enabled.contains(settings.current))
        }
        // No stray temporary files accumulate past the ones of killed writers.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: w.home).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.count <= killed)
        #expect(killed > 0, "the test must actually kill some writers mid-run")
    }
}
