/// The `.del` file beside a segment: one 8-byte entry per deleted record,
/// `offset (UInt32 LE) | CRC-32 of offset and generation (UInt32 LE)`.
///
/// Entries carry the segment generation in their CRC, so a journal left over from an older
/// generation (whose offsets mean other records) never matches. A torn last entry fails its
/// CRC and is ignored.
enum DeletionJournal {
    static let entrySize = 8

    static func appendEntry(offset: Int, generation: UInt32, to bytes: inout [UInt8]) {
        let value = UInt32(truncatingIfNeeded: offset)
        RecordFrame.appendLittleEndian(value, to: &bytes)
        RecordFrame.appendLittleEndian(checksum(offset: value, generation: generation), to: &bytes)
    }

    /// The offsets of the valid entries in `bytes`.
    static func offsets(in bytes: UnsafeRawBufferPointer, generation: UInt32) -> Set<Int> {
        var out = Set<Int>()
        var position = 0
        while position + entrySize <= bytes.count {
            let offset = RecordFrame.readUInt32(bytes, at: position)
            if RecordFrame.readUInt32(bytes, at: position + 4) == checksum(offset: offset, generation: generation) {
                out.insert(Int(offset))
            }
            position += entrySize
        }
        return out
    }

    private static func checksum(offset: UInt32, generation: UInt32) -> UInt32 {
        var bytes: [UInt8] = []
        RecordFrame.appendLittleEndian(offset, to: &bytes)
        RecordFrame.appendLittleEndian(generation, to: &bytes)
        return CRC32.checksum(bytes)
    }
}
