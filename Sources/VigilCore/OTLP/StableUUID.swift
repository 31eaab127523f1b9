import Foundation

/// Name-based UUIDs without a crypto library: two FNV-1a 64-bit hashes of the name (different
/// offset bases) form the 16 bytes, marked as a version 8 (custom) RFC 9562 UUID. Used to give
/// imported spans an event id that is the same every time the same span is sent, so the
/// server's duplicate check stores a retried export once.
enum StableUUID {
    static func make(from name: String) -> UUID {
        var high: UInt64 = 0xcbf2_9ce4_8422_2325
        var low: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in name.utf8 {
            high = (high ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            low = (low ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            low = low ^ (low >> 29)
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
