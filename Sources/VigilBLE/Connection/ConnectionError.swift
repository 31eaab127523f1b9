/// Why a connection attempt or a GATT operation failed.
public indirect enum ConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The operation needs a ready link; the connection was in `state`.
    case notReady(state: String)
    /// `connect` was called while the connection was not idle.
    case busy(state: String)
    /// No acceptable advertisement within the scan timeout.
    case scanTimedOut(afterMs: Double)
    /// The stack did not complete the connection request in time.
    case connectTimedOut(PeerIdentifier, afterMs: Double)
    /// The stack refused the connection request.
    case connectFailed(PeerIdentifier, TransportFailure)
    /// A GATT operation stayed unanswered (the link is dropped afterwards).
    case operationTimedOut(operation: String, afterMs: Double)
    /// Service discovery failed.
    case discoveryFailed(PeerIdentifier, TransportFailure)
    /// The peer lacks characteristics the profile needs.
    case missingCharacteristics(PeerIdentifier, [BLEUUID])
    /// The peer refused to enable notifications on a characteristic.
    case notificationsRefused(BLEUUID, TransportFailure)
    /// A Write Request was answered with an error.
    case writeFailed(BLEUUID, TransportFailure)
    /// A Write Command was refused because the stack's buffer is full (wait for `readyToWrite`).
    case writeBufferFull
    /// A value longer than one write may carry.
    case valueTooLong(length: Int, limit: Int)
    /// The link went down.
    case disconnected(DisconnectReason)
    /// Bluetooth is off.
    case poweredOff
    /// The user disconnected, or the operation was abandoned.
    case cancelled
    /// Every attempt of the effort failed; the last error is attached.
    case gaveUp(attempts: Int, last: ConnectionError)

    public var description: String {
        switch self {
        case .notReady(let state): return "link not ready (\(state))"
        case .busy(let state): return "connection busy (\(state))"
        case .scanTimedOut(let ms): return "no matching peer found in \(Int(ms)) ms"
        case .connectTimedOut(let peer, let ms): return "connecting to \(peer) timed out after \(Int(ms)) ms"
        case .connectFailed(let peer, let failure): return "connecting to \(peer) failed: \(failure)"
        case .operationTimedOut(let operation, let ms): return "\(operation) unanswered after \(Int(ms)) ms"
        case .discoveryFailed(let peer, let failure): return "discovery on \(peer) failed: \(failure)"
        case .missingCharacteristics(let peer, let missing):
            return "\(peer) lacks characteristics \(missing.map(\.string).joined(separator: ", "))"
        case .notificationsRefused(let uuid, let failure): return "notifications on \(uuid) refused: \(failure)"
        case .writeFailed(let uuid, let failure): return "write to \(uuid) failed: \(failure)"
        case .writeBufferFull: return "write buffer full"
        case .valueTooLong(let length, let limit): return "value of \(length) bytes exceeds the write limit \(limit)"
        case .disconnected(let reason): return "disconnected: \(reason)"
        case .poweredOff: return "Bluetooth is off"
        case .cancelled: return "cancelled"
        case .gaveUp(let attempts, let last): return "gave up after \(attempts) attempts: \(last)"
        }
    }
}
