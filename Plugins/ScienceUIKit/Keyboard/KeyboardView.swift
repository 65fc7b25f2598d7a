// The seed's SCK/View (KeyboardView and its components) for kbhost: the same initializer,
// the same modes, rows and buttons, drawn by the host from the keys it sets rather than by
// SwiftUI. On iOS this file is the seed's SwiftUI view, so it is compiled only here.
#if !canImport(UIKit)
import KeyboardSDK
import KeyboardUIKitCompat

/// The keyboard's view: a toolbar (modes, cursor, return), the mode's rows, and the bottom
/// row (next keyboard, shift, space, delete), as KeyboardView.swift arranges them.
final class KeyboardView {
    let needsInputModeSwitchKey: Bool
    let nextKeyboardAction: KeyAction
    let inputTextAction: (String) -> Void
    let deleteTextAction: () -> Void
    let moveRightAction: () -> Void
    let moveLeftAction: () -> Void

    /// SwiftUI's @State in the seed: the mode shown.
    var mode: KeyboardMode = .default { didSet { redraw() } }
    /// Shared with the shift key and the rows, as in the seed.
    let shiftState = ShiftState()
    /// Landscape: no number row.
    var isCompact = false { didSet { redraw() } }
    private weak var controller: UIInputViewController?

    init(needsInputModeSwitchKey: Bool, nextKeyboardAction: KeyAction, inputTextAction: @escaping (String) -> Void,
         deleteTextAction: @escaping () -> Void, moveRightAction: @escaping () -> Void, moveLeftAction: @escaping () -> Void) {
        self.needsInputModeSwitchKey = needsInputModeSwitchKey
        self.nextKeyboardAction = nextKeyboardAction
        self.inputTextAction = inputTextAction
        self.deleteTextAction = deleteTextAction
        self.moveRightAction = moveRightAction
        self.moveLeftAction = moveLeftAction
        shiftState.onChange = { [weak self] in self?.redraw() }
    }

    /// Where UIHostingController would put it: the controller's keys.
    func show(in controller: UIInputViewController) {
        self.controller = controller
        redraw()
    }

    private func redraw() {
        controller?.setKeys(body)
    }

    var body: [[KeyButton]] {
        [toolbar] + rows(for: mode).map { $0.map(characterKey) } + [bottomRow]
    }

    // MARK: Components (NumRow, KeyRow, OperatorRow, ShiftKeyButton, DeleteButton, NextKeyboardButton)

    private var toolbar: [KeyButton] {
        let modes: [(KeyboardMode, String)] = [(.default, "abc"), (.subscriptMode, "x₂"), (.superscript, "x²"),
                                                (.greek, "αβγ"), (.math, "∑∫")]
        return modes.map { mode, title in
            KeyButton(title, identifier: "mode.\(mode.rawValue)", role: .mode) { [weak self] in self?.mode = mode }
        } + [
            KeyButton("◀", identifier: "left", role: .function, repeats: true, action: moveLeftAction),
            KeyButton("▶", identifier: "right", role: .function, repeats: true, action: moveRightAction),
            KeyButton("⏎", identifier: "return", role: .return, width: 1.5) { [inputTextAction] in inputTextAction("\n") },
        ]
    }

    private func rows(for mode: KeyboardMode) -> [[String]] {
        let numRow = isCompact ? [] : [Self.numRow(mode)]
        switch mode {
        case .default:
            return numRow + ["qwertyuiop", "asdfghjkl", "zxcvbnm"].map(Self.keyRow) + [["+", "-", "×", "÷", "=", "(", ")", "/"]]
        case .subscriptMode:
            return numRow + [Self.keyRow("ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"), Self.keyRow("₊₋₌₍₎")]
        case .superscript:
            return numRow + [Self.keyRow("ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐ"), Self.keyRow("ⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"), Self.keyRow("⁺⁻⁼⁽⁾")]
        case .greek:
            return ["αβγδεζηθ", "ικλμνξοπ", "ρσςτυφχψω"].map(Self.keyRow)
        case .math:
            return ["∑∏∫∮∂∇√∞", "≈≠≡≤≥±∓·°", "∈∉⊂⊃∪∩∀∃", "¬∧∨→⇒⇔∴∵"].map(Self.keyRow)
        }
    }

    /// NumRow: 1 … 0, in the mode's digits.
    private static func numRow(_ mode: KeyboardMode) -> [String] {
        switch mode {
        case .subscriptMode: keyRow("₁₂₃₄₅₆₇₈₉₀")
        case .superscript: keyRow("¹²³⁴⁵⁶⁷⁸⁹⁰")
        default: keyRow("1234567890")
        }
    }

    private static func keyRow(_ characters: String) -> [String] { characters.map(String.init) }

    /// A character key: its label upper-cased while shift is on (where it has case).
    private func characterKey(_ label: String) -> KeyButton {
        let title = shiftState.state == .on ? Self.shifted(label) : label
        return KeyButton(title, identifier: "key.\(label)") { [inputTextAction] in inputTextAction(title) }
    }

    private static func shifted(_ label: String) -> String {
        label == "ς" ? "Σ" : label.uppercased()
    }

    private var bottomRow: [KeyButton] {
        var row = [
            KeyButton(shiftState.state == .on ? "⇧" : "⇪", identifier: "shift", role: .shift, width: 1.5) { [weak self] in
                self?.shiftState.toggle()
            },
            KeyButton("space", identifier: "space", role: .space, width: 4) { [inputTextAction] in inputTextAction(" ") },
            KeyButton("⌫", identifier: "delete", role: .delete, width: 1.5, repeats: true, action: deleteTextAction),
        ]
        if needsInputModeSwitchKey {
            row.insert(KeyButton(KeySpec("🌐", identifier: "globe", role: .globe, action: nextKeyboardAction,
                                         longPressAction: nextKeyboardAction)), at: 0)
        }
        return row
    }
}
#endif
