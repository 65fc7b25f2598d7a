/// An arithmetic expression typed one key at a time: digits, a decimal point,
/// and + − × ÷ with the usual precedence. Evaluated without Foundation.
struct Expression: Sendable {
    private(set) var text = ""

    struct EvaluationError: Error, Sendable {
        let message: String
    }

    static let operators: Set<Character> = ["+", "−", "×", "÷"]

    mutating func append(_ token: String) {
        guard let c = token.first, token.count == 1 else { return }
        if Expression.operators.contains(c) {
            if text.isEmpty { if c != "−" { return } }  // only a sign may start an expression
            else if let last = text.last, Expression.operators.contains(last) { text.removeLast() }
        }
        text.append(c)
    }

    mutating func removeLast() {
        if !text.isEmpty { text.removeLast() }
    }

    /// The value as the text to insert: integers without a decimal point,
    /// other values to at most ten decimals.
    func evaluate() -> Result<String, EvaluationError> {
        var numbers: [Double] = []
        var operators: [Character] = []
        var current = ""
        for c in text {
            if Expression.operators.contains(c) && !(current.isEmpty && c == "−" && numbers.count == operators.count) {
                guard let n = Double(current) else { return .failure(EvaluationError(message: "incomplete")) }
                numbers.append(n)
                operators.append(c)
                current = ""
            } else {
                current.append(c == "−" ? "-" : c)
            }
        }
        guard let last = Double(current) else { return .failure(EvaluationError(message: "incomplete")) }
        numbers.append(last)

        // × and ÷ first, then + and −, left to right.
        var sums = [numbers[0]]
        var signs: [Character] = []
        for (i, op) in operators.enumerated() {
            let rhs = numbers[i + 1]
            switch op {
            case "×": sums[sums.count - 1] *= rhs
            case "÷":
                guard rhs != 0 else { return .failure(EvaluationError(message: "division by zero")) }
                sums[sums.count - 1] /= rhs
            default:
                sums.append(rhs)
                signs.append(op)
            }
        }
        var value = sums[0]
        for (i, sign) in signs.enumerated() { value = sign == "+" ? value + sums[i + 1] : value - sums[i + 1] }
        return .success(Expression.format(value))
    }

    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "Error" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        let rounded = (value * 1e10).rounded() / 1e10
        return String(rounded)
    }
}
