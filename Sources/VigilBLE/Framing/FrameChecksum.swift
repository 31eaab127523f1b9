/// The checksum that closes an application frame, chosen per device family.
///
/// The checksum covers every byte after the two sync bytes: command, length and payload.
/// One-byte checksums are written as one byte; CRC-16 as two bytes, most significant first.
public enum FrameChecksum: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// XOR of all covered bytes (catches single-bit errors only).
    case xor8
    /// Sum of all covered bytes modulo 256.
    case sum8
    /// CRC-8 (polynomial 0x07), see ``CRC8``.
    case crc8
    /// CRC-16/CCITT-FALSE, see ``CRC16/ccittFalse(_:initial:)``.
    case crc16CCITT

    /// Bytes the checksum occupies on the wire.
    public var width: Int { self == .crc16CCITT ? 2 : 1 }

    /// The checksum of `bytes`. Cost: one pass over the bytes.
    public func compute<Bytes: Sequence>(_ bytes: Bytes) -> UInt16 where Bytes.Element == UInt8 {
        switch self {
        case .xor8: return UInt16(bytes.reduce(UInt8(0)) { $0 ^ $1 })
        case .sum8: return UInt16(bytes.reduce(UInt8(0)) { $0 &+ $1 })
        case .crc8: return UInt16(CRC8.checksum(bytes))
        case .crc16CCITT: return CRC16.ccittFalse(bytes)
        }
    }

    public var description: String { rawValue }
}
