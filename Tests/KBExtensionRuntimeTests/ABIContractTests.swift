import CKeyboardABI
import KBWire
import Testing

/// The facts the wire repeats from kbhost_keyboard.h, because the host may not import the
/// header: each must equal the header's, so a change on one side is caught here.
@Suite("The wire agrees with the ABI header")
struct ABIContractTests {
    @Test("WireVersion.abiVersion is the header's KBH_ABI_VERSION")
    func abiVersion() {
        #expect(WireVersion.abiVersion == UInt32(KBH_ABI_VERSION),
                "KBWire's WireVersion.abiVersion (\(WireVersion.abiVersion)) differs from kbhost_keyboard.h's KBH_ABI_VERSION (\(KBH_ABI_VERSION)): change SDK/Sources/KBWire/Messages.swift to match the header")
    }

    @Test("WireLimits are the header's KBH_MAX_CALL_EFFECTS, KBH_MAX_CALL_BYTES and KBH_MAX_CALL_MEMORY")
    func callLimits() {
        #expect(WireLimits.maximumEffects == Int(KBH_MAX_CALL_EFFECTS))
        #expect(WireLimits.maximumEffectBytes == Int(KBH_MAX_CALL_BYTES))
        #expect(WireLimits.maximumEffectMemory == Int(KBH_MAX_CALL_MEMORY))
        #expect(Framing.maximumFrameSize > WireLimits.maximumEffectBytes, "a reply at the limit fits in a frame")
    }

    @Test("WireLimits.maximumEditWork is the header's KBH_MAX_CALL_EDIT_WORK")
    func editWorkLimit() {
        #expect(WireLimits.maximumEditWork == Int(KBH_MAX_CALL_EDIT_WORK))
    }
}
