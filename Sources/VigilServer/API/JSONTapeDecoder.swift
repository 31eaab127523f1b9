import Foundation
import VigilCore

/// A `Decoder` reading a ``JSONTape``, so that schema types decode through their own
/// `Decodable` conformances several times faster than with `JSONDecoder`: the tape is parsed
/// once without building objects, values are made only for the fields a type asks for, and
/// scalar fields cost no allocation (the coding path is built only when an error needs it).
///
/// Semantics follow `JSONDecoder` as ``EventJSON`` configures it: dates are RFC 3339 strings
/// (``Timestamp/parse(_:)``), integers must be exact, `null` for a non-optional is
/// `valueNotFound`, a repeated member name keeps its first value, and errors carry the coding
/// path so that ``EventJSON/describe(_:)`` prints `payload.durationMs: expected Double`.
final class JSONTapeDecoder: Decoder {
    let tape: JSONTape
    let node: Int
    /// The decoder of the enclosing value and this value's key in it; the path is the chain.
    private let parent: JSONTapeDecoder?
    private let key: (any CodingKey)?
    private let basePath: [any CodingKey]

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var current: JSONTapeDecoder? = self
        while let decoder = current {
            if let key = decoder.key { keys.append(key) }
            if decoder.parent == nil { keys.append(contentsOf: decoder.basePath.reversed()) }
            current = decoder.parent
        }
        return keys.reversed()
    }

    init(tape: JSONTape, node: Int, parent: JSONTapeDecoder?, key: (any CodingKey)?, basePath: [any CodingKey] = []) {
        self.tape = tape
        self.node = node
        self.parent = parent
        self.key = key
        self.basePath = basePath
    }

    /// Decodes node `node` of `tape` as `T`; `codingPath` prefixes every error's path.
    static func decode<T: Decodable>(_ type: T.Type, from tape: JSONTape, node: Int = 0,
                                     codingPath: [any CodingKey] = []) throws -> T {
        let root = JSONTapeDecoder(tape: tape, node: node, parent: nil, key: nil, basePath: codingPath)
        return try root.value(type, node: node, key: nil, isSelf: true)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard tape.nodes[node].kind == .object else { throw mismatch([String: Any].self, node: node, key: nil) }
        return KeyedDecodingContainer(TapeKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard tape.nodes[node].kind == .array else { throw mismatch([Any].self, node: node, key: nil) }
        return TapeUnkeyedContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TapeSingleValueContainer(decoder: self)
    }

    // MARK: Values

    /// The path of a child value at `key` (or of this value when `key` is nil).
    func path(_ key: (any CodingKey)?) -> [any CodingKey] {
        key.map { codingPath + [$0] } ?? codingPath
    }

    /// Decodes child `node` (reached through `key`) as `T`; `isSelf` when `node` is this
    /// decoder's own value (a single-value container or the root).
    func value<T: Decodable>(_ type: T.Type, node: Int, key: (any CodingKey)?, isSelf: Bool = false) throws -> T {
        let kind = tape.nodes[node].kind
        if kind == .null, !(T.self is any ExpressibleByNilLiteral.Type) {
            throw DecodingError.valueNotFound(T.self, DecodingError.Context(
                codingPath: path(key), debugDescription: "Expected \(T.self) value but found null instead."))
        }
        if T.self == String.self { return try string(node: node, key: key) as! T }
        if T.self == Double.self { return try double(node: node, key: key) as! T }
        if T.self == Int.self { return try integer(Int.self, node: node, key: key) as! T }
        if T.self == Address.self { return try address(node: node, key: key) as! T }
        if T.self == Int64.self { return try integer(Int64.self, node: node, key: key) as! T }
        if T.self == UInt64.self { return try integer(UInt64.self, node: node, key: key) as! T }
        if T.self == Bool.self { return try bool(node: node, key: key) as! T }
        if T.self == Date.self { return try date(node: node, key: key) as! T }
        if T.self == UUID.self { return try uuid(node: node, key: key) as! T }
        if isSelf { return try T(from: self) }
        return try T(from: JSONTapeDecoder(tape: tape, node: node, parent: self, key: key))
    }

    func string(node: Int, key: (any CodingKey)?) throws -> String {
        guard tape.nodes[node].kind == .string else { throw mismatch(String.self, node: node, key: key) }
        return tape.string(node)
    }

    func bool(node: Int, key: (any CodingKey)?) throws -> Bool {
        guard tape.nodes[node].kind == .bool else { throw mismatch(Bool.self, node: node, key: key) }
        return tape.nodes[node].flag
    }

    func double(node: Int, key: (any CodingKey)?) throws -> Double {
        let item = tape.nodes[node]
        guard item.kind == .number else { throw mismatch(Double.self, node: node, key: key) }
        if !item.flag, item.end - item.start <= 15 {
            // Up to 15 digits: exact in a Double, no string needed.
            return Double(tape.smallInteger(node))
        }
        guard let value = Double(tape.text(node)), value.isFinite else { throw unrepresentable(node: node, key: key) }
        return value
    }

    func float(node: Int, key: (any CodingKey)?) throws -> Float {
        let value = try double(node: node, key: key)
        guard abs(value) <= Double(Float.greatestFiniteMagnitude) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(key), debugDescription: "Number \(value) does not fit in Float."))
        }
        return Float(value)
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type, node: Int, key: (any CodingKey)?) throws -> T {
        let item = tape.nodes[node]
        guard item.kind == .number else { throw mismatch(T.self, node: node, key: key) }
        if !item.flag {
            // Digits only: accumulate exactly, detecting overflow.
            var index = Int(item.start)
            let end = Int(item.end)
            let negative = tape.bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            var value: T = 0
            var overflow = false
            while index < end && !overflow {
                let digit = T(tape.bytes[index] &- UInt8(ascii: "0"))
                var product: T
                (product, overflow) = value.multipliedReportingOverflow(by: 10)
                if !overflow {
                    (value, overflow) = negative ? product.subtractingReportingOverflow(digit)
                                                 : product.addingReportingOverflow(digit)
                }
                index += 1
            }
            if !overflow { return value }
        } else if let double = Double(tape.text(node)), let exact = T(exactly: double) {
            return exact
        }
        throw unrepresentable(node: node, key: key)
    }

    /// An ``Address``: a hex string (`0x1a2b`) or an unsigned integer, as `Address.init(from:)` reads it.
    func address(node: Int, key: (any CodingKey)?) throws -> Address {
        let item = tape.nodes[node]
        switch item.kind {
        case .string where !item.flag:
            var index = Int(item.start)
            let end = Int(item.end)
            if end - index >= 2, tape.bytes[index] == UInt8(ascii: "0"),
               tape.bytes[index + 1] == UInt8(ascii: "x") || tape.bytes[index + 1] == UInt8(ascii: "X") {
                index += 2
            }
            var value: UInt64 = 0
            let digits = end - index
            guard digits > 0, digits <= 16 else { break }
            while index < end {
                guard let nibble = JSONTape.hexValue(tape.bytes[index]) else { break }
                value = value << 4 | UInt64(nibble)
                index += 1
            }
            if index == end { return Address(value) }
        case .string:
            if let parsed = Address(hex: tape.string(node)) { return parsed }
        case .number:
            if let value = try? integer(UInt64.self, node: node, key: key) { return Address(value) }
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(key), debugDescription: "expected a hex string or an unsigned integer address"))
        default:
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(key), debugDescription: "expected a hex string or an unsigned integer address"))
        }
        throw DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: path(key), debugDescription: "expected a hex address like 0x1a2b, got \(tape.string(node).prefix(40))"))
    }

    func date(node: Int, key: (any CodingKey)?) throws -> Date {
        let text = try string(node: node, key: key)
        guard let parsed = Timestamp.parse(text) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(key), debugDescription: "expected an RFC 3339 timestamp, got \"\(text.prefix(40))\""))
        }
        // At the schema's precision, with the same refusal as EventJSON's decoder.
        guard let date = Timestamp.schemaDate(parsed) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(key), debugDescription: "the timestamp \"\(text.prefix(40))\" is outside the years 0000 to 9999 UTC"))
        }
        return date
    }

    func uuid(node: Int, key: (any CodingKey)?) throws -> UUID {
        let item = tape.nodes[node]
        guard item.kind == .string else { throw mismatch(String.self, node: node, key: key) }
        if !item.flag, item.end - item.start == 36, let parsed = tape.uuid(node) { return parsed }
        throw DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: path(key), debugDescription: "Attempted to decode UUID from invalid UUID string."))
    }

    func mismatch(_ type: Any.Type, node: Int, key: (any CodingKey)?) -> DecodingError {
        let found: String
        switch tape.nodes[node].kind {
        case .object: found = "a dictionary"
        case .array: found = "an array"
        case .string: found = "a string"
        case .number: found = "a number"
        case .bool: found = "bool"
        case .null: found = "null"
        }
        return DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: path(key), debugDescription: "Expected to decode \(type) but found \(found) instead."))
    }

    private func unrepresentable(node: Int, key: (any CodingKey)?) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: path(key), debugDescription: "Number \(tape.text(node).prefix(40)) is not representable in Swift."))
    }

    func nullError<T>(_ type: T.Type, key: (any CodingKey)?) -> DecodingError {
        DecodingError.valueNotFound(T.self, DecodingError.Context(
            codingPath: path(key), debugDescription: "Expected \(T.self) value but found null instead."))
    }
}

