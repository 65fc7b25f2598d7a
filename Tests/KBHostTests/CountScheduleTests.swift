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

    /// The wait to the next count is never longer than the pace (the time the keyboard's headroom takes to
    /// fill at the assumed rate), as before the schedule was memoryless; after a slow count it grows
    /// with what the count cost. (A mean of the pace itself let one wait in twenty run two to three paces.)
    @Test func theWaitIsNeverLongerThanThePaceUnlessCountsAreSlow() {
        let pace: Int64 = 90_000_000
        let cheap = (0..<20_000).map { _ in Governor.countWait(pace: pace, cost: 100_000) }
        #expect(cheap.max()! <= pace)
        let average = Double(cheap.reduce(0, +)) / Double(cheap.count)
        #expect(average > 0.25 * Double(pace) && average < 0.4 * Double(pace), "\(average)")
        // A count that cost 20 ms: waits around 135 ms, up to three times that.
        let slow = (0..<20_000).map { _ in Governor.countWait(pace: pace, cost: 20_000_000) }
        #expect(slow.max()! <= 405_000_000 && slow.max()! > pace)
        let slowAverage = Double(slow.reduce(0, +)) / Double(slow.count)
        #expect(slowAverage > 110e6 && slowAverage < 140e6, "\(slowAverage)")
    }
}
