import KeyboardSDK

/// The text rules of the standard English keyboard, as pure functions of the
/// text before the insertion point: the word being typed, whether the next
/// letter is a capital, and how a correction keeps the word's case.
enum Words {
    /// Letters and the apostrophe make a word ("don't").
    static func isWordCharacter(_ c: Character) -> Bool { c.isLetter || c == "'" || c == "’" }

    /// The word that ends at the insertion point ("" after a space).
    static func currentWord(before text: String?) -> String {
        guard let text else { return "" }
        return String(text.reversed().prefix(while: isWordCharacter).reversed())
    }

    /// Whether the next letter starts a capital, for a field's autocapitalization.
    static func shouldCapitalize(before text: String?, _ type: TextInputTraits.AutocapitalizationType) -> Bool {
        let text = text ?? ""
        switch type {
        case .none: return false
        case .allCharacters: return true
        case .words: return text.isEmpty || text.last!.isWhitespace
        case .sentences:
            // At the start, after a new line, or after ". ", "! ", "? " (spaces, then the end of a sentence).
            guard let last = text.last else { return true }
            if last.isNewline { return true }
            guard last.isWhitespace else { return false }
            let beforeSpaces = text.reversed().drop(while: { $0 == " " || $0 == "\t" })
            guard let end = beforeSpaces.first else { return true }
            return end.isNewline || end == "." || end == "!" || end == "?"
        }
    }

    /// The case a word was typed in.
    enum Casing: Equatable {
        /// `mixed`: capitals after the first letter, not all of them ("iPhone", "McDonald").
        case lower, capitalized, upper, mixed

        init(of word: String) {
            let letters = word.filter(\.isLetter)
            if letters.count > 1 && letters.allSatisfy(\.isUppercase) {
                self = .upper
            } else if letters.dropFirst().contains(where: \.isUppercase) {
                self = .mixed
            } else if letters.first?.isUppercase == true {
                self = .capitalized
            } else {
                self = .lower
            }
        }

        /// `word` in this case; a dictionary word keeps its own capitals ("London").
        func apply(to word: String) -> String {
            switch self {
            case .lower, .mixed: word
            case .upper: word.uppercased()
            case .capitalized: word.prefix(1).uppercased() + word.dropFirst()
            }
        }
    }

    /// The optimal-string-alignment distance: insertions, deletions,
    /// substitutions and swaps of neighbours each cost 1 ("teh" → "the": 1).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }

    /// The correction autocorrect makes for a misspelled word, from the
    /// dictionary's suggestions for its lower-case form (best first), or nil
    /// when none is close enough to be sure: the word without its apostrophe
    /// ("dont" → "don't"), else the first suggestion if it has the same letters
    /// or is one edit away (two for words of five letters or more).
    static func correction(for word: String, suggestions: [String]) -> String? {
        let typed = word.lowercased()
        guard typed.count >= 3 else { return nil }
        let casing = Casing(of: word)
        guard casing != .mixed else { return nil }  // typed that way on purpose
        if let apostrophe = suggestions.prefix(5).first(where: { $0.contains("'") && $0.filter { $0 != "'" }.lowercased() == typed }) {
            return casing.apply(to: apostrophe)
        }
        guard let best = suggestions.first, !best.contains(" "), !best.contains("-") else { return nil }
        let lowered = best.lowercased()
        let close = lowered.sorted() == typed.sorted() || distance(typed, lowered) <= (typed.count >= 5 ? 2 : 1)
        return close ? casing.apply(to: best) : nil
    }
}
