import KBCore
import Testing

@Suite("Memory budgets and device profiles")
struct MemoryBudgetTests {
    @Test(arguments: [("48", 48 << 20), ("8", 8 << 20), ("512", 512 << 20), ("recent-phone", 77 << 20), ("tablet", 90 << 20)])
    func aBudgetIsMiBOrAProfileName(text: String, bytes: Int) {
        #expect(MemoryBudget.parse(text) == bytes)
    }

    @Test(arguments: ["7", "513", "0", "-48", "48MiB", "", "phone", "99999999999999999999", "\(Int.max)"])
    func anythingElseIsNoBudget(text: String) {
        #expect(MemoryBudget.parse(text) == nil)
    }

    @Test func theProfilesAreInTheRangeSmallestFirstAndTheHelpNamesThem() {
        #expect(MemoryBudget.profiles.allSatisfy { MemoryBudget.range.contains($0.budget) })
        #expect(MemoryBudget.profiles.map(\.budget) == MemoryBudget.profiles.map(\.budget).sorted())
        #expect(MemoryBudget.range.contains(MemoryBudget.defaultBudget))
        #expect(MemoryBudget.range.upperBound == MemoryBudget.backstop)
        for profile in MemoryBudget.profiles { #expect(MemoryBudget.help.contains("\(profile.name) (\(profile.budget >> 20) MiB)")) }
    }

    @Test func aProfileWouldHaveKilledAfterTheFirstTapOverItsBudget() {
        let phone = DeviceProfile(name: "p", budget: 10)
        #expect(phone.overAfterTap([5, 9, 11, 4, 12]) == 2, "footprints[0] is before the first tap")
        #expect(phone.overAfterTap([11, 9]) == nil, "over before any tap is not a tap's doing")
        #expect(phone.overAfterTap([10, 10]) == nil, "at the budget is within it")
        #expect(phone.overAfterTap([]) == nil)
    }
}
