/// The Science keyboard's pages, as in the ScienceCustomKeyboard seed.
enum KeyboardMode: Int, CaseIterable, Sendable {
    case `default` = 0, subscriptMode, superscript, greek, math

    /// The mode key's label and identifier.
    var label: String {
        switch self {
        case .default: "abc"
        case .subscriptMode: "x₂"
        case .superscript: "x²"
        case .greek: "αβγ"
        case .math: "∑∫"
        }
    }

    var identifier: String { "mode.\(rawValue)" }

    /// The character rows of the page, lower case (shift maps them, where it can).
    var rows: [[String]] {
        switch self {
        case .default:
            [Array("1234567890").map(String.init),
             Array("qwertyuiop").map(String.init),
             Array("asdfghjkl").map(String.init),
             Array("zxcvbnm").map(String.init),
             ["+", "-", "*", "/", "=", "(", ")", "."]]
        case .subscriptMode:
            [Array("₁₂₃₄₅₆₇₈₉₀").map(String.init),
             Array("ₐₑₒₓₕₖₗₘₙₚₛₜ").map(String.init),
             Array("₊₋₌₍₎").map(String.init)]
        case .superscript:
            [Array("¹²³⁴⁵⁶⁷⁸⁹⁰").map(String.init),
             Array("ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ").map(String.init),
             Array("⁺⁻⁼⁽⁾").map(String.init)]
        case .greek:
            [Array("αβγδεζηθ").map(String.init),
             Array("ικλμνξοπ").map(String.init),
             Array("ρστυφχψω").map(String.init)]
        case .math:
            [Array("∑∏∫∮∂∇√∞").map(String.init),
             Array("≈≠≡≤≥±∓·°").map(String.init),
             Array("∈∉⊂⊃∪∩∀∃").map(String.init),
             Array("¬∧∨→⇒⇔∴∵").map(String.init)]
        }
    }

    /// Whether shift changes this page's letters.
    var hasCase: Bool { self == .default || self == .greek }
}

/// Upper-cases a key label for shift (Greek included); labels without case are kept.
func shifted(_ label: String) -> String {
    if label == "ς" { return "Σ" }
    return label.uppercased()
}
