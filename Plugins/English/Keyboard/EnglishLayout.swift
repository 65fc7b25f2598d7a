import KeyboardSDK

/// The shift key's three states, as the standard keyboard has them.
enum Shift: Sendable {
    /// Lower case.
    case off
    /// The next letter is a capital (a tap, or auto-capitalization).
    case once
    /// Caps lock (a double tap): every letter is a capital until shift is tapped.
    case locked

    var label: String {
        switch self {
        case .off: "⇧"
        case .once: "⬆"
        case .locked: "⇪"
        }
    }
}

/// Where the letter keys are: the standard rows, or a fan for one thumb
/// (ThumbFan's layout). In landscape, either fan shows a fan for each thumb.
enum Arrangement: Sendable, CaseIterable {
    case standard, fanLeft, fanRight

    /// What the ⇆ key moves on to.
    var next: Arrangement {
        switch self {
        case .standard: .fanLeft
        case .fanLeft: .fanRight
        case .fanRight: .standard
        }
    }
}

/// The letters page or the numbers-and-punctuation page.
enum Page: Sendable { case letters, numbers }

/// Everything the keys show; `rows` turns it into a layout.
struct EnglishLayout {
    var page = Page.letters
    var arrangement = Arrangement.standard
    var isLandscape = false
    var shift = Shift.off
    /// At most `EnglishLayout.suggestionSlots`.
    var suggestions: [String] = []
    var showsGlobe = true

    static let suggestionSlots = 3
    /// The width of a row, in standard keys.
    static let rowWidth = 10.0

