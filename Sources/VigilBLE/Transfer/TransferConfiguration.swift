/// How a ``TransferSender`` runs a transfer.
public struct TransferConfiguration: Sendable, Hashable {
    /// Stop-and-wait or window.
    public var mode: TransferMode
    /// Chunks to ask for in flight (the peer may grant fewer).
    public var requestedWindow: Int
    /// Payload bytes per chunk; `nil` uses the largest that fits one Write Command.
    public var chunkSize: Int?
    /// Retransmission timeout before any round trip was measured (ms).
    public var initialRetransmissionTimeoutMs: Double
    /// Floor of the adaptive retransmission timeout (ms).
    public var minRetransmissionTimeoutMs: Double
    /// Ceiling of the retransmission timeout, backoff included (ms).
    public var maxRetransmissionTimeoutMs: Double
    /// Sends of one chunk before the transfer fails.
    public var maxTransmissionsPerChunk: Int
    /// Wait for START-ACK or DONE before asking again (ms).
    public var controlTimeoutMs: Double
    /// STARTs (or QUERYs while waiting for DONE) before the transfer fails.
    public var maxControlAttempts: Int
    /// Nothing heard from the peer this long while waiting: the transfer fails (ms).
    public var peerSilenceTimeoutMs: Double
    /// Reconnect-and-resume cycles before the transfer fails.
    public var maxResumes: Int
    /// The transfer id; random when `nil`.
    public var transferId: UInt32?

    /// A configuration; defaults: window mode asking for 64 chunks.
    public init(mode: TransferMode = .window, requestedWindow: Int = 64, chunkSize: Int? = nil,
                initialRetransmissionTimeoutMs: Double = 1_000, minRetransmissionTimeoutMs: Double = 20,
                maxRetransmissionTimeoutMs: Double = 4_000, maxTransmissionsPerChunk: Int = 24,
                controlTimeoutMs: Double = 2_000, maxControlAttempts: Int = 5, peerSilenceTimeoutMs: Double = 10_000,
                maxResumes: Int = 16, transferId: UInt32? = nil) {
        self.mode = mode
        self.requestedWindow = max(1, min(requestedWindow, Int(UInt16.max)))
        self.chunkSize = chunkSize
        self.initialRetransmissionTimeoutMs = initialRetransmissionTimeoutMs
        self.minRetransmissionTimeoutMs = minRetransmissionTimeoutMs
        self.maxRetransmissionTimeoutMs = maxRetransmissionTimeoutMs
        self.maxTransmissionsPerChunk = max(1, maxTransmissionsPerChunk)
        self.controlTimeoutMs = controlTimeoutMs
        self.maxControlAttempts = max(1, maxControlAttempts)
        self.peerSilenceTimeoutMs = peerSilenceTimeoutMs
        self.maxResumes = maxResumes
        self.transferId = transferId
    }
}
