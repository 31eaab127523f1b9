/// A point on a monotonic clock, in nanoseconds from an arbitrary origin (boot, on the real
/// clocks). Only differences between instants of the same clock mean anything.
public struct MonotonicInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: UInt64

    /// Wraps a raw nanosecond count.
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The instant `milliseconds` after the origin (saturating at the clock's end; NaN and
    /// negative values give the origin); convenient in tests.
    public static func milliseconds(_ milliseconds: Double) -> MonotonicInstant {
        let nanoseconds = max(0, milliseconds) * 1_000_000
        // 2^64 is the first Double beyond UInt64.max.
        return MonotonicInstant(nanoseconds: nanoseconds >= 0x1p64 ? .max : UInt64(nanoseconds))
    }

    /// This instant moved by `nanoseconds` (negative moves back), saturating at the origin and
    /// at the clock's end.
    public func advanced(byNanoseconds nanoseconds: Int64) -> MonotonicInstant {
        if nanoseconds >= 0 {
            let (sum, overflow) = self.nanoseconds.addingReportingOverflow(UInt64(nanoseconds))
            return MonotonicInstant(nanoseconds: overflow ? .max : sum)
        }
        let back = nanoseconds.magnitude
        return MonotonicInstant(nanoseconds: back > self.nanoseconds ? 0 : self.nanoseconds - back)
    }

    /// This instant moved by `milliseconds`, saturating like ``advanced(byNanoseconds:)``; an
    /// absurd amount (infinite, or beyond 292 years) saturates instead of trapping, and NaN
    /// leaves the instant where it is. Detectors derive such amounts from inputs they do not
    /// control (a sampling interval that doubled at every ring thinning).
    public func advanced(byMilliseconds milliseconds: Double) -> MonotonicInstant {
        let nanoseconds = milliseconds * 1_000_000
        guard !nanoseconds.isNaN else { return self }
        // ±2^63 is the first Double outside Int64's range.
        if nanoseconds >= 0x1p63 { return MonotonicInstant(nanoseconds: .max) }
        if nanoseconds <= -0x1p63 { return MonotonicInstant(nanoseconds: 0) }
        return advanced(byNanoseconds: Int64(nanoseconds))
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
