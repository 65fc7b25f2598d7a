/// How far apart two words are, for "did you mean" (keyboards, commands).
public enum EditDistance {
    /// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`; anything over `limit` is `limit`.
    public static func between(_ a: String, _ b: String, limit: Int) -> Int {
        let a = Array(a), b = Array(b)
        if abs(a.count - b.count) >= limit { return limit }
        guard !a.isEmpty, !b.isEmpty else { return min(max(a.count, b.count), limit) }
        var before = [Int](), previous = Array(0...b.count)
        for i in 1...a.count {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { row[j] = min(row[j], before[j - 2] + 1) }
            }
            if row.min()! >= limit { return limit }
            (before, previous) = (previous, row)
        }
        return min(previous[b.count], limit)
    }

    /// How many edits still make a near miss of a word this long: a third of it, 1 to 3.
    public static func allowed(for word: String) -> Int { max(1, min(3, word.count / 3)) }

    /// The words close to `word` (ignoring case): a few edits away, or begun by it (3 or more
    /// characters); closest first, then in their order.
    public static func closest(to word: String, among words: [String], limit: Int = 3) -> [String] {
        let typed = word.lowercased()
        let allowed = allowed(for: typed)
        let scored = words.enumerated().compactMap { i, candidate -> (Int, Int, String)? in
            let c = candidate.lowercased()
            var score = between(typed, c, limit: allowed + 1)
            if typed.count >= 3, c.hasPrefix(typed) { score = min(score, 1) }
            return score <= allowed ? (score, i, candidate) : nil
        }
        return scored.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.prefix(limit).map(\.2)
    }
}
