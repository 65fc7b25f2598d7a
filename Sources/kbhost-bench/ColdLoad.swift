import Foundation
import KBHost
import KBSystem

/// One keyboard's cold loads in one placement.
struct LoadRow {
    var id: String
    var placement: Placement
    var ours: Samples
    var oursTeardown: Samples
    var floor: Samples
    var floorTeardown: Samples
    /// The same loads with the sandbox off (KeyboardAccess(sandboxed: false)), interleaved.
    var unsandboxed: Samples
    /// The same sandboxed loads taking a prepared spare (spawned, in its namespaces, handshake done), interleaved.
    var withSpare: Samples
    /// kbhost's p50 over the floor's, per block of consecutive loads; and the same taking a spare.
    var ratios: BlockRatios
    var spareRatios: BlockRatios
    /// What the namespaces, seccomp, Landlock and the containers add to a cold load, p50, ms.
    var sandboxAddedMs: Double { (ours.p50 - unsandboxed.p50) / 1e6 }

    func json(target: Double) -> [String: Any] {
        ["ours": ours.jsonMilliseconds(), "ours_close": oursTeardown.jsonMilliseconds(), "floor": floor.jsonMilliseconds(),
         "floor_close": floorTeardown.jsonMilliseconds(),
         "ratio_p50": (ours.p50 / floor.p50 * 1000).rounded() / 1000, "block_ratio": ratios.json(),
         "target_ratio": target, "fresh_process_within_target": ratios.median <= target,
         "unsandboxed": unsandboxed.jsonMilliseconds(), "with_spare": withSpare.jsonMilliseconds(),
         "with_spare_ratio_p50": (withSpare.p50 / floor.p50 * 1000).rounded() / 1000,
         "with_spare_block_ratio": spareRatios.json(), "met": spareRatios.median <= target,
         "sandbox_added_ms_p50": (sandboxAddedMs * 1000).rounded() / 1000]
    }
}

/// `warmup` + `loads` rounds of four loads, one after the other: kbhost sandboxed (as the CLI
/// runs keyboards, with a container), kbhost unsandboxed, the floor, kbhost taking a spare.
/// The ratios are taken per block of `block` rounds.
func measureColdLoads(keyboard k: LoadableKeyboard, installation: Installation, floorPath: String, home: String,
                      warmup: Int, loads: Int, block: Int, placement: Placement) throws -> LoadRow {
    var ours: (load: [Int64], teardown: [Int64]) = ([], []), floor: (load: [Int64], teardown: [Int64]) = ([], [])
    var bare: [Int64] = [], spared: [Int64] = []
    var spareConfiguration = installation.processConfiguration
    spareConfiguration.keepSpare = true
    // The spare kind is the configuration as KeyboardSession launches it: sandboxed, and without
    // open access in a network namespace of its own. Waiting on any other kind waits the full second.
    spareConfiguration.privateNetwork = true
    SpareProcesses.shared.prepare(like: spareConfiguration)
    let sandboxed = KeyboardAccess(home: home)
    let unsandboxed = KeyboardAccess(home: home, sandboxed: false)
    var ratios = BlockRatios(), spareRatios = BlockRatios()
    for i in 0..<(warmup + loads) {
        let o = try coldLoad(keyboard: k, configuration: installation.processConfiguration, access: sandboxed)
        let u = try coldLoad(keyboard: k, configuration: installation.processConfiguration, access: unsandboxed)
        let f = try floorColdLoad(floorPath: floorPath, pluginPath: k.libraryPath)
        var waited = 0
        while !SpareProcesses.shared.isReady(like: spareConfiguration) && waited < 1000 { usleep(1000); waited += 1 }
        let p = try coldLoad(keyboard: k, configuration: spareConfiguration, access: sandboxed)
        guard i >= warmup else { continue }
        spared.append(p.load)
        ours.load.append(o.load); ours.teardown.append(o.teardown)
        bare.append(u.load)
        floor.load.append(f.load); floor.teardown.append(f.teardown)
        if ours.load.count % block == 0 {
            ratios.add(ours: Array(ours.load.suffix(block)), floor: Array(floor.load.suffix(block)))
            spareRatios.add(ours: Array(spared.suffix(block)), floor: Array(floor.load.suffix(block)))
        }
    }
    return LoadRow(id: k.identifier, placement: placement, ours: Samples(ours.load), oursTeardown: Samples(ours.teardown),
                   floor: Samples(floor.load), floorTeardown: Samples(floor.teardown), unsandboxed: Samples(bare),
                   withSpare: Samples(spared), ratios: ratios, spareRatios: spareRatios)
}
