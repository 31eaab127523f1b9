/// Why an authenticated command or response was refused, on either end of the link.
///
/// The terminal answers a refused command with the status byte of ``status`` (0xA0…0xA3, see
/// docs/ble-protocol.md); the phone reads those back with ``init(status:)``.
public enum CommandAuthenticationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A command that needs the session key arrived before the key update made one.
    case noSessionKey
    /// The tag does not match the frame under the session key (a changed byte, a wrong key).
    case badTag
    /// The counter is not above the last one accepted: a replayed, older or reordered command.
    case staleCounter(received: UInt32, lastAccepted: UInt32)
    /// The payload is too short to hold a counter and a tag (`length` bytes; 20 needed).
    case truncated(length: Int)
    /// The key update's confirmation tag does not match: the two ends derived different keys.
    case keyConfirmationFailed
    /// The phone has used every counter value; the key update must run again.
    case counterExhausted

    /// Status byte a terminal answers with (0xA0…0xA3); 0xA1 for errors only the phone detects.
    public var status: UInt8 {
        switch self {
        case .noSessionKey: return 0xA0
        case .badTag, .keyConfirmationFailed, .counterExhausted: return 0xA1
        case .staleCounter: return 0xA2
        case .truncated: return 0xA3
        }
    }

    /// The error a terminal's status byte reports; nil for other statuses. The counters of a
    /// stale one are not on the wire and read as 0.
    public init?(status: UInt8) {
        switch status {
        case 0xA0: self = .noSessionKey
        case 0xA1: self = .badTag
        case 0xA2: self = .staleCounter(received: 0, lastAccepted: 0)
        case 0xA3: self = .truncated(length: 0)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .noSessionKey: return "command before the session key exists"
        case .badTag: return "authentication tag does not match"
        case .staleCounter(let received, let last): return "counter \(received) not above the last accepted \(last) (replayed or reordered)"
        case .truncated(let length): return "authenticated payload of \(length) bytes is shorter than counter + tag"
        case .keyConfirmationFailed: return "key confirmation tag does not match"
        case .counterExhausted: return "command counter exhausted; run the key update again"
        }
    }
}
