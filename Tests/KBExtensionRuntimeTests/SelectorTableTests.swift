import CKeyboardABI
@testable import KBExtensionRuntime
import KBWire
import Testing

/// kbhost_keyboard.h's kbh_host_selectors_v1 is the one list of the selectors the host
/// calls and their encodings; the wire names them too (it may not import the header).
@Suite("The selector table in kbhost_keyboard.h")
struct SelectorTableTests {
    static let table: [(name: String, types: String)] = withUnsafeBytes(of: kbh_host_selectors_v1) { bytes in
        bytes.bindMemory(to: kbh_host_selector_v1.self).map { (String(cString: $0.name), String(cString: $0.types)) }
    }

    /// Every selector a `Call` makes the worker call, with the encoding the runtime calls it with.
    static let wireCalls: [(name: String, types: String)] =
        Lifecycle.allCases.map { ($0.selector, $0 == .viewDidLoad ? "v@:" : "v@:B") }
        + TextInputCallback.allCases.map { ($0.selector, "v@:@") }
        + [(Call.transitionSelector, "v@:dd"), (Call.memoryWarningSelector, "v@:")]

    @Test func theTableHasItsCountAndNoDuplicates() {
        #expect(Self.table.count == Int(KBH_HOST_SELECTOR_COUNT_V1))
        #expect(Set(Self.table.map(\.name)).count == Self.table.count)
    }

    @Test func theLoaderChecksPluginsAgainstTheTable() {
        #expect(SelectorRules.known == Dictionary(uniqueKeysWithValues: Self.table.map { ($0.name, $0.types) }))
        #expect(SelectorRules.keyActionEncodings == ["v@:", "v@:@", "v@:@@"])
    }

    @Test("The wire calls exactly the table's selectors, with the table's encodings")
    func theWireNamesTheTablesSelectors() {
        let table = Dictionary(uniqueKeysWithValues: Self.table.map { ($0.name, $0.types) })
        for call in Self.wireCalls {
            #expect(table[call.name] == call.types,
                    "KBWire names the selector \(call.name), called with '\(call.types)', but kbhost_keyboard.h's kbh_host_selectors_v1 has \(table[call.name].map { "'\($0)'" } ?? "no such selector")")
        }
        let missing = Set(table.keys).subtracting(Self.wireCalls.map(\.name))
        #expect(missing.isEmpty, "kbh_host_selectors_v1 lists \(missing.sorted()), which no KBWire Call makes the worker call")
    }
}
