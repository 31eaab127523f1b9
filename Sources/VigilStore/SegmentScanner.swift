/// Reads the records of one segment file's bytes and says what was damaged; pure, no I/O.
///
/// Walks the records from the header on. At a position that does not hold a valid record
/// (short header, length out of bounds, unknown priority, CRC mismatch) it searches forward
/// for the next position that does: when it finds one, the bytes in between are one skipped
/// bad record; when it finds none, everything from that position on is a torn tail, which
/// recovery truncates. The search is bounded (``maximumSearchWork`` bytes of CRC work per
/// file) so that a hostile file cannot make recovery slow; past the bound the rest counts as
/// torn tail.
struct SegmentScanner {
    /// A record found in the file.
    struct Record: Hashable, Sendable {
        /// Offset of the record's header in the file.
        var offset: Int
        /// Payload length in bytes.
        var length: Int
        /// The record's priority.
        var priority: EventPriority
    }

    /// What a scan found.
    struct Result: Sendable {
        /// The header, or `nil` when the file does not start with a valid one (then the whole
        /// file is damaged and nothing else is read).
        var header: SegmentHeader?
        /// Valid records in file order.
        var records: [Record] = []
        /// Number of damaged regions skipped between valid records.
        var badRecords = 0
        /// Bytes in those regions.
        var badBytes = 0
        /// Where the valid data ends: the file size, or the start of a torn tail.
        var validEnd = 0
        /// Bytes of torn tail (from `validEnd` to the end of the file).
        var tornBytes = 0
    }

    /// Largest payload a record may declare.
    var maximumPayload: Int
    /// Bound on the bytes checksummed while searching for the next valid record.
    var maximumSearchWork = 64 << 20

    /// Scans `bytes`, the whole content of a segment file.
    func scan(_ bytes: UnsafeRawBufferPointer) -> Result {
        var result = Result()
        guard let header = SegmentHeader(reading: bytes) else {
            result.validEnd = 0
            result.tornBytes = bytes.count
            return result
        }
        result.header = header
        var offset = SegmentHeader.size
        var searchBudget = maximumSearchWork
        while offset < bytes.count {
            if let record = record(at: offset, in: bytes) {
                result.records.append(record)
                offset += RecordFrame.size(payloadLength: record.length)
                continue
            }
            var candidate = offset + 1
            var found: Int?
            while candidate + RecordFrame.headerSize <= bytes.count, searchBudget > 0 {
                if let length = plausibleLength(at: candidate, in: bytes) {
                    searchBudget -= length + RecordFrame.headerSize
                    if record(at: candidate, in: bytes) != nil { found = candidate; break }
                }
                candidate += 1
            }
            guard let next = found else {
                result.validEnd = offset
                result.tornBytes = bytes.count - offset
                return result
            }
            result.badRecords += 1
            result.badBytes += next - offset
            offset = next
        }
        result.validEnd = bytes.count
        return result
    }

    /// The record at `offset` when its header is plausible and its CRC matches.
    func record(at offset: Int, in bytes: UnsafeRawBufferPointer) -> Record? {
        guard let length = plausibleLength(at: offset, in: bytes) else { return nil }
        let stored = RecordFrame.readUInt32(bytes, at: offset + 4)
        let priority = bytes[offset + 8]
        let payloadStart = offset + RecordFrame.headerSize
        let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<(payloadStart + length)])
        guard RecordFrame.checksum(length: UInt32(length), priority: priority, payload: payload) == stored,
              let known = EventPriority(rawValue: priority) else { return nil }
        return Record(offset: offset, length: length, priority: known)
    }

    /// The declared payload length at `offset` when the header fits, the length is within
    /// bounds and the file, and the priority byte is known; cheap checks before any CRC.
    private func plausibleLength(at offset: Int, in bytes: UnsafeRawBufferPointer) -> Int? {
        guard offset >= 0, offset + RecordFrame.headerSize <= bytes.count else { return nil }
        let length = Int(RecordFrame.readUInt32(bytes, at: offset))
        guard length >= RecordFrame.minimumPayload, length <= maximumPayload,
              length <= bytes.count - offset - RecordFrame.headerSize,
              bytes[offset + 8] <= EventPriority.critical.rawValue else { return nil }
        return length
    }
}
