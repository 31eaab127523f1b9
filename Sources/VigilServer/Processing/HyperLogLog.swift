import Foundation

/// A HyperLogLog sketch of distinct keys (installs, users): 2^14 registers, a standard error
/// of 1.04/√16384 ≈ 0.8 %, estimated with Ertl's improved estimator (unbiased from a handful of
/// keys to billions, no empirical bias tables).
///
/// Mergeable: a register keeps the highest rank any key gave it, and a merge takes the highest
/// of both, which is commutative and idempotent. So the roll-ups store one row per touched
/// register and upsert with `max(rank)`: two servers on one database, replays and restarts all
/// end in the same registers, and a release's sketch over many days is the per-register maximum
/// over its days. Pure; sparse (only touched registers are kept).
public struct HyperLogLog: Sendable, Hashable {
    /// Bits of the hash that choose the register.
    public static let precision = 14
    /// Number of registers, 2^``precision``.
    public static let registerCount = 1 << precision
    private static let rankBits = 64 - precision

    /// Register index → rank (1 … 51); registers not present are 0.
    public private(set) var registers: [Int: UInt8] = [:]

    /// An empty sketch.
    public init() {}

    /// The register and rank that `key` sets: the hash's top bits pick the register, and the
    /// rank is one more than the number of leading zeros of the rest.
    public static func observation(of key: String) -> (register: Int, rank: UInt8) {
        let hash = hash64(key)
        let register = Int(hash >> UInt64(rankBits))
        let rest = hash << UInt64(precision)
        let rank = UInt8(min(rankBits, rest.leadingZeroBitCount) + 1)
        return (register, rank)
    }

    /// A stable 64-bit hash of the key's UTF-8 bytes (FNV-1a, then MurmurHash3's 64-bit
    /// finalizer so that every bit depends on every input bit). Stable across processes and
    /// platforms, unlike `Hasher`: registers written by one server must match another's.
    public static func hash64(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash = hash &* 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return hash
    }

    /// Adds `key`.
    public mutating func insert(_ key: String) {
        let (register, rank) = Self.observation(of: key)
        set(register: register, rank: rank)
    }

    /// Raises `register` to `rank` if that is higher (out-of-range input is ignored: it comes
    /// from the database, which this type does not trust).
    public mutating func set(register: Int, rank: UInt8) {
        guard (0..<Self.registerCount).contains(register), rank > 0, Int(rank) <= Self.rankBits + 1 else { return }
        if rank > registers[register, default: 0] { registers[register] = rank }
    }

    /// Takes the highest rank of both sketches in every register.
    public mutating func merge(_ other: HyperLogLog) {
        for (register, rank) in other.registers { set(register: register, rank: rank) }
    }

    /// The estimated number of distinct keys added (0 for an empty sketch).
    public var estimate: Double {
        let m = Double(Self.registerCount)
        let q = Self.rankBits
        var histogram = [Double](repeating: 0, count: q + 2)
        histogram[0] = m - Double(registers.count)
        for rank in registers.values { histogram[Int(rank)] += 1 }
        if histogram[0] == m { return 0 }
        var z = m * Self.tau(1 - histogram[q + 1] / m)
        for k in stride(from: q, through: 1, by: -1) { z = 0.5 * (z + histogram[k]) }
        z += m * Self.sigma(histogram[0] / m)
        return m * m / (2 * log(2.0)) / z
    }

    /// The estimate rounded to a whole count.
    public var count: Int64 { Int64(estimate.rounded()) }

    private static func sigma(_ value: Double) -> Double {
        if value == 1 { return .infinity }
        var x = value, y = 1.0, z = value
        while true {
            x *= x
            let next = z + x * y
            y += y
            if next == z { return z }
            z = next
        }
    }

    private static func tau(_ value: Double) -> Double {
        if value == 0 || value == 1 { return 0 }
        var x = value, y = 1.0, z = 1 - value
        while true {
            x = x.squareRoot()
            let previous = z
            y *= 0.5
            z -= (1 - x) * (1 - x) * y
            if previous == z { return z / 3 }
        }
    }
}
