// The seed's SCK/Model/ShiftState.swift. On iOS it is an ObservableObject whose @Published
// state redraws the SwiftUI views; without Combine, KeyboardView redraws on `onChange`.
#if canImport(Combine)
import Combine

final class ShiftState: ObservableObject {
    enum State { case off, on }
    @Published var state: State = .off
    func toggle() { state = (state == .off ? .on : .off) }
}
#else
final class ShiftState {
    enum State { case off, on }
    var state: State = .off { didSet { onChange?() } }
    var onChange: (() -> Void)?
    func toggle() { state = (state == .off ? .on : .off) }
}
#endif
