/// A point on a monotonic clock, in nanoseconds from an arbitrary origin (boot, on the real
/// clocks). Only differences between instants of the same clock mean anything.
public struct MonotonicInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: UInt64

    /// Wraps a raw nanosecond count.
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The instant `milliseconds` after the origin; convenient in tests.
    public static func milliseconds(_ milliseconds: Double) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: UInt64(max(0, milliseconds) * 1_000_000))
    }

    /// This instant moved by `nanoseconds` (negative moves back, saturating at the origin).
    public func advanced(byNanoseconds nanoseconds: Int64) -> MonotonicInstant {
        if nanoseconds >= 0 {
            return MonotonicInstant(nanoseconds: self.nanoseconds &+ UInt64(nanoseconds))
        }
        let back = nanoseconds.magnitude
        return MonotonicInstant(nanoseconds: back > self.nanoseconds ? 0 : self.nanoseconds - back)
    }

    /// This instant moved by `milliseconds`.
    public func advanced(byMilliseconds milliseconds: Double) -> MonotonicInstant {
        advanced(byNanoseconds: Int64(milliseconds * 1_000_000))
    }

    /// Signed nanoseconds from `other` to `self`.
    public func nanoseconds(since other: MonotonicInstant) -> Int64 {
        self.nanoseconds >= other.nanoseconds
            ? Int64(clamping: self.nanoseconds - other.nanoseconds)
            : -Int64(clamping: other.nanoseconds - self.nanoseconds)
    }

    /// Signed milliseconds from `other` to `self`.
    public func milliseconds(since other: MonotonicInstant) -> Double {
        Double(nanoseconds(since: other)) / 1_000_000
    }

    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    public var description: String { "\(Double(nanoseconds) / 1_000_000)ms" }
}
