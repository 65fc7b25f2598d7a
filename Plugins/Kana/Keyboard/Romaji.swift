/// Romaji typed one letter at a time, turned into hiragana as soon as it can
/// be: "ka" → か, "kya" → きゃ, "kk" → っk, "n" before a consonant → ん,
/// "nn" → ん, "xtu"/"ltu" → っ, "-" → ー. Letters that cannot start any
/// kana stay as they are.
struct RomajiComposer: Equatable, Sendable {
    /// The hiragana so far (and any letter that never became kana).
    private(set) var kana = ""
    /// Letters still waiting for the rest of their syllable ("k", "ky", "n").
    private(set) var pending = ""

    /// What the user sees: the kana, then the letters still pending.
    var text: String { kana + pending }
    var isEmpty: Bool { kana.isEmpty && pending.isEmpty }

    init(kana: String = "") { self.kana = kana }

    /// Adds a typed letter (lower case) or "-".
    mutating func type(_ letter: Character) {
        pending.append(letter)
        resolve()
    }

    /// Adds kana or punctuation typed directly (、。ー): a pending "n" becomes ん first.
    mutating func append(_ text: String) {
        flush()
        kana += text
    }

    /// Ends the pending letters: a lone "n" becomes ん, anything else stays a letter.
    mutating func flush() {
        kana += pending == "n" ? "ん" : pending
        pending = ""
    }

    /// Deletes the last pending letter, else the last kana.
    mutating func deleteBackward() {
        if !pending.isEmpty { pending.removeLast() } else if !kana.isEmpty { kana.removeLast() }
    }

    private mutating func resolve() {
        while !pending.isEmpty {
            if let syllable = Romaji.table[pending] {
                kana += syllable
                pending = ""
                return
            }
            if Romaji.prefixes.contains(pending) { return }  // wait for the rest of the syllable
            // Nothing starts with these letters: settle the first one and try the rest.
            let first = pending.removeFirst()
            let next = pending.first
            if first == "n" {
                kana += "ん"                           // "ng" → ん + g
            } else if first == next && Romaji.consonants.contains(first) || first == "t" && next == "c" {
                kana += "っ"                           // "kk" → っ + k, "tch" → っ + ch
            } else {
                kana.append(first)
            }
        }
    }
}

enum Romaji {
    static let consonants = Set("bcdfghjklmpqrstvwxyz")

    /// Every sequence of letters that starts a syllable but is not one yet.
    static let prefixes: Set<String> = {
        var set = Set<String>()
        for key in table.keys where key.count > 1 {
            for length in 1..<key.count { set.insert(String(key.prefix(length))) }
        }
        return set
    }()

    /// Hepburn and Kunrei spellings, small kana with x or l, and "-" for ー.
    static let table: [String: String] = {
        var t: [String: String] = [
            "a": "あ", "i": "い", "u": "う", "e": "え", "o": "お",
            "nn": "ん", "xn": "ん", "-": "ー",
            "shi": "し", "chi": "ち", "tsu": "つ", "fu": "ふ", "ji": "じ",
            "sha": "しゃ", "shu": "しゅ", "sho": "しょ", "she": "しぇ",
            "cha": "ちゃ", "chu": "ちゅ", "cho": "ちょ", "che": "ちぇ",
            "ja": "じゃ", "ju": "じゅ", "jo": "じょ", "je": "じぇ",
            "fa": "ふぁ", "fi": "ふぃ", "fe": "ふぇ", "fo": "ふぉ",
            "wa": "わ", "wo": "を", "wi": "うぃ", "we": "うぇ",
            "ya": "や", "yu": "ゆ", "yo": "よ", "ye": "いぇ",
            "va": "ゔぁ", "vi": "ゔぃ", "vu": "ゔ", "ve": "ゔぇ", "vo": "ゔぉ",
            "thi": "てぃ", "dhi": "でぃ", "thu": "てゅ", "dhu": "でゅ", "twu": "とぅ", "dwu": "どぅ",
            "xtu": "っ", "ltu": "っ", "xtsu": "っ", "ltsu": "っ",
            "xwa": "ゎ", "lwa": "ゎ", "xka": "ゕ", "xke": "ゖ",
        ]
        // The regular rows: consonant + vowel, and consonant + y + a/u/o.
        let rows: [(String, [String], String?)] = [
            ("k", ["か", "き", "く", "け", "こ"], "き"), ("g", ["が", "ぎ", "ぐ", "げ", "ご"], "ぎ"),
            ("s", ["さ", "し", "す", "せ", "そ"], "し"), ("z", ["ざ", "じ", "ず", "ぜ", "ぞ"], "じ"),
            ("t", ["た", "ち", "つ", "て", "と"], "ち"), ("d", ["だ", "ぢ", "づ", "で", "ど"], "ぢ"),
            ("n", ["な", "に", "ぬ", "ね", "の"], "に"), ("h", ["は", "ひ", "ふ", "へ", "ほ"], "ひ"),
            ("b", ["ば", "び", "ぶ", "べ", "ぼ"], "び"), ("p", ["ぱ", "ぴ", "ぷ", "ぺ", "ぽ"], "ぴ"),
            ("m", ["ま", "み", "む", "め", "も"], "み"), ("r", ["ら", "り", "る", "れ", "ろ"], "り"),
            ("c", ["か", "し", "く", "せ", "こ"], "ち"), ("j", ["じゃ", "じ", "じゅ", "じぇ", "じょ"], "じ"),
            ("x", ["ぁ", "ぃ", "ぅ", "ぇ", "ぉ"], nil), ("l", ["ぁ", "ぃ", "ぅ", "ぇ", "ぉ"], nil),
        ]
        for (consonant, kana, yStem) in rows {
            for (vowel, syllable) in zip(["a", "i", "u", "e", "o"], kana) where t[consonant + vowel] == nil {
                t[consonant + vowel] = syllable
            }
            if let yStem {
                t[consonant + "ya"] = yStem + "ゃ"
                t[consonant + "yu"] = yStem + "ゅ"
                t[consonant + "yo"] = yStem + "ょ"
            }
        }
        for small in ["x", "l"] {
            t[small + "ya"] = "ゃ"; t[small + "yu"] = "ゅ"; t[small + "yo"] = "ょ"
        }
        return t
    }()

    /// Hiragana as katakana (ぁ…ゖ and ゝゞ move by 0x60); anything else is kept.
    static func katakana(_ hiragana: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in hiragana.unicodeScalars {
            if (0x3041...0x3096).contains(scalar.value) || (0x309D...0x309E).contains(scalar.value),
               let shifted = Unicode.Scalar(scalar.value + 0x60) {
                result.append(shifted)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
