/// What an ``EventStore`` holds and what it lost, by cause. Every dropped event is counted
/// in exactly one of the `dropped…` counters.
public struct StoreStatistics: Sendable, Hashable {
    /// Records on disk not yet acknowledged (including those leased to the uploader).
    public var storedRecords = 0
    /// Bytes of those records, framing included.
    public var storedBytes = 0
    /// Bytes of all segment files (stored records, acknowledged ones not yet compacted away,
    /// headers).
    public var fileBytes = 0
    /// Segment files.
    public var segments = 0
    /// Events handed to ``EventStore/enqueue(_:)`` (accepted or not).
    public var enqueued = 0
    /// Records written to a segment file.
    public var written = 0
    /// Records deleted because the uploader acknowledged them.
    public var acknowledged = 0
    /// `fsync` calls on segment files.
    public var syncs = 0

    /// Events dropped because too many were waiting for the store's queue.
    public var droppedQueueFull = 0
    /// Events dropped because the disk was full or the directory unwritable.
    public var droppedUnwritable = 0
    /// Events larger than ``StoreConfiguration/maximumRecordBytes``.
    public var droppedOversized = 0
    /// Events that could not be encoded as JSON.
    public var droppedUnencodable = 0
    /// Events dropped to keep under the total cap, by priority.
    public var droppedForCap: [EventPriority: Int] = [:]
    /// Events deleted with their segment past the retention time.
    public var droppedExpired = 0
    /// Events enqueued after ``EventStore/close()``.
    public var droppedClosed = 0
    /// Records whose CRC no longer matched when read for upload.
    public var droppedCorruptOnRead = 0

    /// What recovery found when the store opened.
    public var recovery = RecoveryReport()

    /// Sum of every `dropped…` counter.
    public var droppedTotal: Int {
        droppedQueueFull + droppedUnwritable + droppedOversized + droppedUnencodable
            + droppedForCap.values.reduce(0, +) + droppedExpired + droppedClosed + droppedCorruptOnRead
    }
}

/// What the store's recovery scan found on open.
public struct RecoveryReport: Sendable, Hashable {
    /// Segment files read.
    public var segmentsScanned = 0
    /// Valid records found (before removing acknowledged ones).
    public var recordsFound = 0
    /// Records already acknowledged in an earlier run (their deletion journal said so).
    public var recordsAlreadyAcknowledged = 0
    /// Segments whose tail was cut off (an interrupted write).
    public var tornTails = 0
    /// Bytes cut off.
    public var tornBytes = 0
    /// Damaged regions skipped between valid records (failed CRC).
    public var badRecords = 0
    /// Bytes in them.
    public var badBytes = 0
    /// Deletion-journal entries naming records past the end of their segment's valid records
    /// (acknowledged, then lost with the file's tail); such a segment takes no more appends, so
    /// no new record ever sits where an entry points.
    public var journalEntriesPastEnd = 0
    /// Files with an unreadable header, removed whole.
    public var corruptSegments = 0
    /// Bytes in them.
    public var corruptBytes = 0
    /// Leftover files removed: interrupted compactions, superseded generations, orphans.
    public var strayFilesRemoved = 0
    /// Whether the store could open its directory at all (`false`: every event is dropped
    /// and counted as unwritable until it can).
    public var directoryUsable = true
    /// Why the directory could not be used, when it could not (the failed call and `errno`).
    public var directoryProblem: String?
}
