/// Typed, lenient access to one JSON object of a report, with the key path for problems.
///
/// Readers use it so that a field of the wrong kind is reported with its path and otherwise
/// treated as missing, instead of failing the whole report.
struct JSONFields {
    /// The object (or any value; non-objects have no fields).
    let value: JSONValue
    /// Key path of `value` in the document, e.g. `threads[2]`.
    let path: String

    init(_ value: JSONValue, path: String = "") {
        self.value = value
        self.path = path
    }

    /// Key path of member `key`.
    func path(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// Whether member `key` exists.
    func has(_ key: String) -> Bool { value[key] != nil }

    /// A string member; numbers and booleans are given as their text.
    func string(_ key: String) -> String? {
        switch value[key] {
        case .string(let text)?: return text
        case .number(let text)?: return text
        case .bool(let flag)?: return flag ? "true" : "false"
        default: return nil
        }
    }

    /// A non-empty string member.
    func text(_ key: String) -> String? {
        guard let text = string(key)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    /// An unsigned integer member (number, decimal string or `0x` string).
    func uint64(_ key: String) -> UInt64? { value[key]?.uint64 }

    /// A signed integer member.
    func int(_ key: String) -> Int? { value[key]?.int }

    /// A floating-point member.
    func double(_ key: String) -> Double? { value[key]?.double }

    /// A boolean member (`true`/`false` or `1`/`0`).
    func bool(_ key: String) -> Bool? { value[key]?.bool }

    /// An object member as fields.
    func object(_ key: String) -> JSONFields? {
        guard let child = value[key], case .object = child else { return nil }
        return JSONFields(child, path: path(key))
    }

    /// An array member.
    func array(_ key: String) -> [JSONValue]? { value[key]?.array }

    /// A list of strings: an array (non-strings skipped) or a single string.
    func strings(_ key: String) -> [String] {
        switch value[key] {
        case .array(let elements)?: return elements.compactMap(\.string)
        case .string(let text)?: return [text]
        default: return []
        }
    }
}

import Foundation
