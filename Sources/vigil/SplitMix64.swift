import Foundation

/// SplitMix64 (Steele, Lea and Flood, 2014): a small, fast random generator whose whole
/// sequence follows from its seed, so a simulation given `--seed` is the same on every run and
/// machine. Not for anything secret.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// A generator starting from `seed`.
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// A log-normal value with the given median and spread (σ of the logarithm), by Box–Muller.
    mutating func logNormal(median: Double, sigma: Double) -> Double {
        let u = max(unit(), 1e-12), v = unit()
        let normal = (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
        return median * exp(sigma * normal)
    }

    /// A UUID from 128 random bits (version 4 layout).
    mutating func uuid() -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<2 {
            let word = next()
            for shift in 0..<8 { bytes[index * 8 + shift] = UInt8(truncatingIfNeeded: word >> (shift * 8)) }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
