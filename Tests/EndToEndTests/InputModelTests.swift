import Foundation
import KBHost
import KBText
import Testing

/// The input models an author expects, through the real keyboards in their own processes:
/// what a key carries crosses the socket as it does in process.
@Suite("Input models in the extension process")
struct InputModelTests {
    @Test func scienceModeKeysCarryTheirModeAsAPayloadOverTheSocket() throws {
        let session = try Fixtures.session(try Fixtures.sample("dev.kbhost.Science"))
        defer { session.close() }
        for mode in 0..<5 {
            #expect(session.layout.payload(ofKeyNamed: "id:mode.\(mode)") == "\(mode)")
        }
        #expect(session.layout.payload(ofKeyNamed: "q") == nil, "a character key carries none")
        // One action, setMode:, for the five keys: it reads the payload, not the identifier.
        for key in ["id:mode.1", "₂", "id:mode.3", "π", "id:mode.0", "x"] { try session.tap(key) }
        #expect(session.document.text == "₂πx")
        #expect(session.failure == nil)
    }
}
