/// OTLP's `KeyValue`: one attribute.
public struct OTLPKeyValue: Codable, Sendable, Hashable {
    /// Attribute name, e.g. `service.name`.
    public var key: String
    /// Attribute value.
    public var value: OTLPAnyValue

    /// An attribute `key` = `value`.
    public init(key: String, value: OTLPAnyValue) {
        self.key = key
        self.value = value
    }

    private enum CodingKeys: String, CodingKey { case key, value }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decodeIfPresent(String.self, forKey: .key) ?? ""
        value = try container.decodeIfPresent(OTLPAnyValue.self, forKey: .value) ?? .empty
    }
}

extension Array where Element == OTLPKeyValue {
    /// The value of the first attribute named `key`.
    public func value(for key: String) -> OTLPAnyValue? {
        first { $0.key == key }?.value
    }

    /// The string value of the first attribute named `key`.
    public func string(for key: String) -> String? {
        value(for: key)?.stringValue
    }
}
