/// What the link needs from a BLE stack: scanning, connecting, discovery, notifications,
/// writes with and without response, and the stack's flow control.
///
/// Implementations: ``CoreBluetoothTransport`` (Apple platforms) and the simulator's
/// `SimulatedTransport`. Every method is called on the link's scheduler, and every event is
/// delivered there through ``eventHandler``; an implementation never calls back synchronously
/// from inside a method (events are always queued), so the link's state machine is never
/// re-entered.
public protocol BLETransport: AnyObject {
    /// Receives every ``TransportEvent``; set by the connection that owns the transport.
    var eventHandler: ((TransportEvent) -> Void)? { get set }
    /// Whether the radio is on and usable.
    var isPoweredOn: Bool { get }
    /// Starts reporting advertisements of peers offering any of `services` (all peers if empty).
    func startScan(services: [BLEUUID])
    /// Stops scanning.
    func stopScan()
    /// Asks for a link to `peer`; answered by `connected` or `connectFailed` (possibly never:
    /// the caller owns the timeout).
    func connect(_ peer: PeerIdentifier)
    /// Closes the link or abandons the connection request; answered by `disconnected`.
    func cancelConnection(_ peer: PeerIdentifier)
    /// Discovers `service` and the given characteristics; answered by `servicesDiscovered`.
    func discover(service: BLEUUID, characteristics: [BLEUUID], on peer: PeerIdentifier)
    /// Enables or disables notifications (or indications) on a characteristic; answered by
    /// `notificationStateChanged` once the peer confirmed the descriptor write.
    func setNotifications(_ enabled: Bool, characteristic: BLEUUID, on peer: PeerIdentifier)
    /// Writes a value. A Write Request is answered by `wrote`; a Write Command is not answered,
    /// and must only be issued while ``canSendWriteWithoutResponse(_:)`` is true (a stack may
    /// drop it silently otherwise, as CoreBluetooth does).
    func write(_ bytes: [UInt8], characteristic: BLEUUID, type: WriteType, on peer: PeerIdentifier)
    /// Whether the stack has room for another Write Command.
    func canSendWriteWithoutResponse(_ peer: PeerIdentifier) -> Bool
    /// The longest value one write of `type` may carry (ATT MTU − 3 for Write Commands).
    func maximumWriteLength(_ type: WriteType, for peer: PeerIdentifier) -> Int
    /// Asks for an RSSI reading; answered by `rssiRead`.
    func readRSSI(_ peer: PeerIdentifier)
}
