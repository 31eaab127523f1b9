import Foundation

/// A 128-bit FNV-1a hash of text: stable across processes, platforms and releases (unlike
/// `Hasher`), for fingerprints and for identifiers derived from report contents. Not
/// cryptographic.
struct StableHash {
    private var high: UInt64 = 0xcbf2_9ce4_8422_2325
    private var low: UInt64 = 0x6c62_272e_07bb_0142

    /// Feeds the UTF-8 bytes of `text`, then a separator byte so that `["ab", "c"]` and
    /// `["a", "bc"]` differ.
    mutating func add(_ text: String) {
        for byte in text.utf8 { mix(byte) }
        mix(0x1F)
    }

    private mutating func mix(_ byte: UInt8) {
        high = (high ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        low = (low ^ UInt64(byte ^ 0x5A)) &* 0x0000_0100_0000_01B3
    }

    /// 32 lowercase hex digits.
    var hex: String {
        let first = String(high, radix: 16)
        let second = String(low, radix: 16)
        return String(repeating: "0", count: 16 - first.count) + first + String(repeating: "0", count: 16 - second.count) + second
    }

    /// The hash as a UUID (version 8, "custom"), for deterministic identifiers.
    var uuid: UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The hash of `parts`.
    static func of(_ parts: [String]) -> StableHash {
        var hash = StableHash()
        for part in parts { hash.add(part) }
        return hash
    }
}
