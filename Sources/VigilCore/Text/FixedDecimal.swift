import Foundation

/// C's `%.Nf` without `String(format:)`, which on Linux goes through Foundation's formatter and
/// `vsnprintf` at a few microseconds a call: the server words every hang's title and subtitle
/// with it.
public enum FixedDecimal {
    /// `value` with `digits` (0…6) digits after the point, rounded as `%.*f` rounds: to the
    /// nearest, ties (exact ones, of the binary value) to even; a minus sign whenever the sign
    /// bit is set, `-0.0` included. Values whose scaled magnitude reaches 2⁵², and NaN and the
    /// infinities, are handed to `String(format:)`.
    public static func format(_ value: Double, digits: Int) -> String {
        let digits = max(0, min(6, digits))
        var scale = 1.0
        var divisor: UInt64 = 1
        for _ in 0..<digits {
            scale *= 10
            divisor *= 10
        }
        let magnitude = value.magnitude
        let scaled = magnitude * scale
        guard value.isFinite, scaled < 4_503_599_627_370_496 else { return String(format: "%.\(digits)f", value) }
        let floor = scaled.rounded(.down)
        // The sign of magnitude × scale − (floor + ½), exact: one fused multiply-add rounds once.
        let residual = (-(floor + 0.5)).addingProduct(magnitude, scale)
        var units = UInt64(floor)
        if residual > 0 || (residual == 0 && units % 2 == 1) { units += 1 }
        var text = value.sign == .minus ? "-" : ""
        text += String(units / divisor)
        if digits > 0 {
            let fraction = String(units % divisor)
            text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
        }
        return text
    }
}
