import VigilBLE
import VigilCore

/// A simulated terminal of the TLV + CRC-16 family: advertises only a `TLV-POS` name (the
/// factory must recognise it by name), parses TLV request packets, answers with TLV packets
/// echoing command and sequence.
public final class TLVTerminalPeripheral: SimulatedPeripheral {
    public let identifier: PeerIdentifier
    public var advertisedName: String? { "TLV-POS \(behavior.serialNumber)" }
    public var advertisedServices: [BLEUUID] { [] }
    public var rssi = -70
    public var gatt: [BLEUUID: [BLEUUID]] {
        [TLVTerminalAdapter.service: [TLVTerminalAdapter.writeCharacteristic, TLVTerminalAdapter.notifyCharacteristic]]
    }

    /// What the terminal does.
    public let behavior: SimulatedTerminalBehavior
    /// Request bytes the terminal could not parse.
    public var malformedRequestBytes: Int { reassembler.discardedBytes }

    private var reassembler = TLVPacketReassembler()
    private var context: PeripheralContext?

    /// A terminal.
    public init(identifier: PeerIdentifier = "terminal-tlv", serialNumber: String = "T7700913") {
        self.identifier = identifier
        self.behavior = SimulatedTerminalBehavior(serialNumber: serialNumber)
    }

    public func didConnect(_ context: PeripheralContext) {
        self.context = context
        reassembler.reset()
    }

    public func didDisconnect() {
        context = nil
        behavior.linkDropped()
    }

    public func didReceiveWrite(_ value: [UInt8], characteristic: BLEUUID, withResponse: Bool) {
        guard characteristic == TLVTerminalAdapter.writeCharacteristic, let context else { return }
        for case .packet(let packet) in reassembler.append(value) {
            guard let command = packet.value(TLVTerminalTag.command), command.count == 1,
                  let sequence = packet.value(TLVTerminalTag.sequence), sequence.count == 1,
                  let operation = Self.operation(command[0], packet) else { continue }
            behavior.handle(operation, scheduler: context.scheduler) { [weak self] reply in
                self?.send(reply, command: command[0], sequence: sequence[0])
            }
        }
    }

    private static func operation(_ code: UInt8, _ packet: TLVPacket) -> SimulatedTerminalBehavior.Operation? {
        guard let command = TLVTerminalCommand(rawValue: code) else { return nil }
        func littleEndian(_ bytes: [UInt8]?) -> UInt64? { bytes.map { $0.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } } }
        switch command {
        case .open: return .open
        case .deviceInfo: return .deviceInfo
        case .serialNumber: return .serialNumber
        case .traceNumber: return .traceNumber
        case .workKeys:
            guard let pin = packet.value(TLVTerminalTag.pinKey), let mac = packet.value(TLVTerminalTag.macKey),
                  let data = packet.value(TLVTerminalTag.dataKey) else { return nil }
            return .workKeys(WorkKeys(pinKey: pin, macKey: mac, dataKey: data))
        case .icParameters: return .icParameters(packet.value(TLVTerminalTag.icParameters) ?? [])
        case .startTransaction:
            guard let amount = littleEndian(packet.value(TLVTerminalTag.amount)),
                  let currency = littleEndian(packet.value(TLVTerminalTag.currency)) else { return nil }
            let kind = packet.value(TLVTerminalTag.kind)?.first.flatMap(CardTransactionRequest.Kind.init(rawValue:)) ?? .sale
            return .startTransaction(CardTransactionRequest(amountMinor: amount, currencyCode: UInt16(truncatingIfNeeded: currency),
                                                            kind: kind, timeoutSeconds: packet.value(TLVTerminalTag.timeout)?.first ?? 60))
        case .secondAuthorization: return .secondAuthorization(packet.value(TLVTerminalTag.issuerResponse) ?? [])
        case .cancel: return .cancel
        }
    }

    private func send(_ reply: SimulatedTerminalBehavior.Reply, command: UInt8, sequence: UInt8) {
        var elements = [TLVElement(tag: TLVTerminalTag.command, value: [command]), TLVElement(tag: TLVTerminalTag.sequence, value: [sequence])]
        var status: UInt8 = 0
        switch reply {
        case .ok: break
        case .status(let code): status = code
        case .info(let info):
            elements.append(TLVElement(tag: TLVTerminalTag.model, value: Array(info.model.utf8)))
            elements.append(TLVElement(tag: TLVTerminalTag.firmware, value: Array(info.firmware.utf8)))
        case .serial(let serial): elements.append(TLVElement(tag: TLVTerminalTag.serial, value: Array(serial.utf8)))
        case .traceNumber(let number):
            var value: [UInt8] = []
            value.appendLittleEndianValue(number)
            elements.append(TLVElement(tag: TLVTerminalTag.traceNumber, value: value))
        case .checkValues(let values): elements.append(TLVElement(tag: TLVTerminalTag.checkValues, value: values.pin + values.mac + values.data))
        case .card(let card):
            elements.append(TLVElement(tag: TLVTerminalTag.entryMode, value: [card.entryMode.rawValue]))
            elements.append(TLVElement(tag: TLVTerminalTag.maskedPAN, value: Array(card.maskedPAN.utf8)))
            elements.append(TLVElement(tag: TLVTerminalTag.icData, value: card.icData))
        case .secondAuthorization(let result):
            elements.append(TLVElement(tag: TLVTerminalTag.approved, value: [result.approved ? 1 : 0]))
            elements.append(TLVElement(tag: TLVTerminalTag.scriptResults, value: result.scriptResults))
        }
        elements.insert(TLVElement(tag: TLVTerminalTag.status, value: [status]), at: 2)
        guard var bytes = try? TLVPacket(elements).encoded() else { return }
        if behavior.corruptReplies { bytes[bytes.count - 1] ^= 0xFF }
        notifyInPieces(behavior.noiseBeforeReplies + bytes, context: context, characteristic: TLVTerminalAdapter.notifyCharacteristic)
    }
}
