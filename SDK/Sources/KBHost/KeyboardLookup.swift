/// Finding a keyboard by what a person typed: its identifier, or its display name.
extension KeyboardRegistry {
    /// The keyboard `name` names: the one with that identifier; else, ignoring case, the one
    /// keyboard whose identifier or display name it is. A name several keyboards share is
    /// `.ambiguous` (naming them); nothing is `.unknown`, with the closest keyboards as suggestions.
    public func resolve(_ name: String) throws(RegistryError) -> KeyboardEntry {
        if let exact = entry(name) { return exact }
        let folded = name.lowercased()
        let matches = keyboards.filter { $0.identifier.lowercased() == folded || $0.manifest.displayName.lowercased() == folded }
        if matches.count == 1 { return matches[0] }
        if matches.count > 1 { throw .ambiguous(name, candidates: matches.map(\.identifier)) }
        throw .unknown(name, known: keyboards.map(\.identifier), suggestions: suggestions(for: name).map(\.identifier))
    }

    /// Keyboards close to `name`, closest first: its last component (or all of it) a few edits
    /// from an identifier's last component or a display name, or the beginning of one; or all of
    /// it a few edits from an identifier. A few: a third of the last component's length, 1 to 3.
    public func suggestions(for name: String, limit: Int = 3) -> [KeyboardEntry] {
        let typed = Self.folded(name)
        let last = Self.lastComponent(typed)
        guard !last.isEmpty else { return [] }
        let allowed = EditDistance.allowed(for: last)
        var scored: [(score: Int, entry: KeyboardEntry)] = []
        for entry in keyboards {
            let id = Self.folded(entry.identifier)
            let forms = [Self.lastComponent(id), Self.folded(entry.manifest.displayName)]
            var best = (forms.map { EditDistance.between(last, $0, limit: allowed + 1) } + [EditDistance.between(typed, id, limit: allowed + 1)]).min()!
            if last.count >= 3, forms.contains(where: { $0.hasPrefix(last) }) { best = min(best, 1) }
            if best <= allowed { scored.append((best, entry)) }
        }
        return scored.sorted { ($0.score, $0.entry.identifier) < ($1.score, $1.entry.identifier) }.prefix(limit).map(\.entry)
    }

    /// Lowercased, without spaces: "Number Pad" is close to "numberpad".
    static func folded(_ s: String) -> String { s.lowercased().filter { $0 != " " } }

    static func lastComponent(_ s: String) -> String { s.split(separator: ".").last.map(String.init) ?? s }
}
