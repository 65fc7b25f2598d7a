import KBText

/// Characters on another page of a keyboard: English's `.` `,` `'` and digits are behind its
/// `123` key, Science's Greek behind `αβγ`. `attach` reaches them (a paste types every
/// character); the IBus engine does not ask, so those keys keep going to the app.
extension InputManager {
    /// The labels that say which page a keyboard shows: its character keys'.
    static func page(_ layout: KeyboardLayout) -> [String] {
        layout.rows.joined().filter { $0.role == .character }.map(\.label)
    }

    static func modeKeys(_ layout: KeyboardLayout) -> [String] {
        layout.rows.joined().filter { $0.role == .mode }.map { "id:" + $0.identifier }
    }

    /// Taps the key labelled `target` on whichever page has it, each page key of the keyboard's
    /// tried in turn, then brings the keyboard back to the page it showed, so the next letter is
    /// where it was. Not while text is marked (a page key could end a composition). False when
    /// no page has it; the keyboard is then back on its page too.
    func tapOnAnotherPage(_ target: String, on session: KeyboardSession) throws(SessionError) -> Bool {
        guard target.count == 1, session.document.buffer.markedText == nil else { return false }
        let home = Self.page(session.layout)
        for mode in Self.modeKeys(session.layout) {
            try returnTo(home, on: session)
            guard session.layout.key(named: mode) != nil else { continue }
            try session.tap(mode)
            if Self.page(session.layout) != home, session.layout.key(named: target) != nil {
                try session.tap(target)
                try returnTo(home, on: session)
                return true
            }
        }
        try returnTo(home, on: session)
        return false
    }

    /// Taps page keys until the keyboard shows `home` again (at most eight taps).
    private func returnTo(_ home: [String], on session: KeyboardSession) throws(SessionError) {
        var taps = 0
        while Self.page(session.layout) != home, taps < 8 {
            let modes = Self.modeKeys(session.layout)
            guard !modes.isEmpty else { return }
            try session.tap(modes[taps % modes.count])
            taps += 1
        }
    }
}
