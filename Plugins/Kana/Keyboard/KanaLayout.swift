import KeyboardSDK

/// The Kana keyboard's keys, from its state:
///
///     [candidates of the current segment…]                   (while converting)
///     q w e r t y u i o p
///     a s d f g h j k l ー
///     z x c v b n m 、 。                  (ASCII: ⇧ first, and , . - for 、。ー)
///     ABC 🌐 [◀ 縮] 空白/変換 [伸 ▶] ⌫ 改行/確定
enum KanaLayout {
    static func make(mode: KanaViewController.Mode, shiftOn: Bool, composing: Bool, conversion: Conversion?,
                     globe: Bool) -> KeyboardLayout {
        let kana = mode == .kana
        func letters(_ row: String) -> [KeySpec] {
            row.map { KeySpec(!kana && shiftOn ? $0.uppercased() : String($0), action: KanaViewController.typeLetter) }
        }
        func punctuation(_ labels: [String]) -> [KeySpec] {
            labels.map { KeySpec($0, action: KanaViewController.typePunctuation) }
        }
        var third = letters("zxcvbnm") + punctuation(kana ? ["、", "。"] : [",", "."])
        if !kana {
            third.insert(KeySpec(shiftOn ? "⇧" : "⇪", identifier: "shift", role: .shift, width: 1.5,
                                 action: KanaViewController.toggleShift), at: 0)
        }

        var bottom = [KeySpec(kana ? "ABC" : "かな", identifier: "mode", role: .mode, width: 1.5,
                              action: KanaViewController.toggleMode)]
        if globe { bottom.append(.globe()) }
        let space = KeySpec(!kana ? "space" : composing ? "変換" : "空白", role: .space, width: conversion == nil ? 4 : 2,
                            action: KanaViewController.convert)
        if conversion != nil {
            bottom += [tool("◀", "left", KanaViewController.previousSegment), tool("縮", "shrink", KanaViewController.shrinkSegment),
                       space,
                       tool("伸", "extend", KanaViewController.extendSegment), tool("▶", "right", KanaViewController.nextSegment)]
        } else {
            bottom.append(space)
        }
        bottom += [KeySpec("⌫", identifier: "delete", role: .delete, width: 1.5,
                           action: KanaViewController.deleteBackwardInComposition, repeats: true),
                   KeySpec(composing ? "確定" : kana ? "改行" : "return", role: .return, width: 2, action: KanaViewController.confirm)]

        return KeyboardLayout(display: conversion.map(status) ?? "", rows: [
            conversion.map(candidateRow) ?? [],
            letters("qwertyuiop"),
            letters("asdfghjkl") + punctuation([kana ? "ー" : "-"]),
            third,
            bottom,
        ])
    }

    /// The page of the current segment's candidates that holds the chosen one.
    static func candidateRow(_ conversion: Conversion) -> [KeySpec] {
        let candidates = conversion.currentSegment.candidates
        let perPage = KanaViewController.candidatesPerPage
        let start = conversion.currentChoice / perPage * perPage
        return (start ..< min(start + perPage, candidates.count)).map { i in
            KeySpec(candidates[i], identifier: "candidate.\(i)", role: .function, action: KanaViewController.chooseCandidate)
        }
    }

    /// The display line while converting: the segment's reading, and which candidate of how many.
    static func status(_ conversion: Conversion) -> String {
        "\(conversion.currentSegment.reading)  \(conversion.currentChoice + 1)/\(conversion.currentSegment.candidates.count)"
    }

    private static func tool(_ label: String, _ identifier: String, _ action: KeyAction) -> KeySpec {
        KeySpec(label, identifier: identifier, role: .function, action: action)
    }
}
