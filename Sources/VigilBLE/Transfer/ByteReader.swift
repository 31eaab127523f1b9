/// A bounds-checked cursor over received bytes: every read names the field it reads, and a read
/// past the end throws ``TruncatedInput`` instead of trapping.
struct ByteReader {
    let bytes: ArraySlice<UInt8>
    private(set) var offset: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.offset = bytes.startIndex
    }

    /// Bytes not read yet.
    var remaining: Int { bytes.endIndex - offset }

    mutating func u8(_ field: StaticString) throws(TruncatedInput) -> UInt8 {
        guard remaining >= 1 else { throw TruncatedInput(field: "\(field)", offset: offset - bytes.startIndex, needed: 1, available: remaining) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16le(_ field: StaticString) throws(TruncatedInput) -> UInt16 {
        UInt16(truncatingIfNeeded: try unsigned(field, width: 2, bigEndian: false))
    }

    mutating func u16be(_ field: StaticString) throws(TruncatedInput) -> UInt16 {
        UInt16(truncatingIfNeeded: try unsigned(field, width: 2, bigEndian: true))
    }

    mutating func u32le(_ field: StaticString) throws(TruncatedInput) -> UInt32 {
        UInt32(truncatingIfNeeded: try unsigned(field, width: 4, bigEndian: false))
    }

    mutating func u32be(_ field: StaticString) throws(TruncatedInput) -> UInt32 {
        UInt32(truncatingIfNeeded: try unsigned(field, width: 4, bigEndian: true))
    }

    mutating func u64le(_ field: StaticString) throws(TruncatedInput) -> UInt64 {
        try unsigned(field, width: 8, bigEndian: false)
    }

    mutating func u64be(_ field: StaticString) throws(TruncatedInput) -> UInt64 {
        try unsigned(field, width: 8, bigEndian: true)
    }

    mutating func bytes(_ field: StaticString, count: Int) throws(TruncatedInput) -> [UInt8] {
        guard count >= 0, remaining >= count else {
            throw TruncatedInput(field: "\(field)", offset: offset - bytes.startIndex, needed: count, available: remaining)
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func rest() -> [UInt8] {
        defer { offset = bytes.endIndex }
        return Array(bytes[offset...])
    }

    private mutating func unsigned(_ field: StaticString, width: Int, bigEndian: Bool) throws(TruncatedInput) -> UInt64 {
        guard remaining >= width else {
            throw TruncatedInput(field: "\(field)", offset: offset - bytes.startIndex, needed: width, available: remaining)
        }
        var value: UInt64 = 0
        for index in 0..<width {
            let byte = UInt64(bytes[offset + index])
            value |= bigEndian ? byte << UInt64(8 * (width - 1 - index)) : byte << UInt64(8 * index)
        }
        offset += width
        return value
    }
}

/// A read past the end of received bytes: which field, at which offset, how much was missing.
public struct TruncatedInput: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field being read.
    public var field: String
    /// Offset of the field from the start of the input.
    public var offset: Int
    /// Bytes the field needs.
    public var needed: Int
    /// Bytes that were left.
    public var available: Int

    public var description: String { "\(field) at offset \(offset) needs \(needed) bytes, \(available) left" }
}

extension Array where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var remaining = value
        for _ in 0..<(T.bitWidth / 8) {
            append(UInt8(truncatingIfNeeded: remaining))
            remaining >>= 8
        }
    }

    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        for index in (0..<(T.bitWidth / 8)).reversed() {
            append(UInt8(truncatingIfNeeded: value >> (8 * index)))
        }
    }
}
