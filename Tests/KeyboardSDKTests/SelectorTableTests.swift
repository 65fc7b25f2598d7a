import CKeyboardABI
@testable import KeyboardSDK
import Testing

/// The SDK publishes the selectors of kbhost_keyboard.h's kbh_host_selectors_v1 with the
/// encodings it gives, and its key actions with the header's KBH_KEY_ACTION_TYPES_.
@Suite("The SDK's selectors are the header's")
struct SDKSelectorTableTests {
    final class Plain: InputViewController {}

    @Test func everyHostSelectorIsPublishedWithTheTablesEncoding() {
        let table: [(String, String)] = withUnsafeBytes(of: kbh_host_selectors_v1) { bytes in
            bytes.bindMemory(to: kbh_host_selector_v1.self).map { (String(cString: $0.name), String(cString: $0.types)) }
        }
        let published = Dictionary(KeyboardPlugin.selectors(of: Plain.self).map { ($0.name, $0.types) }) { first, _ in first }
        #expect(table.count == Int(KBH_HOST_SELECTOR_COUNT_V1))
        for (name, types) in table {
            #expect(published[name] == types, "the SDK publishes \(name) as \(published[name] ?? "nothing"); kbhost_keyboard.h says '\(types)'")
        }
    }

    @Test func keyActionsUseTheHeadersEncodings() {
        let encodings = KeyAction.builtIn.map(\.types)
        #expect(Set(encodings).isSubset(of: [KBH_KEY_ACTION_TYPES_V1, KBH_KEY_ACTION_TYPES_KEY_V1, KBH_KEY_ACTION_TYPES_KEY_EVENT_V1]))
        #expect([KBH_KEY_ACTION_TYPES_V1, KBH_KEY_ACTION_TYPES_KEY_V1, KBH_KEY_ACTION_TYPES_KEY_EVENT_V1] == ["v@:", "v@:@", "v@:@@"])
    }
}
