import CKeyboardABI
@testable import KBExtensionRuntime
import KBWire
import Testing

/// kbh_key_role's constants by the name of the wire's role: written out here so that
/// reordering KeyRole or the header's enum is caught rather than remapped silently.
let headerRoles: [(KeyRole, kbh_key_role, String)] = [
    (.character, KBH_ROLE_CHARACTER, "KBH_ROLE_CHARACTER"), (.space, KBH_ROLE_SPACE, "KBH_ROLE_SPACE"),
    (.return, KBH_ROLE_RETURN, "KBH_ROLE_RETURN"), (.delete, KBH_ROLE_DELETE, "KBH_ROLE_DELETE"),
    (.shift, KBH_ROLE_SHIFT, "KBH_ROLE_SHIFT"), (.globe, KBH_ROLE_GLOBE, "KBH_ROLE_GLOBE"),
    (.mode, KBH_ROLE_MODE, "KBH_ROLE_MODE"), (.function, KBH_ROLE_FUNCTION, "KBH_ROLE_FUNCTION"),
]

@Suite("Key roles: the wire's and kbh_key_role")
struct KeyRoleTests {
    @Test func everyWireRoleHasItsHeaderConstant() {
        #expect(Set(headerRoles.map(\.0)) == Set(KeyRole.allCases), "a wire KeyRole is missing from headerRoles: add it with its KBH_ROLE_ constant")
    }

    @Test("Each wire role's raw value is the C constant of the same name", arguments: headerRoles)
    func rawValuesAreTheHeaders(role: KeyRole, abi: kbh_key_role, name: String) {
        #expect(UInt32(role.rawValue) == abi.rawValue,
                "KBWire's KeyRole.\(role) is \(role.rawValue) but kbhost_keyboard.h's \(name) is \(abi.rawValue)")
    }

    @Test("The runtime maps each role to and from the constant of the same name", arguments: headerRoles)
    func mappedByName(role: KeyRole, abi: kbh_key_role, name: String) {
        #expect(role.abi == abi, "KeyRole.\(role) is passed to plugins as \(role.abi.rawValue), not \(name)")
        #expect(KeyRole(abi) == role, "\(name) is read from plugins as .\(KeyRole(abi))")
    }

    @Test func anUnknownRoleIsAFunctionKey() {
        #expect(KeyRole(kbh_key_role(rawValue: 99)) == .function)
    }
}