    static let letterRows = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]
    static let numberRows = ["1234567890", "-/:;()$&@\"", ".,?!'"]

    /// One thumb's fan, outermost arc first: arcs nearer the thumb are shorter
    /// and their keys narrower (the letters in QWERTY reading order).
    static let fanArcs: [(letters: String, keyWidth: Double)] = [
        ("qwertyu", 0.95), ("iopasdf", 0.85), ("ghjklz", 0.8), ("xcvbnm", 0.75),
    ]
    /// Two fans in landscape, one per thumb: (left thumb, right thumb, key width) per arc.
    static let twoFanArcs: [(left: String, right: String, keyWidth: Double)] = [
        ("qwert", "yuiop", 0.8), ("asdfg", "hjkl", 0.75), ("zxcvb", "nm", 0.7),
    ]

    var rows: [[KeySpec]] {
        var rows = [suggestionRow]
        switch (page, arrangement, isLandscape) {
        case (.numbers, _, _): rows += numberRows
        case (.letters, .standard, _): rows += standardRows
        case (.letters, _, true): rows += twoFanRows
        case (.letters, .fanLeft, false): rows += oneFanRows(leftHand: true)
        case (.letters, .fanRight, false): rows += oneFanRows(leftHand: false)
        }
        return rows
    }

    // MARK: Keys

    private var suggestionRow: [KeySpec] {
        (0..<EnglishLayout.suggestionSlots).map { i in
            KeySpec(i < suggestions.count ? suggestions[i] : "", identifier: "suggestion.\(i)", role: .function,
                    width: EnglishLayout.rowWidth / Double(EnglishLayout.suggestionSlots),
                    action: EnglishViewController.chooseSuggestion)
        }
    }

    /// Letter keys keep lower-case labels whatever shift says (the shift key
    /// shows it), so a key's name stays the same in scripts and tests.
    private func letters(_ s: String, width: Double = 1, action: KeyAction = EnglishViewController.typeLetter) -> [KeySpec] {
        s.map { KeySpec(String($0), identifier: String($0), width: width, action: action,
                        alternates: EnglishLayout.alternates[$0] ?? []) }
    }

    /// What a long press on a letter offers, as iOS's English keyboard does (kbhost type long:e:é):
    /// the pick goes to the letter's own action as its label.
    static let alternates: [Character: [String]] = [
        "a": ["à", "á", "â", "ä", "æ", "ã", "å", "ā"], "c": ["ç", "ć", "č"],
        "e": ["è", "é", "ê", "ë", "ē", "ė", "ę"], "i": ["î", "ï", "í", "ī", "į", "ì"], "n": ["ñ", "ń"],
        "o": ["ô", "ö", "ò", "ó", "œ", "ø", "ō", "õ"], "u": ["û", "ü", "ù", "ú", "ū"],
    ]

    private func shiftKey(width: Double = 1.5) -> KeySpec {
        KeySpec(shift.label, identifier: "shift", role: .shift, width: width, action: EnglishViewController.shift,
                doubleTapAction: EnglishViewController.lockShift)
    }

    /// Deletes on touch down and repeats while held; nothing on touch up.
    private func deleteKey(width: Double = 1.5) -> KeySpec {
        KeySpec("⌫", identifier: "delete", role: .delete, width: width, action: EnglishViewController.delete,
                touchDownAction: EnglishViewController.delete, repeats: true)
    }

    private func pageKey() -> KeySpec {
        page == .letters
            ? KeySpec("123", identifier: "numbers", role: .mode, width: 1.25, action: EnglishViewController.showNumbers)
            : KeySpec("ABC", identifier: "letters", role: .mode, width: 1.25, action: EnglishViewController.showLetters)
    }

    private var arrangementKey: KeySpec {
        KeySpec("⇆", identifier: "arrangement", role: .function, action: EnglishViewController.nextArrangement)
    }

    /// ThumbFan always shows a key that hides the keyboard.
    private var dismissKey: KeySpec { KeySpec("⌄", identifier: "dismiss", role: .function, action: .dismissKeyboard) }

    private func spacer(_ width: Double, _ name: String) -> KeySpec {
        KeySpec("", identifier: "spacer.\(name)", role: .function, width: width, action: nil)
    }

    private func bottomRow(spaceWidth: Double) -> [KeySpec] {
        var row = [pageKey()]
        if showsGlobe { row.append(.globe()) }
        row += [arrangementKey,
                KeySpec("space", identifier: "space", role: .space, width: spaceWidth, action: EnglishViewController.space,
                        dragAction: EnglishViewController.dragCursor),
                KeySpec("return", identifier: "return", role: .return, width: 2, action: EnglishViewController.newline)]
        return row
    }

    // MARK: Arrangements

    private var standardRows: [[KeySpec]] {
        let rows = EnglishLayout.letterRows
        return [letters(rows[0]), letters(rows[1]),
                [shiftKey()] + letters(rows[2]) + [deleteKey()],
                bottomRow(spaceWidth: showsGlobe ? 4.75 : 5.75)]
    }

    private var numberRows: [[KeySpec]] {
        let rows = EnglishLayout.numberRows
        let symbol: KeyAction = EnglishViewController.typeSymbol
        return [letters(rows[0], action: symbol), letters(rows[1], action: symbol),
                letters(rows[2], width: 1.4, action: symbol) + [deleteKey()],
                bottomRow(spaceWidth: showsGlobe ? 4.75 : 5.75)]
    }

    /// One fan, against the side of the hand that holds the phone; the rest
    /// of each row is empty.
    private func oneFanRows(leftHand: Bool) -> [[KeySpec]] {
        func row(_ keys: [KeySpec], _ name: String) -> [KeySpec] {
            let free = EnglishLayout.rowWidth - keys.reduce(0) { $0 + $1.width }
            return leftHand ? keys + [spacer(free, name)] : [spacer(free, name)] + keys
        }
        var rows = EnglishLayout.fanArcs.enumerated().map { i, arc in row(letters(arc.letters, width: arc.keyWidth), "\(i)") }
        // Next to the thumb: shift and delete, then the function keys and space.
        rows.append(row(leftHand ? [shiftKey(width: 1), deleteKey(width: 1), dismissKey]
                                 : [dismissKey, shiftKey(width: 1), deleteKey(width: 1)], "functions"))
        var bottom = bottomRow(spaceWidth: 2.5)
        bottom[bottom.count - 1].width = 1.5
        rows.append(row(leftHand ? bottom : bottom.reversed(), "bottom"))
        return rows
    }

    /// A fan for each thumb: the left half of each QWERTY row on the left,
    /// the right half on the right, the middle empty.
    private var twoFanRows: [[KeySpec]] {
        var rows: [[KeySpec]] = []
        for (i, arc) in EnglishLayout.twoFanArcs.enumerated() {
            var left = letters(arc.left, width: arc.keyWidth), right = letters(arc.right, width: arc.keyWidth)
            if i == EnglishLayout.twoFanArcs.count - 1 {
                left.insert(shiftKey(width: 1), at: 0)
                right.append(deleteKey(width: 1))
            }
            let free = EnglishLayout.rowWidth - (left + right).reduce(0) { $0 + $1.width }
            rows.append(left + [spacer(free, "\(i)")] + right)
        }
        var left = [pageKey()]
        if showsGlobe { left.append(.globe()) }
        left += [arrangementKey,
                 KeySpec("space", identifier: "space", role: .space, width: 2, action: EnglishViewController.space)]
        let right = [dismissKey,
                     KeySpec("space", identifier: "space.right", role: .space, width: 2, action: EnglishViewController.space),
                     KeySpec("return", identifier: "return", role: .return, width: 1.5, action: EnglishViewController.newline)]
        let free = EnglishLayout.rowWidth - (left + right).reduce(0) { $0 + $1.width }
        rows.append(left + [spacer(free, "bottom")] + right)
        return rows
    }
}
