/// UIKit's spellings of the geometry a keyboard sees, without Foundation or CoreGraphics.
///
/// On iOS these come from CoreGraphics; here they are plain values. A module that
/// compiles for both imports `KeyboardUIKitCompat` only where UIKit is missing
/// (`#if canImport(UIKit)`), and does not import Foundation on kbhost (Foundation
/// declares `CGFloat` and `NSRange` as well, and it would load into the keyboard's
/// memory budget).

/// CoreGraphics' scalar: a `Double` here (on iOS a struct that converts to and from it).
public typealias CGFloat = Double

/// A duration in seconds, as Foundation spells it.
public typealias TimeInterval = Double

/// A width and a height in points: the keyboard's size in `viewWillTransition(to:with:)`.
public struct CGSize: Hashable, Sendable {
    /// The width, in points.
    public var width: CGFloat
    /// The height, in points.
    public var height: CGFloat

    /// A size of `width` × `height` points.
    public init(width: CGFloat, height: CGFloat) {
        self.width = width
        self.height = height
    }

    /// 0 × 0.
    public static let zero = CGSize(width: 0, height: 0)
}

/// A point, in points from the top left.
public struct CGPoint: Hashable, Sendable {
    /// The horizontal distance from the left.
    public var x: CGFloat
    /// The vertical distance from the top.
    public var y: CGFloat

    /// The point (`x`, `y`).
    public init(x: CGFloat, y: CGFloat) {
        self.x = x
        self.y = y
    }

    /// (0, 0).
    public static let zero = CGPoint(x: 0, y: 0)
}

/// A rectangle: an origin and a size.
public struct CGRect: Hashable, Sendable {
    /// The top left corner.
    public var origin: CGPoint
    /// The width and height.
    public var size: CGSize

    /// A rectangle at `origin` of `size`.
    public init(origin: CGPoint, size: CGSize) {
        self.origin = origin
        self.size = size
    }

    /// A rectangle from its corner and size.
    public init(x: CGFloat, y: CGFloat, width: CGFloat, height: CGFloat) {
        self.init(origin: CGPoint(x: x, y: y), size: CGSize(width: width, height: height))
    }

    /// The width (`size.width`).
    public var width: CGFloat { size.width }
    /// The height (`size.height`).
    public var height: CGFloat { size.height }

    /// The empty rectangle at (0, 0).
    public static let zero = CGRect(origin: .zero, size: .zero)
}

/// A range of UTF-16 code units, as Foundation's `NSRange` (the marked text's selection).
public struct NSRange: Hashable, Sendable {
    /// The first unit.
    public var location: Int
    /// How many units.
    public var length: Int

    /// The range of `length` units from `location`.
    public init(location: Int, length: Int) {
        self.location = location
        self.length = length
    }

    /// The same range as a Swift range of offsets.
    public init(_ range: Range<Int>) {
        self.init(location: range.lowerBound, length: range.count)
    }

    /// One past the last unit.
    public var upperBound: Int { location + length }
}

/// "No such location": Foundation's `NSNotFound`.
public let NSNotFound = Int.max

/// `NSRange(location:length:)` as the C function spells it.
public func NSMakeRange(_ location: Int, _ length: Int) -> NSRange {
    NSRange(location: location, length: length)
}
