/// A 64-bit integer as OTLP/JSON writes it: a decimal string (proto3's JSON mapping for
/// `int64`/`fixed64`), also accepted as a plain JSON number on read.
public struct OTLPInt64: Codable, Sendable, Hashable, ExpressibleByIntegerLiteral {
    /// The value.
    public var value: Int64

    /// Wraps `value`.
    public init(_ value: Int64) { self.value = value }

    public init(integerLiteral value: Int64) { self.value = value }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            // fixed64 fields (timestamps) may exceed Int64 in theory; such values are clamped.
            if let parsed = Int64(text) {
                value = parsed
            } else if let unsigned = UInt64(text) {
                value = Int64(clamping: unsigned)
            } else {
                throw DecodingError.dataCorruptedError(in: container,
                                                       debugDescription: "not a decimal integer: \"\(text.prefix(40))\"")
            }
        } else if let number = try? container.decode(Int64.self) {
            value = number
        } else {
            let number = try container.decode(Double.self)
            guard number.isFinite, number.rounded() == number, abs(number) < 9.2e18 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an integer: \(number)")
            }
            value = Int64(number)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(String(value))
    }
}
