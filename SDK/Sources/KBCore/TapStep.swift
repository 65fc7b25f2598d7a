public import KBText

/// One step of a tap script, as `kbhost type`, `kbhost profile` and
/// KeyboardProcess.run(script:) take them: a key name (label, role or id:NAME),
/// double:KEY, long:KEY, long:KEY:CHOICE (pick one of the key's alternates), hold:KEY:MS, pause:MS,
/// drag:KEY:DX[,DY]/… (a drag from the key's centre), rotate:portrait|landscape|WxH, and `reopen`
/// (the keyboard is dismissed and presented again: a new controller in the same process, as
/// iOS does; a key labelled "reopen" is reached with id:). `-`, `*` and `/` also reach `−`,
/// `×` and `÷`, as in `kbhost attach`.
public struct TapStep: Sendable {
    public enum Kind: Hashable, Sendable {
        case gesture(Gesture, String), pause(Int), rotate(width: Double, height: Double), reopen
        /// A long press on the key, then one of the alternates it offers picked (`long:KEY:CHOICE`).
        case chooseAlternate(String, choice: String)
        /// A drag from the key's centre through points given from there, in points (`drag:KEY:DX[,DY]/…`).
        case drag(String, path: [DragOffset])
    }

    /// A point of a drag, from where it began, in points (right and down are positive).
    public struct DragOffset: Hashable, Sendable {
        public var dx: Double
        public var dy: Double

        public init(dx: Double, dy: Double = 0) {
            self.dx = dx
            self.dy = dy
        }
    }

    /// A token that is not a step; says which and why.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// The keyboard's size in each orientation, in points (an iPhone's standard keyboard).
    public static let portrait = (width: 375.0, height: 216.0)
    public static let landscape = (width: 667.0, height: 162.0)
    public let kind: Kind

    public init(_ token: String) throws(Invalid) {
        let parts = token.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        func ms(_ s: String) throws(Invalid) -> Int {
            guard let n = Int(s), n >= 0, n <= 600_000 else { throw Invalid(description: "'\(token)': '\(s)' is not a duration in ms (0…600000)") }
            return n
        }
        switch parts.first {
        case "double" where parts.count == 2: kind = .gesture(.doubleTap, parts[1])
        case "long" where parts.count == 2: kind = .gesture(.longPress, parts[1])
        case "long" where parts.count == 3:
            // long:KEY:CHOICE, long:id:NAME, long:id:NAME:CHOICE
            let (name, choice) = TapStep.keyAndRest(parts)
            if parts[1] == "id" { kind = choice.map { .chooseAlternate(name, choice: $0) } ?? .gesture(.longPress, name) }
            else if !name.isEmpty, let choice, !choice.isEmpty { kind = .chooseAlternate(name, choice: choice) }
            else { kind = .gesture(.tap, token) }
        case "hold" where parts.count == 3: kind = .gesture(.hold(milliseconds: try ms(parts[2])), parts[1])
        case "drag" where parts.count == 3 && !parts[1].isEmpty:
            // drag:KEY:PATH, drag:id:NAME:PATH
            let (name, path) = TapStep.keyAndRest(parts)
            guard let path, name != "id:" else { throw Invalid(description: "'\(token)': drag:id:NAME:DX[,DY]/… needs a name and a path") }
            kind = .drag(name, path: try TapStep.path(path, token))
        case "pause" where parts.count == 2: kind = .pause(try ms(parts[1]))
        case "reopen" where parts.count == 1: kind = .reopen
        case "rotate" where parts.count == 2:
            switch parts[1] {
            case "portrait": kind = .rotate(width: TapStep.portrait.width, height: TapStep.portrait.height)
            case "landscape": kind = .rotate(width: TapStep.landscape.width, height: TapStep.landscape.height)
            default:
                let size = parts[1].split(separator: "x").compactMap { Double($0) }
                guard size.count == 2, size.allSatisfy({ $0 > 0 && $0 <= 10_000 }) else {
                    throw Invalid(description: "'\(token)': rotate to portrait, landscape or WIDTHxHEIGHT in points")
                }
                kind = .rotate(width: size[0], height: size[1])
            }
        default: kind = .gesture(.tap, token)
        }
    }

    /// The key a three-part token names and what follows it: `x:KEY:REST`, or `x:id:NAME[:REST]`
    /// (an identifier spelled with its `id:`).
    static func keyAndRest(_ parts: [String]) -> (key: String, rest: String?) {
        guard parts[1] == "id" else { return (parts[1], parts[2]) }
        let rest = parts[2].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        return ("id:" + rest[0], rest.count == 2 ? rest[1] : nil)
    }

    /// A drag's path: points "DX" or "DX,DY", separated by "/" (1 to 1000, each within ±10000 points).
    static func path(_ text: String, _ token: String) throws(Invalid) -> [DragOffset] {
        var path: [DragOffset] = []
        for point in text.split(separator: "/", omittingEmptySubsequences: false) {
            let figures = point.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
            guard (1...2).contains(figures.count), figures.allSatisfy({ $0 != nil && $0!.isFinite && abs($0!) <= 10_000 }) else {
                throw Invalid(description: "'\(token)': drag:KEY:DX[,DY]/… — '\(point)' is not a point (DX or DX,DY in points, within ±10000)")
            }
            path.append(DragOffset(dx: figures[0]!, dy: figures.count == 2 ? figures[1]! : 0))
        }
        guard path.count <= 1000 else { throw Invalid(description: "'\(token)': a drag has at most 1000 points") }
        return path
    }

    /// The steps of a whole script (whitespace-separated tokens).
    public static func script(_ text: String) throws(Invalid) -> [TapStep] {
        var steps: [TapStep] = []
        for token in text.split(whereSeparator: \.isWhitespace) { steps.append(try TapStep(String(token))) }
        return steps
    }
}
