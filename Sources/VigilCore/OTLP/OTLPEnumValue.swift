/// An OTLP enum field: written as its integer (as OTLP/JSON requires), read from an integer or
/// from the enum's proto name (`SPAN_KIND_SERVER`), which proto3 JSON parsers also accept.
public struct OTLPEnumValue: Codable, Sendable, Hashable, ExpressibleByIntegerLiteral {
    /// The integer value.
    public var value: Int

    /// Wraps `value`.
    public init(_ value: Int) { self.value = value }

    public init(integerLiteral value: Int) { self.value = value }

    /// Proto names accepted on read, per enum, mapped to their numbers.
    static let names: [String: Int] = [
        "SPAN_KIND_UNSPECIFIED": 0, "SPAN_KIND_INTERNAL": 1, "SPAN_KIND_SERVER": 2, "SPAN_KIND_CLIENT": 3,
        "SPAN_KIND_PRODUCER": 4, "SPAN_KIND_CONSUMER": 5,
        "STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2,
        "SEVERITY_NUMBER_UNSPECIFIED": 0, "SEVERITY_NUMBER_TRACE": 1, "SEVERITY_NUMBER_DEBUG": 5,
        "SEVERITY_NUMBER_INFO": 9, "SEVERITY_NUMBER_WARN": 13, "SEVERITY_NUMBER_ERROR": 17,
        "SEVERITY_NUMBER_FATAL": 21,
    ]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            value = number
        } else {
            let name = try container.decode(String.self)
            if let number = Self.names[name] {
                value = number
            } else if let number = Int(name) {
                value = number
            } else {
                throw DecodingError.dataCorruptedError(in: container,
                                                       debugDescription: "unknown enum value \"\(name.prefix(40))\"")
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
