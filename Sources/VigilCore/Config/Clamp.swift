/// Range clamping for configuration values that may come from outside (remote config).
enum Clamp {
    /// `value` forced into `range`; NaN and infinities become `fallback`.
    static func value(_ value: Double, _ range: ClosedRange<Double>, default fallback: Double) -> Double {
        guard value.isFinite else { return min(max(fallback, range.lowerBound), range.upperBound) }
        return min(max(value, range.lowerBound), range.upperBound)
    }
}
