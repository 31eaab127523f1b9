import Foundation

/// A value bound to a statement parameter or read from a result column, in the types both
/// SQLite and PostgreSQL share.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// The integer, converting a real or numeric text; nil for null.
    public var int64: Int64? {
        switch self {
        case .integer(let value): return value
        case .real(let value): return value.isFinite ? Int64(exactly: value.rounded()) : nil
        case .text(let value): return Int64(value)
        case .null, .blob: return nil
        }
    }

    /// The integer as `Int`.
    public var int: Int? { int64.map { Int(truncatingIfNeeded: $0) } }

    /// The number as a `Double`; nil for null.
    public var double: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        case .text(let value): return Double(value)
        case .null, .blob: return nil
        }
    }

    /// The text; nil for null (a blob is decoded as UTF-8).
    public var string: String? {
        switch self {
        case .text(let value): return value
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .blob(let value): return String(decoding: value, as: UTF8.self)
        case .null: return nil
        }
    }

    /// The bytes; text becomes its UTF-8.
    public var data: Data? {
        switch self {
        case .blob(let value): return value
        case .text(let value): return Data(value.utf8)
        default: return nil
        }
    }

    /// Whether this is SQL NULL.
    public var isNull: Bool { if case .null = self { return true } else { return false } }
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension SQLValue {
    /// An integer parameter.
    public static func int(_ value: Int) -> SQLValue { .integer(Int64(value)) }
    /// Text, or NULL for nil.
    public static func optional(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
    /// A real, or NULL for nil.
    public static func optional(_ value: Double?) -> SQLValue { value.map(SQLValue.real) ?? .null }
    /// An integer, or NULL for nil.
    public static func optional(_ value: Int64?) -> SQLValue { value.map(SQLValue.integer) ?? .null }
}
