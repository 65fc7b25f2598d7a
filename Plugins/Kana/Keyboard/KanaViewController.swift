import KeyboardSDK

/// A Japanese keyboard with kana–kanji conversion (anthy), like iOS's Japanese
/// Romaji keyboard:
///
/// - letters compose hiragana as marked text ("nihongo" → にほんご), the
///   insertion point at its end;
/// - space converts it (変換), then moves to the next candidate of the current
///   segment; the candidate row at the top shows that segment's candidates;
/// - return (確定) commits; tapping a candidate chooses it and goes on to the
///   next segment, or commits after the last one;
/// - ◀ ▶ move between segments, 縮 and 伸 make the current one shorter or longer;
/// - delete edits the composition (during a conversion: back to the kana)
///   before it touches the document;
/// - ABC / かな switches between kana and plain ASCII letters.
public final class KanaViewController: InputViewController {
    enum Mode: Sendable { case kana, ascii }

    private var mode = Mode.kana
    private var shiftOn = false
    private var composer = RomajiComposer()
    private var conversion: Conversion?
    private var converter: KanaConverter?

    /// Candidates shown at a time; space pages through the rest.
    static let candidatesPerPage = 6

    static let typeLetter = KeyAction("typeLetter:", KanaViewController.typeLetter)
    static let typePunctuation = KeyAction("typePunctuation:", KanaViewController.typePunctuation)
    static let convert = KeyAction("convert", KanaViewController.convert)
    static let confirm = KeyAction("confirm", KanaViewController.confirm)
    static let deleteBackwardInComposition = KeyAction("deleteBackwardInComposition", KanaViewController.deleteBackwardInComposition)
    static let chooseCandidate = KeyAction("chooseCandidate:", KanaViewController.chooseCandidate)
    static let previousSegment = KeyAction("previousSegment", KanaViewController.previousSegment)
    static let nextSegment = KeyAction("nextSegment", KanaViewController.nextSegment)
    static let shrinkSegment = KeyAction("shrinkSegment", KanaViewController.shrinkSegment)
    static let extendSegment = KeyAction("extendSegment", KanaViewController.extendSegment)
    static let toggleMode = KeyAction("toggleMode", KanaViewController.toggleMode)
    static let toggleShift = KeyAction("toggleShift", KanaViewController.toggleShift)

    override public class var keyActions: [KeyAction] {[
        typeLetter, typePunctuation, convert, confirm, deleteBackwardInComposition, chooseCandidate,
        previousSegment, nextSegment, shrinkSegment, extendSegment, toggleMode, toggleShift,
    ]}

    override public func viewDidLoad() {
        let converter = KanaConverter(home: containerPath)
        if !converter.isAvailable { log("anthy is not available: kana and katakana only, no kanji") }
        self.converter = converter
        render()
    }

    override public func viewWillAppear(_ animated: Bool) { render() }

    /// Switching away commits what is being composed, as it is.
    override public func viewWillDisappear(_ animated: Bool) { commitComposition() }

    /// The app changed the document: a composition it committed is over.
    override public func textDidChange(_ textInput: TextInput?) { forgetCompositionIfCommitted() }
    override public func selectionDidChange(_ textInput: TextInput?) { forgetCompositionIfCommitted() }

    var isComposing: Bool { conversion != nil || !composer.isEmpty }

    // MARK: Keys

    func typeLetter(_ key: Key) {
        guard mode == .kana else {
            textDocumentProxy.insertText(key.label)
            if shiftOn { shiftOn = false; render() }
            return
        }
        if conversion != nil { commitComposition() }  // typing on after a conversion accepts it
        for letter in key.label { composer.type(letter) }
        showComposition()
    }

    /// 、。ー join the composition in kana mode; in ASCII mode, , . - are typed.
    func typePunctuation(_ key: Key) {
        guard mode == .kana else { return textDocumentProxy.insertText(key.label) }
        if conversion != nil { commitComposition() }
        composer.append(key.label)
        showComposition()
    }

