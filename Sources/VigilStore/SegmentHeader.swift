/// The fixed header at the start of every segment file:
/// `"VGSG" | version (UInt8 = 1) | 3 zero bytes | sequence (UInt64 LE) | created (Int64 LE,
/// ms since 1970, UTC) | CRC-32 of the previous 24 bytes (UInt32 LE)` — 28 bytes.
struct SegmentHeader: Hashable, Sendable {
    /// Header size in bytes; the first record starts here.
    static let size = 28
    /// Format version this library writes and reads.
    static let version: UInt8 = 1
    private static let magic: [UInt8] = Array("VGSG".utf8)

    /// Position of the segment in the queue; larger is newer.
    var sequence: UInt64
    /// When the segment was created, in milliseconds since 1970 (wall clock).
    var createdAtMilliseconds: Int64

    /// The header's bytes.
    var bytes: [UInt8] {
        var out = SegmentHeader.magic
        out.reserveCapacity(SegmentHeader.size)
        out += [SegmentHeader.version, 0, 0, 0]
        RecordFrame.appendLittleEndian(sequence, to: &out)
        RecordFrame.appendLittleEndian(UInt64(bitPattern: createdAtMilliseconds), to: &out)
        RecordFrame.appendLittleEndian(CRC32.checksum(out), to: &out)
        return out
    }

    /// Reads a header from the start of `bytes`; `nil` when it is short, has the wrong magic or
    /// version, or fails its CRC.
    init?(reading bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= SegmentHeader.size,
              Array(bytes[0..<4]) == SegmentHeader.magic,
              bytes[4] == SegmentHeader.version else { return nil }
        let stored = RecordFrame.readUInt32(bytes, at: 24)
        guard CRC32.update(0, UnsafeRawBufferPointer(rebasing: bytes[0..<24])) == stored else { return nil }
        sequence = RecordFrame.readUInt64(bytes, at: 8)
        createdAtMilliseconds = Int64(bitPattern: RecordFrame.readUInt64(bytes, at: 16))
    }

    init(sequence: UInt64, createdAtMilliseconds: Int64) {
        self.sequence = sequence
        self.createdAtMilliseconds = createdAtMilliseconds
    }
}
