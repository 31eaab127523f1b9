import VigilBLE
import VigilCore

/// A simulated card terminal of the family `Wire` (``FramedTerminalPeripheral``,
/// ``TLVTerminalPeripheral``): advertises and offers the family's GATT table, parses the
/// requests the phone writes with `Wire`, lets its ``behavior`` answer them, and notifies the
/// encoded answers in pieces of the link's notification length, after the configured noise
/// and corrupted on request. Called on the simulation's scheduler.
public final class SimulatedTerminalPeripheral<Wire: SimulatedTerminalWire>: SimulatedPeripheral {
    public let identifier: PeerIdentifier
    public var advertisedName: String? { Wire.advertisedName(serialNumber: behavior.serialNumber) }
    public var advertisedServices: [BLEUUID] { Wire.advertisedServices }
    public var rssi: Int
    public var gatt: [BLEUUID: [BLEUUID]] { [Wire.service: [Wire.writeCharacteristic, Wire.notifyCharacteristic]] }

    /// What the terminal does.
    public let behavior: SimulatedTerminalBehavior
    /// Request bytes the terminal could not parse.
    public var malformedRequestBytes: Int { wire.malformedRequestBytes }

    private var wire = Wire()
    private var context: PeripheralContext?

    /// A terminal named `identifier` with `serialNumber`, heard at `rssi` dBm.
    public init(identifier: PeerIdentifier, serialNumber: String, rssi: Int) {
        self.identifier = identifier
        self.rssi = rssi
        self.behavior = SimulatedTerminalBehavior(serialNumber: serialNumber)
    }

    public func didConnect(_ context: PeripheralContext) {
        self.context = context
        wire.reset()
    }

    public func didDisconnect() {
        context = nil
        behavior.linkDropped()
    }

    public func didReceiveWrite(_ value: [UInt8], characteristic: BLEUUID, withResponse: Bool) {
        guard characteristic == Wire.writeCharacteristic, let context else { return }
        for request in wire.requests(in: value) {
            let address = request.address
            behavior.handle(request.operation, scheduler: context.scheduler) { [weak self] reply in
                self?.send(reply, to: address)
            }
        }
    }

    /// Sends the answer as notifications of at most the link's notification length.
    private func send(_ reply: SimulatedTerminalBehavior.Reply, to address: Wire.ReplyAddress) {
        guard let context, var bytes = wire.encode(reply, to: address), !bytes.isEmpty else { return }
        if behavior.corruptReplies { bytes[bytes.count - 1] ^= 0xFF }
        bytes = behavior.noiseBeforeReplies + bytes
        let limit = max(1, context.maxNotificationLength)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + limit, bytes.count)
            context.notify(Array(bytes[offset..<end]), characteristic: Wire.notifyCharacteristic)
            offset = end
        }
    }
}
