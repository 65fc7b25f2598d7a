import KBCore

// A tap step, performed on a session: the one place a parsed step meets a keyboard.
extension TapStep {
    public func perform(on session: KeyboardSession) throws(SessionError) {
        switch kind {
        case .gesture(let g, let name): try session.perform(g, on: session.layout.keyName(typed: name))
        case .chooseAlternate(let name, let choice): try session.chooseAlternate(choice, on: session.layout.keyName(typed: name))
        case .drag(let name, let path): try session.drag(session.layout.keyName(typed: name), path: path)
        case .pause(let ms): session.pause(milliseconds: ms)
        case .rotate(let width, let height):
            do { try session.transition(toWidth: width, height: height) } catch { throw .keyboardFailed(error) }
        case .reopen:
            do { try session.represent() } catch { throw .keyboardFailed(error) }
        }
    }
}
