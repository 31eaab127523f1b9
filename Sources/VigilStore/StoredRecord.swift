import Foundation

/// Names one record of the store for acknowledging, releasing or parking it. Valid for the
/// life of the ``EventStore`` that handed it out (not across restarts).
public struct RecordHandle: Hashable, Sendable, Comparable {
    /// The segment's sequence number.
    public var segment: UInt64
    /// The record's token, unique within this store instance and increasing with age.
    public var token: UInt64

    public static func < (lhs: RecordHandle, rhs: RecordHandle) -> Bool {
        (lhs.segment, lhs.token) < (rhs.segment, rhs.token)
    }
}

/// One record leased to the uploader by ``EventStore/nextBatch(maxEvents:maxBytes:oversizedAbove:)``.
public struct StoredRecord: Sendable {
    /// How to acknowledge or release it.
    public var handle: RecordHandle
    /// Its priority.
    public var priority: EventPriority
    /// The encoded event (compact JSON, no newline).
    public var payload: Data
}
