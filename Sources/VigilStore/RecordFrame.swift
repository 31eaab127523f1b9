/// The framing of one record in a segment file:
/// `length (UInt32 LE) | CRC-32 (UInt32 LE) | priority (UInt8) | payload (length bytes)`.
///
/// The CRC covers the four length bytes, the priority byte and the payload, so a damaged
/// length or priority is caught as surely as a damaged payload.
enum RecordFrame {
    /// Bytes before the payload.
    static let headerSize = 9
    /// Smallest payload a valid record carries (an encoded event is never empty).
    static let minimumPayload = 1

    /// Appends the framed record to `buffer`.
    static func append(payload: UnsafeRawBufferPointer, priority: EventPriority, to buffer: inout [UInt8]) {
        let length = UInt32(payload.count)
        let crc = checksum(length: length, priority: priority.rawValue, payload: payload)
        appendLittleEndian(length, to: &buffer)
        appendLittleEndian(crc, to: &buffer)
        buffer.append(priority.rawValue)
        buffer.append(contentsOf: payload)
    }

    /// The CRC stored in a record's header.
    static func checksum(length: UInt32, priority: UInt8, payload: UnsafeRawBufferPointer) -> UInt32 {
        // Length bytes in their on-disk (little-endian) order, then the priority byte.
        var prefix = (UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8),
                      UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 24), priority)
        let crc = withUnsafeBytes(of: &prefix) { CRC32.update(0, $0) }
        return CRC32.update(crc, payload)
    }

    /// Total bytes of a record with a payload of `length` bytes.
    static func size(payloadLength length: Int) -> Int { headerSize + length }

    static func appendLittleEndian(_ value: UInt32, to buffer: inout [UInt8]) {
        buffer.append(UInt8(truncatingIfNeeded: value))
        buffer.append(UInt8(truncatingIfNeeded: value >> 8))
        buffer.append(UInt8(truncatingIfNeeded: value >> 16))
        buffer.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    static func appendLittleEndian(_ value: UInt64, to buffer: inout [UInt8]) {
        appendLittleEndian(UInt32(truncatingIfNeeded: value), to: &buffer)
        appendLittleEndian(UInt32(truncatingIfNeeded: value >> 32), to: &buffer)
    }

    /// Reads a little-endian UInt32 at `offset`; the caller checked the bounds.
    static func readUInt32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }

    /// Reads a little-endian UInt64 at `offset`; the caller checked the bounds.
    static func readUInt64(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(readUInt32(bytes, at: offset)) | UInt64(readUInt32(bytes, at: offset + 4)) << 32
    }
}
