import Glibc

/// Memory figures of a process, read from /proc. Sizes are in bytes.
public struct ProcMemory: Hashable, Sendable {
    public var residentBytes: Int
    public var privateDirtyBytes: Int
    public var privateCleanBytes: Int
    public var sharedCleanBytes: Int
    public var swapBytes: Int

    /// Reads /proc/PID/smaps_rollup (tens of µs: for reports, not for polling).
    public static func read(pid: Int32) -> ProcMemory? {
        guard let text = readSmallFile("/proc/\(pid)/smaps_rollup") else { return nil }
        var m = ProcMemory(residentBytes: 0, privateDirtyBytes: 0, privateCleanBytes: 0, sharedCleanBytes: 0, swapBytes: 0)
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2, let kb = Int(parts[1]) else { continue }
            switch parts[0] {
            case "Rss:": m.residentBytes = kb * 1024
            case "Private_Dirty:": m.privateDirtyBytes = kb * 1024
            case "Private_Clean:": m.privateCleanBytes = kb * 1024
            case "Shared_Clean:": m.sharedCleanBytes = kb * 1024
            case "Swap:": m.swapBytes = kb * 1024
            default: break
            }
        }
        return m
    }

    /// Reads a small text file (a /proc entry) whole.
    public static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
