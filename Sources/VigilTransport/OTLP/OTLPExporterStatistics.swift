/// What ``OTLPExporter`` sent, had refused and dropped. Counts only grow.
public struct OTLPExporterStatistics: Sendable, Hashable {
    /// Spans the receiver accepted.
    public var spansExported: UInt64 = 0
    /// Log records the receiver accepted.
    public var logRecordsExported: UInt64 = 0
    /// Spans and records the receiver refused (its `partialSuccess`, or a 4xx answer).
    public var rejected: UInt64 = 0
    /// Events dropped because the queue was full.
    public var droppedQueueFull: UInt64 = 0
    /// Events dropped after ``OTLPExporterConfiguration/maxAttempts`` failed attempts.
    public var droppedAfterRetries: UInt64 = 0
    /// HTTP requests made (retries included).
    public var requests: UInt64 = 0
    /// Attempts that failed (transport error, timeout, 429 or 5xx).
    public var failedAttempts: UInt64 = 0
    /// Request body bytes sent, after compression.
    public var bytesSent: UInt64 = 0

    /// Zero counts.
    public init() {}
}
