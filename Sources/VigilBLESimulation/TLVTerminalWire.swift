import VigilBLE
import VigilCore

/// A simulated terminal of the TLV + CRC-16 family: advertises only a `TLV-POS` name (the
/// factory must recognise it by name), parses TLV request packets, answers with TLV packets
/// echoing command and sequence.
public typealias TLVTerminalPeripheral = SimulatedTerminalPeripheral<TLVTerminalWire>

extension SimulatedTerminalPeripheral where Wire == TLVTerminalWire {
    /// A terminal of the TLV family.
    public convenience init(identifier: PeerIdentifier = "terminal-tlv", serialNumber: String = "T7700913") {
        self.init(identifier: identifier, serialNumber: serialNumber, rssi: -70)
    }
}

/// The TLV family's wire format, terminal side: TLV request packets in (reassembled, CRC-16
/// checked), TLV packets out echoing the request's command and sequence tags, then a status
/// tag and the answer (multi-byte values little-endian).
public struct TLVTerminalWire: SimulatedTerminalWire {
    /// The request's command byte and sequence number.
    public typealias ReplyAddress = (command: UInt8, sequence: UInt8)

    public static var service: BLEUUID { TLVTerminalAdapter.service }
    public static var writeCharacteristic: BLEUUID { TLVTerminalAdapter.writeCharacteristic }
    public static var notifyCharacteristic: BLEUUID { TLVTerminalAdapter.notifyCharacteristic }
    public static var advertisedServices: [BLEUUID] { [] }
    public static func advertisedName(serialNumber: String) -> String { "TLV-POS \(serialNumber)" }

    private var reassembler = TLVPacketReassembler()

    public init() {}

    public var malformedRequestBytes: Int { reassembler.discardedBytes }

    public mutating func reset() { reassembler.reset() }

    public mutating func requests(in bytes: [UInt8]) -> [(operation: SimulatedTerminalBehavior.Operation, address: ReplyAddress)] {
        var requests: [(operation: SimulatedTerminalBehavior.Operation, address: ReplyAddress)] = []
        for case .packet(let packet) in reassembler.append(bytes) {
            guard let command = packet.value(TLVTerminalTag.command), command.count == 1,
                  let sequence = packet.value(TLVTerminalTag.sequence), sequence.count == 1,
                  let operation = Self.operation(command[0], packet) else { continue }
            requests.append((operation, (command[0], sequence[0])))
        }
        return requests
    }

    private static func operation(_ code: UInt8, _ packet: TLVPacket) -> SimulatedTerminalBehavior.Operation? {
        guard let command = TerminalCommand(code: code, in: TLVTerminalAdapter.code(of:)) else { return nil }
        func littleEndian(_ bytes: [UInt8]?) -> UInt64? { bytes.map { $0.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } } }
        switch command {
        case .open: return .open
        case .deviceInfo: return .deviceInfo
        case .serialNumber: return .serialNumber
        case .traceNumber: return .traceNumber
        case .updateWorkKeys:
            guard let pin = packet.value(TLVTerminalTag.pinKey), let mac = packet.value(TLVTerminalTag.macKey),
                  let data = packet.value(TLVTerminalTag.dataKey) else { return nil }
            return .workKeys(WorkKeys(pinKey: pin, macKey: mac, dataKey: data))
        case .updateICParameters: return .icParameters(packet.value(TLVTerminalTag.icParameters) ?? [])
        case .startCardTransaction:
            guard let amount = littleEndian(packet.value(TLVTerminalTag.amount)),
                  let currency = littleEndian(packet.value(TLVTerminalTag.currency)) else { return nil }
            let kind = packet.value(TLVTerminalTag.kind)?.first.flatMap(CardTransactionRequest.Kind.init(rawValue:)) ?? .sale
            return .startTransaction(CardTransactionRequest(amountMinor: amount, currencyCode: UInt16(truncatingIfNeeded: currency),
                                                            kind: kind, timeoutSeconds: packet.value(TLVTerminalTag.timeout)?.first ?? 60))
        case .secondAuthorization: return .secondAuthorization(packet.value(TLVTerminalTag.issuerResponse) ?? [])
        case .cancel: return .cancel
        }
    }

    public func encode(_ reply: SimulatedTerminalBehavior.Reply, to address: ReplyAddress) -> [UInt8]? {
        var elements = [TLVElement(tag: TLVTerminalTag.command, value: [address.command]),
                        TLVElement(tag: TLVTerminalTag.sequence, value: [address.sequence])]
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
        return try? TLVPacket(elements).encoded()
    }
}
