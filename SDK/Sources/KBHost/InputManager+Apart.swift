import KBCore
import KBText

// Keyboards measured rather than serving the user (`kbhost stress`, `kbhost profile`): the
// same session life cycle as any front end's (activate, the warm pool, failover that keeps
// what a keyboard committed), apart from the user's data.
extension InputManager {
    /// Keyboards run apart from the user's data, for a command that measures them: they need be
    /// in no registry (the caller may build them, as `stress` builds its fault keyboards), the
    /// settings are neither read nor written, and a keyboard gets no container, grant, text
    /// replacement or protection exception, as one the user never installed. The caller chooses
    /// each keyboard (`activate`): the globe key and the daemon's news switch nothing, and a
    /// keyboard that fails is neither recorded nor set aside; what it committed stays in the
    /// document, the field is left on the system keyboard (`active` is nil) and `lastFailover`
    /// says what happened, for the caller to choose the next one.
    public struct Apart: Hashable, Sendable {
        /// The keyboards the caller may activate, by identifier (the first of an identifier counts).
        public var keyboards: [LoadableKeyboard]
        /// What each keyboard is told about drawing its globe key.
        public var needsInputModeSwitchKey: Bool

        /// Keyboards apart, each told `needsInputModeSwitchKey`.
        public init(keyboards: [LoadableKeyboard], needsInputModeSwitchKey: Bool = true) {
            self.keyboards = keyboards
            self.needsInputModeSwitchKey = needsInputModeSwitchKey
        }
    }

    /// A manager of keyboards apart (see `Apart`), on a field with `text`, no keyboard shown until
    /// the caller activates one. Every keyboard runs under `budget` bytes; `warmKeyboards` stay.
    public convenience init(apart: Apart, installation: Installation, text: String = "", budget: Int,
                            warmKeyboards: Int = 3, launching: Launching = .script) throws(RegistryError) {
        var seen = Set<String>()
        let entries = apart.keyboards.filter { seen.insert($0.identifier).inserted }.map {
            KeyboardEntry(manifest: $0.manifest, libraryPath: $0.libraryPath, source: "apart")
        }
        self.init(installation: installation, store: nil, registry: try KeyboardRegistry(keyboards: entries),
                  field: FieldContext(), text: text, budget: budget, warmKeyboards: warmKeyboards, pin: nil, apart: apart,
                  launching: launching, current: SystemKeyboard.identifier)
    }

    /// Taps this key of the current keyboard's layout (as a front end that draws the keys finds it).
    @discardableResult
    public func tap(_ key: KeyboardLayout.Key) -> TapOutcome {
        guard let session = active else { return tap(key.label) }
        do { try session.perform(.tap, on: key) } catch {
            fellBack(from: currentID, because: SessionError.keyboardFailed(error).description, failure: error)
            return .failed
        }
        return .tapped
    }

    /// Taps these keys of the current keyboard's layout pipelined (`KeyboardSession.tapAll`):
    /// `acknowledged` counts the taps the keyboard answered, those before a failure included.
    @discardableResult
    public func tapAll(_ keys: [KeyboardLayout.Key], acknowledged: inout Int) -> TapOutcome {
        guard let session = active else {
            for key in keys { tap(key.label) }
            acknowledged += keys.count
            return .tapped
        }
        do { try session.tapAll(keys, acknowledged: &acknowledged) } catch {
            fellBack(from: currentID, because: SessionError.keyboardFailed(error).description, failure: error)
            return .failed
        }
        return .tapped
    }
}
