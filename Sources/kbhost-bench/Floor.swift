import Foundation
import KBSystem

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One `kbhost-floor` child with a socketpair end on its fd 3: the floors the
/// benchmark measures kbhost against (the same spawn path and channel, none of the work).
final class FloorProcess {
    let pid: pid_t
    private(set) var socket: Int32
    private var reaped = false

    /// Spawns `kbhost-floor ARGUMENTS…` as ExtensionProcess spawns the worker.
    init(floorPath: String, arguments: [String]) throws {
        let (parentEnd, childEnd) = try Sys.socketPair()
        let child: Int32
        do {
            // Above 3, so that dup2 onto 3 clears close-on-exec.
            child = try Sys.duplicate(childEnd, atLeast: 10)
        } catch {
            Sys.close(parentEnd); Sys.close(childEnd)
            throw error
        }
        Sys.close(childEnd)
        do {
            pid = try Spawn.spawn(path: floorPath, arguments: [floorPath] + arguments,
                                  environment: Spawn.currentEnvironment(), files: [.init(child, as: 3)])
        } catch {
            Sys.close(parentEnd); Sys.close(child)
            throw error
        }
        Sys.close(child)
        socket = parentEnd
    }

    deinit { finish() }

    /// Reads exactly `buffer.count` bytes (blocking).
    func readExactly(_ buffer: UnsafeMutableRawBufferPointer) throws {
        var offset = 0
        while offset < buffer.count {
            let n = try Sys.read(socket, into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]))
            if n == 0 { throw BenchError("kbhost-floor (pid \(pid)) closed its channel early") }
            offset += n
        }
    }

    /// Waits for the dlopen floor's one "ready" byte.
    func waitReady() throws {
        var byte: UInt8 = 0
        try withUnsafeMutableBytes(of: &byte) { try readExactly($0) }
        guard byte == UInt8(ascii: "r") else { throw BenchError("kbhost-floor sent \(byte), not 'r'") }
    }

    /// Closes the channel (the floor then exits) and reaps the child.
    @discardableResult
    func finish() -> Int32 {
        Sys.close(socket)
        socket = -1
        guard !reaped else { return 0 }
        reaped = true
        return (try? Sys.waitForChild(pid)) ?? 0
    }
}

/// Raw ping-pong with `kbhost-floor echo`: `messageBytes` out, the same count back.
final class PingPong {
    private let floor: FloorProcess
    private let message: [UInt8]
    private var reply: [UInt8]

    init(floorPath: String, messageBytes: Int) throws {
        floor = try FloorProcess(floorPath: floorPath, arguments: ["echo"])
        message = [UInt8](repeating: 0x5a, count: messageBytes)
        reply = [UInt8](repeating: 0, count: messageBytes)
    }

    /// `count` timed round trips.
    func block(_ count: Int) throws -> [Int64] {
        var samples: [Int64] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let start = Sys.monotonicNanoseconds()
            try Sys.sendAll(floor.socket, message)
            try reply.withUnsafeMutableBytes { try floor.readExactly($0) }
            samples.append(Sys.monotonicNanoseconds() - start)
        }
        guard reply == message else { throw BenchError("kbhost-floor echo returned other bytes") }
        return samples
    }

    var pid: Int32 { floor.pid }
    func finish() { floor.finish() }
}

/// Spawn + dlopen floor, once: from nothing to the floor's "ready" byte, and
/// apart from it the teardown (close + reap). Nanoseconds.
func floorColdLoad(floorPath: String, pluginPath: String) throws -> (load: Int64, teardown: Int64) {
    var floor: FloorProcess?
    let load = try timed {
        floor = try FloorProcess(floorPath: floorPath, arguments: ["dlopen", pluginPath])
        try floor!.waitReady()
    }
    var status: Int32 = 0
    let teardown = timed { status = floor!.finish() }
    guard status == 0 else { throw BenchError("kbhost-floor dlopen ended with wait status \(status)") }
    return (load, teardown)
}

/// The floor's memory after its dlopen of the plugin.
func floorMemory(floorPath: String, pluginPath: String) throws -> ProcMemory {
    let floor = try FloorProcess(floorPath: floorPath, arguments: ["dlopen", pluginPath])
    defer { floor.finish() }
    try floor.waitReady()
    guard let memory = ProcMemory.read(pid: floor.pid) else {
        throw BenchError("cannot read /proc/\(floor.pid)/smaps_rollup")
    }
    return memory
}
