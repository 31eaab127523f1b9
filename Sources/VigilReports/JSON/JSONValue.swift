import Foundation

/// A JSON document as a value tree, keeping object key order and numbers as written.
///
/// Crash reports carry 64-bit addresses and register values as JSON numbers; a `Double` would
/// round anything above 2^53, so numbers keep their literal text and are converted on access.
/// Objects keep their members in document order (Apple's writers and ours rely on it for
/// round trips) and allow duplicate keys; lookups return the first match.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number exactly as written, e.g. `18446744073709551615` or `1.5e3`.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The member named `key` of an object (first match), nil for other values.
    ///
    /// Cost: linear in the object's member count; report objects are small.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        for member in members where member.key == key { return member.value }
        return nil
    }

    /// The element at `index` of an array, nil when out of range or not an array.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, index >= 0, index < elements.count else { return nil }
        return elements[index]
    }

    /// The string, when this is a string.
    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The elements, when this is an array.
    public var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The members, when this is an object.
    public var members: [JSONMember]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The boolean, when this is `true`/`false` or the numbers `0`/`1` (Apple writes flags both ways).
    public var bool: Bool? {
        switch self {
        case .bool(let flag): return flag
        case .number(let text): return text == "1" ? true : (text == "0" ? false : nil)
        default: return nil
        }
    }

    /// The value as an unsigned 64-bit integer: an integral number in range, or a decimal or
    /// `0x` hex string. Nil for fractions, negatives and anything out of range.
    public var uint64: UInt64? {
        switch self {
        case .number(let text):
            if let exact = UInt64(text) { return exact }
            // Integral values written with an exponent or a ".0" fraction.
            guard let double = Double(text), double.isFinite, double >= 0, double < 1.8446744073709552e19,
                  double.rounded(.towardZero) == double else { return nil }
            return UInt64(double)
        case .string(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") { return UInt64(trimmed.dropFirst(2), radix: 16) }
            return UInt64(trimmed)
        default:
            return nil
        }
    }

    /// The value as a signed integer (`Int`), from an integral number or a decimal string.
    public var int: Int? {
        switch self {
        case .number(let text):
            if let exact = Int(text) { return exact }
            guard let double = Double(text), double.isFinite, abs(double) < 9.0e18,
                  double.rounded(.towardZero) == double else { return nil }
            return Int(double)
        case .string(let text):
            return Int(text.trimmingCharacters(in: .whitespaces))
        default:
            return nil
        }
    }

    /// The value as a finite `Double`, from a number or a numeric string.
    public var double: Double? {
        switch self {
        case .number(let text):
            guard let value = Double(text), value.isFinite else { return nil }
            return value
        case .string(let text):
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else { return nil }
            return value
        default:
            return nil
        }
    }

    /// A JSON number for an unsigned integer.
    public static func integer(_ value: UInt64) -> JSONValue { .number(String(value)) }

    /// A JSON number for a signed integer.
    public static func integer(_ value: Int) -> JSONValue { .number(String(value)) }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable, Hashable {
    /// The member's name.
    public var key: String
    /// The member's value.
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
