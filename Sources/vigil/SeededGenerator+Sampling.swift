import Foundation
import VigilCore

/// Draws the demo's simulation needs from the seeded generator: uniform and log-normal values,
/// coin flips and UUIDs, all fixed by the seed.
extension SeededGenerator {
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
