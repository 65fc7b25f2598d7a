// The seed's SCK/Model/KeyboardMode.swift, as it is.
enum KeyboardMode: Int {
    case `default` = 0      // 通常モード
    case subscriptMode = 1  // 下付き文字
    case superscript = 2    // 上付き文字
    case greek = 3          // ギリシャ文字
    case math = 4           // 数学記号
}
