import Foundation

/// OTLP's `AnyValue`: one of a string, boolean, integer, double, byte array, array or
/// key-value list, written as an object with exactly one of `stringValue`, `boolValue`,
/// `intValue` (a decimal string), `doubleValue`, `bytesValue` (base64), `arrayValue`,
/// `kvlistValue`. An empty object is the empty value.
public indirect enum OTLPAnyValue: Codable, Sendable, Hashable {
    /// `stringValue`.
    case string(String)
    /// `boolValue`.
    case bool(Bool)
    /// `intValue` (a decimal string on the wire).
    case int(Int64)
    /// `doubleValue` (`NaN`, `Infinity`, `-Infinity` as strings).
    case double(Double)
    /// `bytesValue` (base64 on the wire).
    case bytes(Data)
    /// `arrayValue.values`.
    case array([OTLPAnyValue])
    /// `kvlistValue.values`.
    case keyValueList([OTLPKeyValue])
    /// No value set.
    case empty

    private enum CodingKeys: String, CodingKey {
        case stringValue, boolValue, intValue, doubleValue, bytesValue, arrayValue, kvlistValue
    }

    private struct ArrayValue: Codable { var values: [OTLPAnyValue]? }
    private struct ListValue: Codable { var values: [OTLPKeyValue]? }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let value = try container.decodeIfPresent(String.self, forKey: .stringValue) {
            self = .string(value)
        } else if let value = try container.decodeIfPresent(Bool.self, forKey: .boolValue) {
            self = .bool(value)
        } else if let value = try container.decodeIfPresent(OTLPInt64.self, forKey: .intValue) {
            self = .int(value.value)
        } else if container.contains(.doubleValue) {
            self = .double(try Self.decodeDouble(container))
        } else if let text = try container.decodeIfPresent(String.self, forKey: .bytesValue) {
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorruptedError(forKey: .bytesValue, in: container,
                                                       debugDescription: "bytesValue is not base64")
            }
            self = .bytes(data)
        } else if let value = try container.decodeIfPresent(ArrayValue.self, forKey: .arrayValue) {
            self = .array(value.values ?? [])
        } else if let value = try container.decodeIfPresent(ListValue.self, forKey: .kvlistValue) {
            self = .keyValueList(value.values ?? [])
        } else {
            self = .empty
        }
    }

    /// A double, or one of the strings proto3 JSON uses for non-finite values.
    private static func decodeDouble(_ container: KeyedDecodingContainer<CodingKeys>) throws -> Double {
        if let value = try? container.decode(Double.self, forKey: .doubleValue) { return value }
        switch try container.decode(String.self, forKey: .doubleValue) {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        case let text:
            guard let value = Double(text) else {
                throw DecodingError.dataCorruptedError(forKey: .doubleValue, in: container,
                                                       debugDescription: "doubleValue is not a number")
            }
            return value
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .string(let value): try container.encode(value, forKey: .stringValue)
        case .bool(let value): try container.encode(value, forKey: .boolValue)
        case .int(let value): try container.encode(OTLPInt64(value), forKey: .intValue)
        case .double(let value):
            if value.isFinite {
                try container.encode(value, forKey: .doubleValue)
            } else {
                try container.encode(value.isNaN ? "NaN" : (value > 0 ? "Infinity" : "-Infinity"), forKey: .doubleValue)
            }
        case .bytes(let value): try container.encode(value.base64EncodedString(), forKey: .bytesValue)
        case .array(let values): try container.encode(ArrayValue(values: values), forKey: .arrayValue)
        case .keyValueList(let values): try container.encode(ListValue(values: values), forKey: .kvlistValue)
        case .empty: break
        }
    }

    /// The value as a Vigil attribute: scalars map one to one, bytes become base64 text,
    /// arrays and lists their JSON text, the empty value an empty string.
    public var attributeValue: AttributeValue {
        switch self {
        case .string(let value): return .string(value)
        case .bool(let value): return .bool(value)
        case .int(let value): return .int(value)
        case .double(let value): return .double(value)
        case .bytes(let value): return .string(value.base64EncodedString())
        case .empty: return .string("")
        case .array, .keyValueList:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(self)) ?? Data()
            return .string(String(decoding: data, as: UTF8.self))
        }
    }

    /// The OTLP value of a Vigil attribute.
    public init(_ attribute: AttributeValue) {
        switch attribute {
        case .string(let value): self = .string(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .bool(let value): self = .bool(value)
        }
    }

    /// The string, when this is a string value.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
