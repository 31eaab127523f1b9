/// Reads numbers of the remote configuration document so that a huge value is kept (and later
/// clamped or refused with its field named) instead of failing the whole document the way
/// `JSONDecoder` fails an integer that does not fit `Int`.
enum RemoteConfigNumber {
    /// A finite number, or `nil` when the key is absent or null.
    static func real<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Double? {
        guard let value = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard value.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "expected a finite number")
        }
        return value
    }

    /// A whole number saturated into `Int`'s range, or `nil` when absent or null; a fraction
    /// is a type error.
    static func integer<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Int? {
        guard let value = try real(container, key) else { return nil }
        guard value.rounded(.towardZero) == value else {
            throw DecodingError.typeMismatch(Int.self, DecodingError.Context(
                codingPath: container.codingPath + [key], debugDescription: "expected a whole number, got \(value)"))
        }
        if value >= 9.0e18 { return Int.max }
        if value <= -9.0e18 { return Int.min }
        return Int(value)
    }
}
