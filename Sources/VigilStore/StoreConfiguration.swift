/// Limits and timing of an ``EventStore``.
public struct StoreConfiguration: Sendable, Hashable {
    /// A segment file is closed and a new one started once it reaches this size (bytes).
    public var segmentByteLimit: Int
    /// Total bytes of segment files; above it the store drops events, lowest priority and
    /// oldest first, down to ``lowWaterFraction`` of this.
    public var totalByteLimit: Int
    /// Fraction of ``totalByteLimit`` the store shrinks to when the cap is hit, so that one
    /// enforcement frees room for many appends.
    public var lowWaterFraction: Double
    /// Segments created longer ago than this (seconds) are deleted with their events.
    public var retentionSeconds: Double
    /// Largest encoded event the store keeps (bytes); larger ones are dropped and counted.
    public var maximumRecordBytes: Int
    /// Events waiting for the store's queue; past it, non-critical events are dropped and
    /// counted instead of growing memory.
    public var pendingLimit: Int
    /// Non-critical events are made durable (`fsync`) at most this long (seconds) after they
    /// were written.
    public var syncIntervalSeconds: Double
    /// Longest time a critical `enqueue` waits for its `fsync` before returning anyway
    /// (seconds); a stuck disk must not hang the app.
    public var durableWaitSeconds: Double

    /// The defaults: 2 MiB segments, 20 MiB total (shrunk to 90%), 3 days, 1 MiB events,
    /// 4,096 pending events, `fsync` within 1 s, critical waits up to 2 s.
    public init(segmentByteLimit: Int = 2 << 20, totalByteLimit: Int = 20 << 20, lowWaterFraction: Double = 0.9,
                retentionSeconds: Double = 3 * 86_400, maximumRecordBytes: Int = 1 << 20, pendingLimit: Int = 4096,
                syncIntervalSeconds: Double = 1, durableWaitSeconds: Double = 2) {
        self.segmentByteLimit = segmentByteLimit
        self.totalByteLimit = totalByteLimit
        self.lowWaterFraction = lowWaterFraction
        self.retentionSeconds = retentionSeconds
        self.maximumRecordBytes = maximumRecordBytes
        self.pendingLimit = pendingLimit
        self.syncIntervalSeconds = syncIntervalSeconds
        self.durableWaitSeconds = durableWaitSeconds
    }
}
