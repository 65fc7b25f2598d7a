import KeyboardSDK

/// The calculator keyboard of the seeds: the expression is built on the
/// keyboard's display line, not in the document; "=" inserts the result.
public final class CalculatorViewController: InputViewController {
    private var expression = Expression()

    static let appendToken = KeyAction("appendToken:", CalculatorViewController.appendToken)
    static let evaluate = KeyAction("evaluate", CalculatorViewController.evaluate)
    static let deleteToken = KeyAction("deleteToken", CalculatorViewController.deleteToken)
    static let clear = KeyAction("clear", CalculatorViewController.clear)

    override public class var keyActions: [KeyAction] { [appendToken, evaluate, deleteToken, clear] }

    override public func viewDidLoad() {
        keyboardLayout = makeLayout()
    }

    override public func viewWillAppear(_ animated: Bool) {
        // The globe key is shown only when the host does not draw its own.
        keyboardLayout = makeLayout()
    }

    private func makeLayout() -> KeyboardLayout {
        func token(_ label: String) -> KeySpec { KeySpec(label, action: CalculatorViewController.appendToken) }
        var bottom = [KeySpec("⌫", role: .delete, width: 1.5, action: CalculatorViewController.deleteToken, repeats: true)]
        if needsInputModeSwitchKey { bottom.insert(.globe(), at: 0) }
        return KeyboardLayout(display: expression.text, rows: [
            ["7", "8", "9", "÷"].map(token),
            ["4", "5", "6", "×"].map(token),
            ["1", "2", "3", "−"].map(token),
            [KeySpec("C", role: .function, action: CalculatorViewController.clear), token("0"),
             KeySpec("=", role: .function, action: CalculatorViewController.evaluate), token("+")],
            bottom,
        ])
    }

    func appendToken(_ key: Key) {
        expression.append(key.label)
        setDisplay(expression.text)
    }

    func deleteToken() {
        if expression.text.isEmpty {
            deleteBackward()  // nothing to edit on the keyboard: edit the document
        } else {
            expression.removeLast()
            setDisplay(expression.text)
        }
    }

    func clear() {
        expression = Expression()
        setDisplay("")
    }

    func evaluate() {
        switch expression.evaluate() {
        case .success(let value):
            textDocumentProxy.insertText(value)
            expression = Expression()
            setDisplay("")
        case .failure(let error):
            setDisplay("\(expression.text) — \(error.message)")
        }
    }
}
