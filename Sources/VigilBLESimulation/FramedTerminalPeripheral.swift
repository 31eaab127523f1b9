import VigilBLE
import VigilCore

/// A simulated terminal of the `0xAA55`-frame family: advertises its service and an
/// `AA55-` name, reassembles request frames from writes, answers with response frames split
/// into notifications.
public final class FramedTerminalPeripheral: SimulatedPeripheral {
    public let identifier: PeerIdentifier
    public var advertisedName: String? { "AA55-\(behavior.serialNumber)" }
    public var advertisedServices: [BLEUUID] { [FramedTerminalAdapter.service] }
    public var rssi = -62
    public var gatt: [BLEUUID: [BLEUUID]] {
        [FramedTerminalAdapter.service: [FramedTerminalAdapter.writeCharacteristic, FramedTerminalAdapter.notifyCharacteristic]]
    }

    /// What the terminal does.
    public let behavior: SimulatedTerminalBehavior
    /// Request bytes the terminal could not parse.
    public var malformedRequestBytes: Int { reassembler.statistics.discardedBytes }

    private var reassembler = FrameReassembler(format: FramedTerminalAdapter.format)
    private var context: PeripheralContext?

    /// A terminal.
    public init(identifier: PeerIdentifier = "terminal-aa55", serialNumber: String = "A55100042") {
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
        guard characteristic == FramedTerminalAdapter.writeCharacteristic, let context else { return }
        for case .frame(let frame) in reassembler.append(value) {
            guard let operation = Self.operation(frame) else { continue }
            let command = frame.command
            behavior.handle(operation, scheduler: context.scheduler) { [weak self] reply in
                self?.send(reply, to: command)
            }
        }
    }

    private static func operation(_ frame: Frame) -> SimulatedTerminalBehavior.Operation? {
        guard let command = FramedTerminalCommand(rawValue: frame.command) else { return nil }
        let payload = frame.payload
        switch command {
        case .open: return .open
        case .deviceInfo: return .deviceInfo
        case .serialNumber: return .serialNumber
        case .traceNumber: return .traceNumber
        case .workKeys:
            guard payload.count == 48 else { return nil }
            return .workKeys(WorkKeys(pinKey: Array(payload[0..<16]), macKey: Array(payload[16..<32]), dataKey: Array(payload[32..<48])))
        case .icParameters: return .icParameters(payload)
        case .startTransaction:
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

    private func send(_ reply: SimulatedTerminalBehavior.Reply, to command: UInt8) {
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
        guard var bytes = try? Frame(command: command | 0x80, payload: payload).encoded(in: FramedTerminalAdapter.format) else { return }
        if behavior.corruptReplies { bytes[bytes.count - 1] ^= 0xFF }
        notifyInPieces(behavior.noiseBeforeReplies + bytes, context: context, characteristic: FramedTerminalAdapter.notifyCharacteristic)
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
