import KBCore
import KBText

// A field that one keyboard serves whatever the settings say, driven by a script: what
// `kbhost type` is. The manager does the rest as for any front end (the session, its
// document, the failover), so the walk from a tap to the document is the same.
extension InputManager {
    /// A keyboard chosen for one manager's field alone, for as long as it lives
    /// (`kbhost type --keyboard`): it serves the field instead of the settings' current
    /// keyboard, enabled or not, whatever the field's keyboard type, and the settings are
    /// never written: the globe key switches nothing, a failure is not recorded (the user
    /// lands on the system keyboard), the daemon's news is not followed. The user's grants,
    /// containers, text replacements and protection exceptions still apply, as they are.
    /// A secure field still gets only the system keyboard: no pin puts a third-party
    /// keyboard where passwords are typed.
    public struct Pin: Hashable, Sendable {
        /// The keyboard's identifier.
        public var keyboard: String
        /// What the keyboard is told about drawing its globe key (a script taps it; it switches nothing).
        public var needsInputModeSwitchKey: Bool

        /// A pin of the keyboard with this identifier.
        public init(keyboard: String, needsInputModeSwitchKey: Bool = true) {
            self.keyboard = keyboard
            self.needsInputModeSwitchKey = needsInputModeSwitchKey
        }

        /// The keyboard that serves `field`: the pinned one, or the system keyboard in a secure field.
        func keyboard(for field: FieldContext) -> String {
            field.traits.isSecureTextEntry ? SystemKeyboard.identifier : keyboard
        }
    }

    /// Performs one step of a script on the current keyboard: a gesture on the key a name
    /// finds (a label, a role name, `id:NAME`; see `TapStep`), a pause on the session's
    /// virtual clock, a new size. Unlike `tap`, a name no key has throws `.noSuchKey` (and an
    /// alternate the key does not offer `.noSuchAlternate`: nothing
    /// happened), and a keyboard's failure is thrown after the failover, for a front end that
    /// reports it. The system keyboard types a gesture's name once, as `tap` does.
    public func perform(_ step: TapStep) throws(SessionError) {
        guard let session = active else {
            switch step.kind {
            case .gesture(_, let name): tap(name)
            case .chooseAlternate(_, let choice): tap(choice)  // the system keyboard types the pick
            default: break
            }
            return
        }
        do { try step.perform(on: session) } catch {
            if error.isNoSuchKeyOrAlternate { throw error }  // nothing happened: no failover
            fellBack(from: currentID, because: error.description)
            throw error
        }
    }

    /// The script is over: the keyboard disappears (its process stays until `close`) and the
    /// document stays as the script left it, marked text too, to be reported. A failure on
    /// the way falls back as any other, and is thrown.
    public func finish() throws(KeyboardFailure) {
        guard let session = active else { return }
        do { try session.disappear() } catch {
            fellBack(from: currentID, because: "\(error)")
            throw error
        }
    }
}
