@testable import KBHost
import Testing

/// When the governor next counts a keyboard's files: memoryless, so that a keyboard that can tell
/// when a count ran (it is stopped for part of one) has no window it can be sure is free of the next.
@Suite("The governor's count schedule")
struct CountScheduleTests {
    @Test func theWaitIsExponentialAroundItsMeanWithAFloorAndACeiling() {
        let mean: Int64 = 10_000_000, floor: Int64 = 2_000_000
        let draws = (0..<20_000).map { _ in Governor.memoryless(mean: mean, atLeast: floor) }
        #expect(draws.min() == floor)
        #expect(draws.max()! <= 3 * mean)
        // An exponential of mean 10 ms: 18% below 2 ms (raised to it), 5% beyond 30 ms (cut to it).
        let atFloor = Double(draws.filter { $0 == floor }.count) / Double(draws.count)
        #expect(atFloor > 0.15 && atFloor < 0.22, "\(atFloor)")
        let average = Double(draws.reduce(0, +)) / Double(draws.count)
        #expect(average > 8.5e6 && average < 11e6, "\(average)")
        // Memoryless: of the waits longer than 10 ms, as many end within the next 5 ms as of all waits
        // past the floor within the 5 ms after it: a count not yet come is no less likely to come now.
        let first = Double(draws.filter { $0 > floor && $0 <= floor + 5_000_000 }.count) / Double(draws.filter { $0 > floor }.count)
        let later = Double(draws.filter { $0 > 10_000_000 && $0 <= 15_000_000 }.count) / Double(draws.filter { $0 > 10_000_000 }.count)
        #expect(abs(first - later) < 0.06, "\(first) \(later)")
    }
}
