/// An absolute or relative memory address, written in JSON as a `0x`-prefixed hex string.
///
/// Stacks in events are lists of absolute addresses; the server maps each one to an image and
/// an offset through the event's `images`. Decoding also accepts a JSON number, because some
/// producers (MetricKit among them) write addresses as integers.
public struct Address: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The address as an unsigned 64-bit integer.
    public var value: UInt64

    /// Wraps a raw address.
    public init(_ value: UInt64) { self.value = value }

    /// Parses `0x1a2b`, `0X1A2B` or plain hex digits; returns nil for anything else, including
    /// values that do not fit in 64 bits.
    public init?(hex: some StringProtocol) {
        var digits = Substring(hex)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        // Checked byte by byte: `UInt64(_:radix:)` alone would also take a leading `+` or `-`.
        guard !digits.isEmpty, digits.utf8.count <= 16, digits.utf8.allSatisfy(Address.isHexDigit),
              let parsed = UInt64(digits, radix: 16) else { return nil }
        self.value = parsed
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }

    /// `0x` followed by lowercase hex digits, no padding.
    public var hex: String { "0x" + String(value, radix: 16) }

    public var description: String { hex }

    public static func < (lhs: Address, rhs: Address) -> Bool { lhs.value < rhs.value }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            guard let parsed = Address(hex: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "expected a hex address like 0x1a2b, got \(text.prefix(40))")
            }
            self = parsed
        } else if let number = try? container.decode(UInt64.self) {
            self.value = number
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a hex string or an unsigned integer address")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
