/// Random W3C trace-context identifiers in their lowercase hex form.
public enum TraceIdentifier {
    /// A 16-byte trace id as 32 lowercase hex digits, never all zero.
    public static func traceId<G: RandomNumberGenerator>(using generator: inout G) -> String {
        var high = generator.next() as UInt64
        let low = generator.next() as UInt64
        if high == 0 && low == 0 { high = 1 }
        return hex(high) + hex(low)
    }

    /// An 8-byte span id as 16 lowercase hex digits, never all zero.
    public static func spanId<G: RandomNumberGenerator>(using generator: inout G) -> String {
        var value = generator.next() as UInt64
        if value == 0 { value = 1 }
        return hex(value)
    }

    /// A trace id from the system's random source.
    public static func traceId() -> String {
        var generator = SystemRandomNumberGenerator()
        return traceId(using: &generator)
    }

    /// A span id from the system's random source.
    public static func spanId() -> String {
        var generator = SystemRandomNumberGenerator()
        return spanId(using: &generator)
    }

    /// Whether `text` is `count` lowercase hex digits and not all zeros (a valid W3C id).
    public static func isValid(_ text: String, hexDigits count: Int) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == count else { return false }
        var nonZero = false
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "0"): break
            case UInt8(ascii: "1")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): nonZero = true
            default: return false
            }
        }
        return nonZero
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// A seeded, reproducible random number generator (SplitMix64) for tests, simulations and the
/// CLI's `--seed` options.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits of the sequence (one SplitMix64 step).
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
