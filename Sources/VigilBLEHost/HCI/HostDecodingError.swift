/// Why bytes from the controller or the peer could not be decoded. Decoders throw it instead of
/// trapping; the host drops the offending packet (or, for a corrupt H4 stream, the channel).
public enum HostDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A field ran past the end of its packet.
    case truncated(field: String, needed: Int, available: Int)
    /// An H4 packet type indicator that is not command, ACL, SCO, event or ISO: the byte stream
    /// has lost its framing and cannot be resynchronised.
    case unknownPacketType(UInt8)
    /// A length field disagrees with the bytes that came with it.
    case badLength(field: String, value: Int)
    /// A value outside what the field allows.
    case invalidValue(field: String, value: Int)

    public var description: String {
        switch self {
        case .truncated(let field, let needed, let available):
            return "truncated \(field): needed \(needed) bytes, \(available) left"
        case .unknownPacketType(let type): return "unknown H4 packet type 0x\(String(type, radix: 16))"
        case .badLength(let field, let value): return "bad length in \(field): \(value)"
        case .invalidValue(let field, let value): return "invalid \(field): \(value)"
        }
    }
}
