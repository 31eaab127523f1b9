import VigilCore

/// Where a ``BLEConnection`` is. Transitions, timeouts and errors are in docs/ble.md.
///
/// ```
/// idle → scanning → connecting → discovering → ready
///          ↑            ↑             │          │ link lost
///          └────────────┴─ reconnecting ←────────┘ (or any failure, with capped backoff)
/// ```
public enum ConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// Nothing running. Entered at creation, after a user disconnect, or after giving up.
    case idle
    /// Looking for an advertisement the target accepts (attempt `attempt` of the effort).
    case scanning(attempt: Int)
    /// Asked the stack for a link to the peer.
    case connecting(PeerIdentifier, attempt: Int)
    /// Linked; discovering the service, then enabling and confirming notifications.
    case discovering(PeerIdentifier, attempt: Int)
    /// Discovery done and every notification confirmed: commands may be sent.
    case ready(PeerIdentifier)
    /// Waiting until `retryAt` before attempt `attempt` (after a failure or a lost link).
    case reconnecting(attempt: Int, retryAt: MonotonicInstant)

    /// The state's name without its values (`idle`, `scanning`, …), for spans and snapshots.
    public var name: String {
        switch self {
        case .idle: return "idle"
        case .scanning: return "scanning"
        case .connecting: return "connecting"
        case .discovering: return "discovering"
        case .ready: return "ready"
        case .reconnecting: return "reconnecting"
        }
    }

    /// Whether an attempt is in progress (scanning, connecting or discovering).
    public var isAttemptRunning: Bool {
        switch self {
        case .scanning, .connecting, .discovering: return true
        case .idle, .ready, .reconnecting: return false
        }
    }

    /// Whether the link is ready for commands.
    public var isReady: Bool {
        if case .ready = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .idle: return "idle"
        case .scanning(let attempt): return "scanning (attempt \(attempt))"
        case .connecting(let peer, let attempt): return "connecting to \(peer) (attempt \(attempt))"
        case .discovering(let peer, let attempt): return "discovering \(peer) (attempt \(attempt))"
        case .ready(let peer): return "ready (\(peer))"
        case .reconnecting(let attempt, let retryAt): return "reconnecting (attempt \(attempt) at \(retryAt))"
        }
    }
}

/// Who asked for a reconnect; several may fire at once (the app returning to the foreground,
/// Bluetooth switching back on, the user tapping "retry"), and only one attempt results.
public enum ReconnectTrigger: String, Sendable, Hashable, CaseIterable {
    /// The user asked.
    case user
    /// The app came to the foreground.
    case appForeground
    /// Bluetooth was switched back on.
    case bluetoothPoweredOn
    /// The backoff timer after a failure or a lost link.
    case backoffTimer
    /// The system restored the app's connections (state restoration).
    case stateRestoration
}

/// What a reconnect trigger did.
public enum ReconnectOutcome: Sendable, Hashable {
    /// An attempt started.
    case started
    /// An attempt was already running; nothing changed.
    case alreadyRunning
    /// The link is ready; nothing changed.
    case alreadyConnected
    /// No target to reconnect to (never connected, or the user disconnected).
    case noTarget
}
