/// Why a link went down, as the stack reports it.
public enum DisconnectReason: Sendable, Hashable, CustomStringConvertible {
    /// The peer closed the link (HCI 0x13).
    case remoteTerminated
    /// Nothing heard from the peer within the supervision timeout (HCI 0x08): out of range, or
    /// the peer reset.
    case supervisionTimeout
    /// This side closed the link (HCI 0x16), e.g. after `cancelPeripheralConnection`.
    case localHostTerminated
    /// The radio was switched off.
    case poweredOff
    /// Anything else, with the stack's code and text.
    case other(code: Int, message: String)

    public var description: String {
        switch self {
        case .remoteTerminated: return "remote terminated"
        case .supervisionTimeout: return "supervision timeout"
        case .localHostTerminated: return "local host terminated"
        case .poweredOff: return "powered off"
        case .other(let code, let message): return "error \(code): \(message)"
        }
    }
}

/// A failure the BLE stack reported for one operation.
public struct TransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stack's error code (ATT or CoreBluetooth), 0 when it has none.
    public var code: Int
    /// The stack's message.
    public var message: String

    /// A failure.
    public init(code: Int = 0, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { code == 0 ? message : "\(message) (code \(code))" }
}

/// What a BLE stack reports to the link, delivered on the link's scheduler.
public enum TransportEvent: Sendable {
    /// The radio became usable (`true`) or not.
    case powerChanged(Bool)
    /// A scan saw a peer.
    case advertisement(Advertisement)
    /// A connection request completed; the ATT MTU has been exchanged.
    case connected(PeerIdentifier)
    /// A connection request failed.
    case connectFailed(PeerIdentifier, TransportFailure)
    /// An established link went down.
    case disconnected(PeerIdentifier, DisconnectReason)
    /// Service and characteristic discovery finished: the characteristics found, or the error.
    case servicesDiscovered(PeerIdentifier, Result<Set<BLEUUID>, TransportFailure>)
    /// The peer confirmed (or refused) a change of notification state on a characteristic.
    case notificationStateChanged(PeerIdentifier, BLEUUID, Result<Bool, TransportFailure>)
    /// A Write Request was answered.
    case wrote(PeerIdentifier, BLEUUID, Result<Void, TransportFailure>)
    /// A notification or indication arrived.
    case valueReceived(PeerIdentifier, BLEUUID, [UInt8])
    /// The stack's Write Command buffer has room again (`peripheralIsReady(toSendWriteWithoutResponse:)`).
    case readyToSendWriteWithoutResponse(PeerIdentifier)
    /// An RSSI reading.
    case rssiRead(PeerIdentifier, Int)
    /// The system relaunched the app and handed back these connected peers (state restoration).
    case restored([PeerIdentifier])
}
