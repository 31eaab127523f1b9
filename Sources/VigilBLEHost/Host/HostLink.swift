import VigilBLE

/// One LE connection as the host sees it: its handle and peer, the link-layer parameters the
/// controller reported, the L2CAP reassembler, and the ATT bearer with its GATT client.
///
/// Owned by ``BLEHost`` and confined to its scheduler.
public final class HostLink {
    /// The connection handle.
    public let handle: UInt16
    /// The peer.
    public let peer: DeviceAddress
    /// The ATT client on CID 4.
    public let att: ATTClient
    /// GATT procedures on ``att``.
    public let gatt: GATTClient
    /// Connection interval, 1.25 ms units.
    public internal(set) var interval: UInt16
    /// Peripheral latency, connection events.
    public internal(set) var latency: UInt16
    /// Supervision timeout, 10 ms units.
    public internal(set) var supervisionTimeout: UInt16
    /// Link-layer payload octets this side may send (27 until Data Length Extension raised it).
    public internal(set) var maxTxOctets: UInt16 = 27
    /// Link-layer payload octets the peer may send.
    public internal(set) var maxRxOctets: UInt16 = 27
    /// Transmit PHY (1: 1M, 2: 2M, 3: Coded).
    public internal(set) var txPHY: UInt8 = 1
    /// Receive PHY.
    public internal(set) var rxPHY: UInt8 = 1
    /// Whether the link finished its setup (MTU exchanged) and was reported connected.
    public internal(set) var isEstablished = false
    /// Whether the link is down.
    public internal(set) var isClosed = false

    /// Characteristics discovered through ``HostTransport``, by UUID.
    var characteristics: [BLEUUID: GATTCharacteristic] = [:]
    /// The same, by value handle, for routing notifications.
    var characteristicByValueHandle: [UInt16: BLEUUID] = [:]
    var reassembler = L2CAPReassembler()
    var writeBufferWasFull = false
    var nextSignalingIdentifier: UInt8 = 1

    init(handle: UInt16, peer: DeviceAddress, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16,
         scheduler: any LinkScheduler, attTimeoutMs: Double, send: @escaping ([UInt8]) -> Void) {
        self.handle = handle
        self.peer = peer
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
        self.att = ATTClient(scheduler: scheduler, timeoutMs: attTimeoutMs, send: send)
        self.gatt = GATTClient(att: att)
    }
}