/// A coding key for array positions in coding paths.
struct TapeIndexKey: CodingKey {
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
    let index: Int
    init(index: Int) { self.index = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.index = intValue }
}

struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: JSONTapeDecoder
    var tape: JSONTape { decoder.tape }
    var node: Int { decoder.node }
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        var keys: [Key] = []
        var child = node + 1
        for _ in 0..<tape.nodes[node].count {
            if let key = Key(stringValue: tape.string(child)) { keys.append(key) }
            child = Int(tape.nodes[child + 1].next)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool { tape.member(node, key.stringValue) != nil }

    private func member(_ key: Key) throws -> Int {
        guard let value = tape.member(node, key.stringValue) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return value
    }

    private func present(_ key: Key) -> Int? {
        guard let value = tape.member(node, key.stringValue), tape.nodes[value].kind != .null else { return nil }
        return value
    }

    private func nonNull<T>(_ key: Key, _ type: T.Type) throws -> Int {
        let value = try member(key)
        if tape.nodes[value].kind == .null { throw decoder.nullError(T.self, key: key) }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { tape.nodes[try member(key)].kind == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.value(type, node: try member(key), key: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = present(key) else { return nil }
        return try decoder.value(type, node: value, key: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(node: try nonNull(key, type), key: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.string(node: try nonNull(key, type), key: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.double(node: try nonNull(key, type), key: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.float(node: try nonNull(key, type), key: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map { try decoder.bool(node: $0, key: key) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map { try decoder.string(node: $0, key: key) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try decoder.double(node: $0, key: key) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try present(key).map { try decoder.integer(Int.self, node: $0, key: key) }
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try present(key).map { try decoder.integer(Int64.self, node: $0, key: key) }
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try present(key).map { try decoder.integer(UInt64.self, node: $0, key: key) }
    }

    private func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
        try decoder.integer(T.self, node: try nonNull(key, T.self), key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try JSONTapeDecoder(tape: tape, node: try member(key), parent: decoder, key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONTapeDecoder(tape: tape, node: try member(key), parent: decoder, key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONTapeDecoder(tape: tape, node: try member(key), parent: decoder, key: key)
    }
}

struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: JSONTapeDecoder
    private(set) var currentIndex = 0
    private var cursor: Int
    private let total: Int

    init(decoder: JSONTapeDecoder) {
        self.decoder = decoder
        cursor = decoder.node + 1
        total = Int(decoder.tape.nodes[decoder.node].count)
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { total }
    var isAtEnd: Bool { currentIndex >= total }

    private func endError<T>(_ type: T.Type) -> DecodingError {
        DecodingError.valueNotFound(T.self, DecodingError.Context(
            codingPath: decoder.path(TapeIndexKey(index: currentIndex)), debugDescription: "Unkeyed container is at end."))
    }

    private mutating func advance() {
        cursor = Int(decoder.tape.nodes[cursor].next)
        currentIndex += 1
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw endError(Any?.self) }
        if decoder.tape.nodes[cursor].kind == .null {
            advance()
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else { throw endError(T.self) }
        // Advance only after success, as JSONDecoder does, so a caller may retry another type.
        let value = try decoder.value(type, node: cursor, key: TapeIndexKey(index: currentIndex))
        advance()
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        guard !isAtEnd else { throw endError(KeyedDecodingContainer<NestedKey>.self) }
        let nested = JSONTapeDecoder(tape: decoder.tape, node: cursor, parent: decoder, key: TapeIndexKey(index: currentIndex))
        let container = try nested.container(keyedBy: type)
        advance()
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard !isAtEnd else { throw endError((any UnkeyedDecodingContainer).self) }
        let nested = JSONTapeDecoder(tape: decoder.tape, node: cursor, parent: decoder, key: TapeIndexKey(index: currentIndex))
        let container = try nested.unkeyedContainer()
        advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        guard !isAtEnd else { throw endError((any Decoder).self) }
        let nested = JSONTapeDecoder(tape: decoder.tape, node: cursor, parent: decoder, key: TapeIndexKey(index: currentIndex))
        advance()
        return nested
    }
}

struct TapeSingleValueContainer: SingleValueDecodingContainer {
    let decoder: JSONTapeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    private var node: Int { decoder.node }

    func decodeNil() -> Bool { decoder.tape.nodes[node].kind == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.value(type, node: node, key: nil, isSelf: true) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(node: try nonNull(type), key: nil) }
    func decode(_ type: String.Type) throws -> String { try decoder.string(node: try nonNull(type), key: nil) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.double(node: try nonNull(type), key: nil) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.float(node: try nonNull(type), key: nil) }
    func decode(_ type: Int.Type) throws -> Int { try integer() }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

    private func nonNull<T>(_ type: T.Type) throws -> Int {
        if decoder.tape.nodes[node].kind == .null { throw decoder.nullError(T.self, key: nil) }
        return node
    }

    private func integer<T: FixedWidthInteger>() throws -> T {
        try decoder.integer(T.self, node: try nonNull(T.self), key: nil)
    }
}
