import CKeyboardABI
import KeyboardSDK
import Testing

/// The SDK's roles are passed to the worker by raw value: each must be the kbh_key_role
/// constant of the same name, whatever order either enum lists them in.
@Suite("The SDK's key roles are kbh_key_role's")
struct KeyRoleABITests {
    @Test("Each role's raw value is the C constant of the same name", arguments: [
        (KeyRole.character, KBH_ROLE_CHARACTER, "KBH_ROLE_CHARACTER"), (.space, KBH_ROLE_SPACE, "KBH_ROLE_SPACE"),
        (.return, KBH_ROLE_RETURN, "KBH_ROLE_RETURN"), (.delete, KBH_ROLE_DELETE, "KBH_ROLE_DELETE"),
        (.shift, KBH_ROLE_SHIFT, "KBH_ROLE_SHIFT"), (.globe, KBH_ROLE_GLOBE, "KBH_ROLE_GLOBE"),
        (.mode, KBH_ROLE_MODE, "KBH_ROLE_MODE"), (.function, KBH_ROLE_FUNCTION, "KBH_ROLE_FUNCTION"),
    ])
    func rawValueIsTheHeaders(role: KeyRole, abi: kbh_key_role, name: String) {
        #expect(role.rawValue == abi.rawValue,
                "KeyboardSDK's KeyRole.\(role) is \(role.rawValue) but kbhost_keyboard.h's \(name) is \(abi.rawValue)")
    }

    @Test func everyRoleIsListed() {
        // KeyRole is not CaseIterable (public API); raw values 0…7 are every case, and 8 is none.
        #expect((0 ... 7).allSatisfy { KeyRole(rawValue: $0) != nil } && KeyRole(rawValue: 8) == nil)
    }
}
