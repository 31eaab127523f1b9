import VigilCore

/// What a successful transfer measured.
public struct TransferReport: Sendable, Hashable {
    /// The transfer id.
    public var transferId: UInt32
    /// Payload bytes, all verified by the peer's SHA-256.
    public var bytes: Int
    /// Chunks.
    public var chunkCount: Int
    /// Payload bytes per chunk.
    public var chunkSize: Int
    /// Mode.
    public var mode: TransferMode
    /// Window granted by the peer (1 in stop-and-wait).
    public var window: Int
    /// Chunks sent more than once.
    public var retransmissions: Int
    /// Of ``retransmissions``: resends because a chunk's retransmission timeout expired.
    public var timeoutRetransmissions: Int = 0
    /// Of ``retransmissions``: resends because a chunk sent later was acknowledged first, or a
    /// NACK named the chunk (window mode), or the peer's ATT layer refused it (stop-and-wait).
    public var fastRetransmissions: Int = 0
    /// Timeouts the next acknowledgement showed to be spurious (window mode): the chunks that
    /// expired with the one the timeout resent were still arriving, so they were not resent.
    public var spuriousTimeouts: Int = 0
    /// The smoothed round-trip time at the end (ms); nil when no chunk was acknowledged on its
    /// first send.
    public var smoothedRoundTripMs: Double?
    /// The retransmission timeout at the end (ms).
    public var retransmissionTimeoutMs: Double = 0
    /// Times the transfer resumed after the link came back.
    public var resumes: Int
    /// Notifications that failed to parse (ignored).
    public var malformedPackets: Int
    /// From the first START to DONE.
    public var started: MonotonicInstant
    /// When DONE arrived.
    public var finished: MonotonicInstant
    /// Whether the peer verified the SHA-256 (always true in a report; failures are errors).
    public var verified: Bool

    /// Duration in seconds.
    public var seconds: Double { Double(finished.nanoseconds(since: started)) / 1e9 }

    /// Payload bytes per second over the whole transfer.
    public var goodputBytesPerSecond: Double { seconds > 0 ? Double(bytes) / seconds : 0 }
}
