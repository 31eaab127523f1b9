import VigilBLE
import VigilCore

/// A simulated terminal of the `0xAA55`-frame family: advertises its service and an `AA55-`
/// name, reassembles request frames from writes, answers with response frames.
public typealias FramedTerminalPeripheral = SimulatedTerminalPeripheral<FramedTerminalWire>

extension SimulatedTerminalPeripheral where Wire == FramedTerminalWire {
    /// A terminal of the `0xAA55` family.
    public convenience init(identifier: PeerIdentifier = "terminal-aa55", serialNumber: String = "A55100042") {
        self.init(identifier: identifier, serialNumber: serialNumber, rssi: -62)
    }
}

/// The `0xAA55`-frame family's wire format, terminal side: request frames in (reassembled,
/// CRC-16 checked), response frames out (the request's command with the high bit set, a
/// status byte, then the answer; multi-byte fields big-endian).
public struct FramedTerminalWire: SimulatedTerminalWire {
    /// The request's command byte.
    public typealias ReplyAddress = UInt8

    public static var service: BLEUUID { FramedTerminalAdapter.service }
    public static var writeCharacteristic: BLEUUID { FramedTerminalAdapter.writeCharacteristic }
    public static var notifyCharacteristic: BLEUUID { FramedTerminalAdapter.notifyCharacteristic }
    public static var advertisedServices: [BLEUUID] { [FramedTerminalAdapter.service] }
    public static func advertisedName(serialNumber: String) -> String { "AA55-\(serialNumber)" }

    private var reassembler = FrameReassembler(format: FramedTerminalAdapter.format)

    public init() {}

    public var malformedRequestBytes: Int { reassembler.statistics.discardedBytes }

    public mutating func reset() { reassembler.reset() }

    public mutating func requests(in bytes: [UInt8]) -> [(operation: SimulatedTerminalBehavior.Operation, address: UInt8)] {
        var requests: [(operation: SimulatedTerminalBehavior.Operation, address: UInt8)] = []
        for case .frame(let frame) in reassembler.append(bytes) {
            if let operation = Self.operation(frame) { requests.append((operation, frame.command)) }
        }
        return requests
    }

    /// The operation a request frame asks for; nil when it is not one (unknown command, bad length).
    static func operation(_ frame: Frame) -> SimulatedTerminalBehavior.Operation? {
        guard let command = TerminalCommand(code: frame.command, in: FramedTerminalAdapter.code(of:)) else { return nil }
        let payload = frame.payload
        switch command {
        case .open: return .open
        case .deviceInfo: return .deviceInfo
        case .serialNumber: return .serialNumber
        case .traceNumber: return .traceNumber
        case .updateWorkKeys:
            guard payload.count == 48 else { return nil }
            return .workKeys(WorkKeys(pinKey: Array(payload[0..<16]), macKey: Array(payload[16..<32]), dataKey: Array(payload[32..<48])))
        case .updateICParameters: return .icParameters(payload)
        case .startCardTransaction:
            guard payload.count == 12 else { return nil }
            let amount = payload[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let currency = UInt16(payload[8]) << 8 | UInt16(payload[9])
            return .startTransaction(CardTransactionRequest(amountMinor: amount, currencyCode: currency,
                                                            kind: CardTransactionRequest.Kind(rawValue: payload[10]) ?? .sale,
                                                            timeoutSeconds: payload[11]))
        case .secondAuthorization:
            guard payload.count >= 2 else { return nil }
            let length = Int(payload[0]) << 8 | Int(payload[1])
            guard payload.count == 2 + length else { return nil }
            return .secondAuthorization(Array(payload[2...]))
        case .cancel: return .cancel
        }
    }

    public func encode(_ reply: SimulatedTerminalBehavior.Reply, to command: UInt8) -> [UInt8]? {
        try? Frame(command: command | 0x80, payload: Self.replyPayload(reply)).encoded(in: FramedTerminalAdapter.format)
    }

    /// A response frame's payload: the status byte, then the answer's fields.
    static func replyPayload(_ reply: SimulatedTerminalBehavior.Reply) -> [UInt8] {
        var payload: [UInt8] = [0]
        func string(_ text: String) {
            let bytes = Array(text.utf8.prefix(255))
            payload.append(UInt8(bytes.count))
            payload += bytes
        }
        switch reply {
        case .ok: break
        case .status(let status): payload[0] = status
        case .info(let info):
            string(info.model)
            string(info.firmware)
        case .serial(let serial): string(serial)
        case .traceNumber(let number): payload.appendBigEndianValue(number)
        case .checkValues(let values): payload += values.pin + values.mac + values.data
        case .card(let card):
            payload.append(card.entryMode.rawValue)
            string(card.maskedPAN)
            payload.appendBigEndianValue(UInt16(card.icData.count))
            payload += card.icData
        case .secondAuthorization(let result):
            payload.append(result.approved ? 1 : 0)
            payload.appendBigEndianValue(UInt16(result.scriptResults.count))
            payload += result.scriptResults
        }
        return payload
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndianValue<T: FixedWidthInteger>(_ value: T) {
        for index in (0..<(T.bitWidth / 8)).reversed() { append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    mutating func appendLittleEndianValue<T: FixedWidthInteger>(_ value: T) {
        for index in 0..<(T.bitWidth / 8) { append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}
