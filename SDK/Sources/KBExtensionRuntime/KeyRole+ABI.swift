import CKeyboardABI
import KBWire

// The wire's key roles and the header's kbh_key_role, mapped by name: reordering
// either enum changes nothing here (KBExtensionRuntimeTests checks the raw values too).
extension KeyRole {
    /// The role a plugin's kbh_key_role names; a value this kbhost does not know is a function key.
    init(_ abi: kbh_key_role) {
        switch abi {
        case KBH_ROLE_CHARACTER: self = .character
        case KBH_ROLE_SPACE: self = .space
        case KBH_ROLE_RETURN: self = .return
        case KBH_ROLE_DELETE: self = .delete
        case KBH_ROLE_SHIFT: self = .shift
        case KBH_ROLE_GLOBE: self = .globe
        case KBH_ROLE_MODE: self = .mode
        default: self = .function
        }
    }

    /// The kbh_key_role a plugin is passed for this role.
    var abi: kbh_key_role {
        switch self {
        case .character: KBH_ROLE_CHARACTER
        case .space: KBH_ROLE_SPACE
        case .return: KBH_ROLE_RETURN
        case .delete: KBH_ROLE_DELETE
        case .shift: KBH_ROLE_SHIFT
        case .globe: KBH_ROLE_GLOBE
        case .mode: KBH_ROLE_MODE
        case .function: KBH_ROLE_FUNCTION
        }
    }
}
