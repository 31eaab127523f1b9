import VigilBLE
import VigilCore

/// A simulated peer that receives transfers: the transfer service backed by a
/// ``TransferReceiver``, storing delivered bytes in ``received``. Its state survives link
/// drops (as a device's RAM does), so transfers resume.
public final class TransferPeerPeripheral: SimulatedPeripheral {
    public let identifier: PeerIdentifier
    public let advertisedName: String?
    public var advertisedServices: [BLEUUID] { [TransferService.service] }
    public var rssi: Int
    public var gatt: [BLEUUID: [BLEUUID]] { [TransferService.service: [TransferService.characteristic]] }

    /// The receiver; replaced when the MTU of a new link differs (its ACK bitmap depends on it).
    public private(set) var receiver: TransferReceiver
    /// Bytes of the current (or last) transfer, in order.
    public private(set) var received: [UInt8] = []
    /// Transfers that completed, with whether the hash verified.
    public private(set) var completions: [(transferId: UInt32, verified: Bool)] = []
    /// Every refusal the receiver reported (bad input), for assertions.
    public private(set) var rejections: [TransferReceiverError] = []
    /// The most out-of-order bytes the receiver ever held (its memory bound in action).
    public private(set) var peakHeldBytes = 0

    private var receiverConfiguration: TransferReceiverConfiguration
    private var context: PeripheralContext?
    private var ackTimer: ScheduledTask?

    /// A transfer peer.
    public init(identifier: PeerIdentifier = "transfer-peer", name: String = "Vigil Transfer Peer", rssi: Int = -55,
                configuration: TransferReceiverConfiguration = TransferReceiverConfiguration()) {
        self.identifier = identifier
        self.advertisedName = name
        self.rssi = rssi
        self.receiverConfiguration = configuration
        self.receiver = TransferReceiver(configuration: configuration)
    }

    public func didConnect(_ context: PeripheralContext) {
        self.context = context
        if receiverConfiguration.maxNotificationLength != context.maxNotificationLength {
            receiverConfiguration.maxNotificationLength = context.maxNotificationLength
            if receiver.progress == nil { receiver = TransferReceiver(configuration: receiverConfiguration) }
        }
    }

    public func didDisconnect() {
        context = nil
        ackTimer?.cancel()
        ackTimer = nil
    }

    public func didReceiveWrite(_ value: [UInt8], characteristic: BLEUUID, withResponse: Bool) {
        guard characteristic == TransferService.characteristic, let context else { return }
        perform(receiver.handle(value, at: context.scheduler.now))
    }

    private func perform(_ actions: [TransferReceiverAction]) {
        for action in actions {
            switch action {
            case .send(let bytes): context?.notify(bytes, characteristic: TransferService.characteristic)
            case .began(_, _, let resumeOffset):
                if UInt64(received.count) != resumeOffset { received.removeSubrange(Int(min(resumeOffset, UInt64(received.count)))...) }
            case .deliver(let offset, let bytes):
                if UInt64(received.count) == offset { received.append(contentsOf: bytes) }
            case .completed(let id, _, let verified): completions.append((id, verified))
            case .abandoned: received.removeAll()
            case .rejected(let error): rejections.append(error)
            }
        }
        peakHeldBytes = max(peakHeldBytes, receiver.heldByteCount)
        armAckTimer()
    }

    private func armAckTimer() {
        guard let context, let deadline = receiver.nextDeadline else {
            ackTimer?.cancel()
            ackTimer = nil
            return
        }
        if let ackTimer, ackTimer.deadline == deadline, !ackTimer.isCancelled { return }
        ackTimer?.cancel()
        ackTimer = context.scheduler.schedule(at: deadline, label: "peer: ack delay") { [weak self] in
            guard let self, let context = self.context else { return }
            self.ackTimer = nil
            self.perform(self.receiver.handleTimer(at: context.scheduler.now))
        }
    }
}
