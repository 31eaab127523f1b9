/// Timeouts and reconnect behaviour of a ``BLEConnection``.
public struct ConnectionConfiguration: Sendable, Hashable {
    /// How long one scan may look for the target before the attempt fails (ms).
    public var scanTimeoutMs: Double
    /// How long a connection request may stay unanswered (ms). CoreBluetooth never times a
    /// request out by itself, so this is the only bound.
    public var connectTimeoutMs: Double
    /// How long each GATT operation (discovery, a notification subscription, a Write Request)
    /// may stay unanswered (ms). ATT allows one outstanding request; an unanswered one blocks
    /// the bearer, so a timeout drops the link.
    public var operationTimeoutMs: Double
    /// Attempts and backoff.
    public var reconnect: ReconnectPolicy
    /// Whether a link lost while ready is re-established without being asked.
    public var reconnectAutomatically: Bool
    /// Seed for the backoff jitter (reproducible tests and simulations); random when `nil`.
    public var seed: UInt64?

    /// A configuration; defaults: 10 s scan, 10 s connect, 5 s per GATT operation.
    public init(scanTimeoutMs: Double = 10_000, connectTimeoutMs: Double = 10_000, operationTimeoutMs: Double = 5_000,
                reconnect: ReconnectPolicy = ReconnectPolicy(), reconnectAutomatically: Bool = true, seed: UInt64? = nil) {
        self.scanTimeoutMs = scanTimeoutMs
        self.connectTimeoutMs = connectTimeoutMs
        self.operationTimeoutMs = operationTimeoutMs
        self.reconnect = reconnect
        self.reconnectAutomatically = reconnectAutomatically
        self.seed = seed
    }
}