    /// Space: converts the composition, then the next candidate; without one, a space.
    func convert() {
        if var conversion {
            conversion.nextCandidate()
            self.conversion = conversion
        } else if !composer.isEmpty, let converter {
            composer.flush()
            conversion = Conversion(reading: composer.text, segments: converter.convert(composer.text))
        } else {
            return textDocumentProxy.insertText(mode == .kana ? "\u{3000}" : " ")
        }
        showComposition()
    }

    /// Return: commits the composition; without one, a new line.
    func confirm() {
        if isComposing { commitComposition() } else { textDocumentProxy.insertText("\n") }
    }

    /// Commits what is being composed (nothing when nothing is).
    private func commitComposition() {
        guard isComposing else { return }
        let text: String
        if let conversion {
            converter?.learn(conversion.choices)
            text = conversion.text
        } else {
            composer.flush()
            text = composer.text
        }
        // The marked text is committed as it is, or replaced where it differs (a last "n" became ん).
        if textDocumentProxy.markedText == text { textDocumentProxy.unmarkText() } else { textDocumentProxy.insertText(text) }
        composer = RomajiComposer()
        conversion = nil
        render()
    }

    /// Delete: during a conversion, back to the kana; while composing, the
    /// last letter or kana; otherwise the document's character before the insertion point.
    func deleteBackwardInComposition() {
        if let conversion {
            composer = RomajiComposer(kana: conversion.reading)
            self.conversion = nil
        } else if !composer.isEmpty {
            composer.deleteBackward()
        } else {
            return deleteBackward()
        }
        showComposition()
    }

    /// A candidate key: chosen for the current segment; then the next
    /// segment, or after the last one, the whole conversion is committed.
    func chooseCandidate(_ key: Key) {
        guard var conversion, let n = Int(key.identifier.dropFirst("candidate.".count)) else { return }
        conversion.choose(n)
        self.conversion = conversion
        if conversion.isLastSegment { return commitComposition() }
        self.conversion?.moveSegment(by: 1)
        showComposition()
    }

    func previousSegment() { moveSegment(by: -1) }
    func nextSegment() { moveSegment(by: 1) }
    func shrinkSegment() { resizeSegment(by: -1) }
    func extendSegment() { resizeSegment(by: 1) }

    private func moveSegment(by offset: Int) {
        guard conversion?.moveSegment(by: offset) == true else { return }
        showComposition()
    }

    private func resizeSegment(by delta: Int) {
        guard var conversion, let converter else { return }
        let length = conversion.currentSegment.reading.count
        guard delta > 0 || length > 1 else { return }  // a segment keeps at least one kana
        guard let segments = converter.resizeSegment(conversion.current, by: delta) else { return }
        conversion.replaceSegments(segments)
        self.conversion = conversion
        showComposition()
    }

    func toggleMode() {
        commitComposition()
        mode = mode == .kana ? .ascii : .kana
        shiftOn = false
        render()
    }

    func toggleShift() {
        shiftOn.toggle()
        render()
    }

    // MARK: The composition in the document

    /// Sets the marked text: the kana with the insertion point at its end, or
    /// the conversion with its current segment selected.
    private func showComposition() {
        if let conversion {
            textDocumentProxy.setMarkedText(conversion.text, selectedRange: conversion.currentRange)
        } else {
            let end = composer.text.utf16.count
            textDocumentProxy.setMarkedText(composer.text, selectedRange: end ..< end)
        }
        render()
    }

    private func forgetCompositionIfCommitted() {
        guard isComposing, textDocumentProxy.markedText == nil else { return }
        composer = RomajiComposer()
        conversion = nil
        render()
    }

    private func render() {
        keyboardLayout = KanaLayout.make(mode: mode, shiftOn: shiftOn, composing: isComposing, conversion: conversion,
                                         globe: needsInputModeSwitchKey)
    }
}
