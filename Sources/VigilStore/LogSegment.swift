/// The in-memory index of one segment file: where each record is and whether it is still
/// stored, leased to the uploader, or deleted. Confined to the store's queue.
final class LogSegment {
    /// One record of the segment.
    struct Slot {
        /// Where a record stands.
        enum State: UInt8 {
            /// On disk, waiting for upload.
            case stored
            /// Handed to the uploader and not yet acknowledged or released.
            case leased
            /// Acknowledged or dropped; its bytes go at the next compaction.
            case deleted
        }

        /// Identity for ``RecordHandle``; increases with file order.
        var token: UInt64
        /// Offset of the record's header in the current file.
        var offset: Int
        /// Payload bytes.
        var length: Int
        var priority: EventPriority
        var state: State

        /// Bytes of the whole record on disk.
        var frameSize: Int { RecordFrame.size(payloadLength: length) }
    }

    /// File names of the current generation.
    var name: SegmentName
    /// From the header, milliseconds since 1970.
    let createdAtMilliseconds: Int64
    /// Bytes in the records file.
    var fileSize: Int
    /// Records in file order (so also in token order).
    var slots: [Slot] = []
    /// Records not deleted.
    var liveCount = 0
    /// Bytes of records not deleted.
    var liveBytes = 0
    /// Open for appending while this is the active segment; -1 otherwise.
    var appendDescriptor: Int32 = -1
    /// The deletion journal, opened on the first deletion; -1 otherwise.
    var deletionsDescriptor: Int32 = -1
    /// Written to since the last `fsync`.
    var unsynced = false
    /// No more appends: rolled over, or recovered and not the newest.
    var sealed = false
    /// The deletion journal names offsets at or past the end of the valid records (records
    /// acknowledged and then lost with the file's tail). A record appended there would take an
    /// offset the journal calls deleted, so this segment never takes appends again; it goes
    /// when its records are acknowledged, or is rewritten with a fresh journal by compaction.
    var journalReachesPastEnd = false

    init(name: SegmentName, createdAtMilliseconds: Int64, fileSize: Int) {
        self.name = name
        self.createdAtMilliseconds = createdAtMilliseconds
        self.fileSize = fileSize
    }

    /// The UTC day number (days since 1970) the segment was created on.
    var day: Int64 { LogSegment.day(ofMilliseconds: createdAtMilliseconds) }

    /// Index of the slot with `token`, by binary search (slots are in token order).
    func slotIndex(token: UInt64) -> Int? { slots.binarySearch(token, by: \.token) }

    /// UTC day number of a wall time in milliseconds (floor division, so it also holds
    /// before 1970).
    static func day(ofMilliseconds milliseconds: Int64) -> Int64 {
        let perDay: Int64 = 86_400_000
        let quotient = milliseconds / perDay
        return milliseconds % perDay < 0 ? quotient - 1 : quotient
    }
}
