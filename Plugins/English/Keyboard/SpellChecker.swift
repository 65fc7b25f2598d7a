import CHunspell
import Glibc

/// Spelling through hunspell: is a word in the dictionary, and what are the
/// nearest words. One dictionary per keyboard process, loaded once (about
/// 8 MiB for en_US); suggestions are remembered for the words typed lately,
/// since hunspell takes 10–40 ms to find them.
final class SpellChecker {
    private let handle: OpaquePointer
    private var remembered: [String: [String]] = [:]
    /// How many words' suggestions are kept (a few kilobytes).
    static let rememberedLimit = 256

    /// Where Debian's hunspell-en-us puts the dictionary.
    static let directory = "/usr/share/hunspell"

    /// Loads `language` ("en_US") from `directory`; nil when its files cannot be read.
    init?(language: String = "en_US", directory: String = SpellChecker.directory) {
        let aff = directory + "/" + language + ".aff", dic = directory + "/" + language + ".dic"
        guard access(aff, R_OK) == 0, access(dic, R_OK) == 0, let handle = Hunspell_create(aff, dic) else { return nil }
        self.handle = handle
    }

    deinit { Hunspell_destroy(handle) }

    /// Whether the dictionary knows the word as typed (hunspell also accepts
    /// a capitalized or upper-case form of a lower-case word).
    func isCorrect(_ word: String) -> Bool { Hunspell_spell(handle, word) != 0 }

    /// The dictionary's nearest words, best first.
    func suggestions(for word: String) -> [String] {
        if let known = remembered[word] { return known }
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = Hunspell_suggest(handle, &list, word)
        var words: [String] = []
        if let items = list {
            for i in 0..<Int(max(0, count)) {
                if let p = items[i] { words.append(String(cString: p)) }
            }
            Hunspell_free_list(handle, &list, count)
        }
        if remembered.count >= SpellChecker.rememberedLimit { remembered.removeAll(keepingCapacity: true) }
        remembered[word] = words
        return words
    }
}
