import VigilCore

/// Everything a debug panel shows about a link, read at one instant.
public struct ConnectionSnapshot: Sendable, Hashable {
    /// The state.
    public var state: ConnectionState
    /// The peer's advertised name.
    public var peerName: String?
    /// The peer's identifier.
    public var peerId: PeerIdentifier?
    /// Latest RSSI (dBm): from the advertisement, then from reads once connected.
    public var rssi: Int?
    /// ATT MTU while linked (the Write Command limit + 3).
    public var mtu: Int?
    /// Notifications received.
    public var packetsIn: Int
    /// Writes sent (both kinds).
    public var packetsOut: Int
    /// Bytes received in notifications.
    public var bytesIn: Int
    /// Bytes written.
    public var bytesOut: Int
    /// Chunks resent by transfers on this link.
    public var retransmissions: Int
    /// When anything was last sent or received.
    public var lastActivity: MonotonicInstant?
    /// Connection attempts started since creation.
    public var attempts: Int
    /// Reconnect triggers ignored because an attempt was running or the link was ready.
    public var ignoredReconnectTriggers: Int
    /// The last failure, if any.
    public var lastError: ConnectionError?
    /// Why the link last went down, if it did.
    public var lastDisconnectReason: DisconnectReason?
}
