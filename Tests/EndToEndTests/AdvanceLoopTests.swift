import Foundation
import Glibc
import KBHost
import Testing

/// Red team 5: a keyboard (no open access) that asks for the next keyboard as it appears and as
/// it disappears. Each request re-entered the front end's switch before the switch ended, so
/// leaving it with the globe key — or starting on it — recursed until the stack overflowed:
/// `kbhost attach` (and the IBus engine, every app's typing with it) ended with SIGSEGV.
@Suite("A keyboard asking for the next keyboard as it switches", .serialized)
struct AdvanceLoopTests {
    func world() throws -> (World, [String: String]) {
        let w = try World()
        let bundle = try w.makeBundle(id: "dev.example.Advancer", library: "libFaultKeyboards.so",
                                      principal: "AdvanceInLifeCycle", name: "Advancer")
        let env = ["KBHOST_HOME": w.home, "KBHOST_MANIFESTS": Fixtures.installation.manifestsDirectory!,
                   "KBHOST_RUNTIME_DIR": w.root + "/run"]
        #expect(try w.run(["install", bundle], extraEnvironment: env).status == 0)
        _ = try w.run(["enable", "dev.kbhost.NumberPad", "dev.example.Advancer"], extraEnvironment: env)
        return (w, env)
    }

    /// attach outlives the keyboard: it switches away from it with the globe key and keeps typing.
    @Test func attachSwitchesAwayFromItAndKeepsRunning() throws {
        let (w, env) = try world()
        defer { withExtendedLifetime(w) {} }
        _ = try w.run(["set", "dev.kbhost.NumberPad"], extraEnvironment: env)
        let t = try PseudoTerminalSession(arguments: ["attach"], environment: env)
        #expect(t.waitFor("Number Pad (dev.kbhost.NumberPad"))
        t.type("1")
        #expect(t.waitFor("1" + AttachTests.caret))
        t.press([7])  // the globe key: to the advancer, which asks for the next one as it appears
        #expect(t.waitFor("Advancer (dev.example.Advancer"), "\(t.screen.suffix(600))")
        t.type("1")
        #expect(t.waitFor("11" + AttachTests.caret))
        t.press([7])  // away from it (to the system keyboard, next in order): it asks again as it disappears
        #expect(t.waitFor("System (dev.kbhost.System"), "\(t.screen.suffix(600))")
        t.type("2")
        #expect(t.waitFor("112" + AttachTests.caret))
        t.press([27])
        t.process.waitUntilExit()
        #expect(t.process.terminationReason == .exit && t.process.terminationStatus == 0,
                "attach ended by signal \(t.process.terminationStatus)")
    }

    /// Control: a keyboard's advance from a key action (the Hostile keyboard's 🌐, outside any switch) still switches.
    @Test func anAdvanceFromAKeyStillSwitches() throws {
        let (w, env) = try world()
        defer { withExtendedLifetime(w) {} }
        _ = try w.run(["enable", "dev.kbhost.Hostile"], extraEnvironment: env)
        _ = try w.run(["set", "dev.kbhost.Hostile"], extraEnvironment: env)
        let t = try PseudoTerminalSession(arguments: ["attach"], environment: env)
        #expect(t.waitFor("(dev.kbhost.Hostile"), "\(t.screen.suffix(600))")
        t.type("🌐")
        #expect(t.waitFor("System (dev.kbhost.System"), "the next in order: \(t.screen.suffix(600))")
        t.press([27])
        t.process.waitUntilExit()
        #expect(t.process.terminationReason == .exit && t.process.terminationStatus == 0)
        #expect(try w.run(["current"], extraEnvironment: env).out != "dev.kbhost.Hostile\n", "the keyboard's advance moved on")
    }
}
