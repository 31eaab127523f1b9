/// A bounds-checked cursor over a received packet: every read names the field it reads, and a
/// read past the end throws ``HostDecodingError/truncated(field:needed:available:)`` instead of
/// trapping, so the decoders are safe on any input.
struct PayloadReader {
    private let bytes: ArraySlice<UInt8>
    private(set) var offset: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.offset = bytes.startIndex
    }

    init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// Bytes not read yet.
    var remaining: Int { bytes.endIndex - offset }

    /// Everything not read yet (consumes it).
    mutating func rest() -> [UInt8] {
        defer { offset = bytes.endIndex }
        return Array(bytes[offset...])
    }

    mutating func u8(_ field: String) throws(HostDecodingError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(field: field, needed: 1, available: remaining) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16(_ field: String) throws(HostDecodingError) -> UInt16 {
        guard remaining >= 2 else { throw .truncated(field: field, needed: 2, available: remaining) }
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    mutating func i8(_ field: String) throws(HostDecodingError) -> Int8 {
        Int8(bitPattern: try u8(field))
    }

    mutating func u64(_ field: String) throws(HostDecodingError) -> UInt64 {
        let raw = try take(8, field)
        return raw.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    mutating func take(_ count: Int, _ field: String) throws(HostDecodingError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw .truncated(field: field, needed: count, available: remaining) }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` little-endian (HCI, L2CAP and ATT are all little-endian).
    mutating func appendLE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }
}
