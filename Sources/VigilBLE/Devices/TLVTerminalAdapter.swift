/// Tags of the TLV terminal family.
public enum TLVTerminalTag {
    /// Envelope: the command (u8), the status of a response (u8), the request's sequence number (u8).
    public static let command: UInt8 = 0x01, status: UInt8 = 0x02, sequence: UInt8 = 0x03
    /// Identity: model and firmware (UTF-8), serial number (UTF-8), trace number (u32).
    public static let model: UInt8 = 0x10, firmware: UInt8 = 0x11, serial: UInt8 = 0x12, traceNumber: UInt8 = 0x13
    /// Transaction request: amount (u64), currency (u16), kind (u8), card timeout in seconds (u8).
    public static let amount: UInt8 = 0x20, currency: UInt8 = 0x21, kind: UInt8 = 0x22, timeout: UInt8 = 0x23
    /// Keys: PIN, MAC and data keys (16 bytes each) and the 12 bytes of check values.
    public static let pinKey: UInt8 = 0x30, macKey: UInt8 = 0x31, dataKey: UInt8 = 0x32, checkValues: UInt8 = 0x33
    /// EMV IC parameters as the server sent them.
    public static let icParameters: UInt8 = 0x40
    /// Card read: entry mode (u8), masked PAN (UTF-8), IC data (BER-TLV).
    public static let entryMode: UInt8 = 0x50, maskedPAN: UInt8 = 0x51, icData: UInt8 = 0x52
    /// Second authorization: the issuer's response, the card's approval (u8), script results.
    public static let issuerResponse: UInt8 = 0x60, approved: UInt8 = 0x61, scriptResults: UInt8 = 0x62
}

/// The TLV family's notification parser.
public final class TLVTerminalDecoder: TerminalMessageDecoder {
    private var reassembler = TLVPacketReassembler()

    /// A decoder.
    public init() {}

    public func feed(_ bytes: [UInt8]) -> [TLVPacket] {
        reassembler.append(bytes).compactMap { output in
            if case .packet(let packet) = output { return packet }
            return nil
        }
    }

    public func reset() { reassembler.reset() }

    public var malformedCount: Int { reassembler.discardedBytes }
}

/// A ``DeviceAdapter`` for terminals speaking TLV packets with CRC-16/MODBUS (layouts in
/// docs/ble-protocol.md; multi-byte values little-endian). Requests carry a sequence number
/// the response echoes, so responses are matched by command and sequence.
public final class TLVTerminalAdapter: DeviceAdapter {
    /// The family's service (not advertised: the family is recognised by name).
    public static let service: BLEUUID = "7E1F0000-93B2-4D6A-A1C5-5E2B8C4F6A20"
    /// Requests are written here.
    public static let writeCharacteristic: BLEUUID = "7E1F0001-93B2-4D6A-A1C5-5E2B8C4F6A20"
    /// Responses are notified here.
    public static let notifyCharacteristic: BLEUUID = "7E1F0002-93B2-4D6A-A1C5-5E2B8C4F6A20"
    /// The GATT profile a connection needs.
    public static let profile = GATTProfile(service: service, characteristics: [writeCharacteristic], notifying: [notifyCharacteristic])
    /// The factory entry: matched by a name starting `TLV-POS` (or its service, if advertised).
    public static let registration = DeviceAdapterFactory.Registration(
        vendor: "tlv-crc16", namePrefixes: ["TLV-POS"], services: [service], profile: profile) { TLVTerminalAdapter(connection: $0) }

    /// The family's command byte for `command` (the value of tag `0x01`). A response echoes
    /// the command and sequence tags and adds a status tag (0 = OK, 6 = cancelled).
    public static func code(of command: TerminalCommand) -> UInt8 {
        switch command {
        case .open: return 0xA0
        case .deviceInfo: return 0xA1
        case .serialNumber: return 0xA2
        case .traceNumber: return 0xA3
        case .updateWorkKeys: return 0xB0
        case .updateICParameters: return 0xB1
        case .startCardTransaction: return 0xC0
        case .secondAuthorization: return 0xC1
        case .cancel: return 0xCF
        }
    }

    public let vendor = "tlv-crc16"
    private let channel: CommandChannel<TLVTerminalDecoder>
    private let commandTimeoutMs: Double
    private let transactionTimeoutMs: Double
    private var sequence: UInt8 = 0

    /// An adapter on a ready connection to such a terminal.
    public init(connection: BLEConnection, commandTimeoutMs: Double = 3_000, transactionTimeoutMs: Double = 65_000) {
        channel = CommandChannel(connection: connection, writeCharacteristic: TLVTerminalAdapter.writeCharacteristic,
                                 notifyCharacteristic: TLVTerminalAdapter.notifyCharacteristic, decoder: TLVTerminalDecoder(),
                                 vendor: "tlv-crc16")
        self.commandTimeoutMs = commandTimeoutMs
        self.transactionTimeoutMs = transactionTimeoutMs
    }

    public var malformedMessages: Int { channel.decoder.malformedCount }

    public func open(trace: SpanContext?, completion: @escaping (Result<Void, DeviceError>) -> Void) {
        exchange(.open, [], trace: trace, parse: { _ in .success(()) }, completion: completion)
    }

    public func deviceInfo(trace: SpanContext?, completion: @escaping (Result<TerminalInfo, DeviceError>) -> Void) {
        exchange(.deviceInfo, [], trace: trace, parse: { packet in
            guard let model = packet.value(TLVTerminalTag.model), let firmware = packet.value(TLVTerminalTag.firmware) else {
                return .failure(.malformedResponse(command: TerminalCommand.deviceInfo.name, reason: "model or firmware missing"))
            }
            return .success(TerminalInfo(model: String(decoding: model, as: UTF8.self), firmware: String(decoding: firmware, as: UTF8.self)))
        }, completion: completion)
    }

    public func serialNumber(trace: SpanContext?, completion: @escaping (Result<String, DeviceError>) -> Void) {
        exchange(.serialNumber, [], trace: trace, parse: { packet in
            guard let serial = packet.value(TLVTerminalTag.serial) else {
                return .failure(.malformedResponse(command: TerminalCommand.serialNumber.name, reason: "serial missing"))
            }
            return .success(String(decoding: serial, as: UTF8.self))
        }, completion: completion)
    }

    public func transactionTraceNumber(trace: SpanContext?, completion: @escaping (Result<UInt32, DeviceError>) -> Void) {
        exchange(.traceNumber, [], trace: trace, parse: { packet in
            guard let value = packet.value(TLVTerminalTag.traceNumber), value.count == 4 else {
                return .failure(.malformedResponse(command: TerminalCommand.traceNumber.name, reason: "trace number missing"))
            }
            return .success(value.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }, completion: completion)
    }

    public func updateWorkKeys(_ keys: WorkKeys, trace: SpanContext?, completion: @escaping (Result<KeyCheckValues, DeviceError>) -> Void) {
        let elements = [TLVElement(tag: TLVTerminalTag.pinKey, value: keys.pinKey), TLVElement(tag: TLVTerminalTag.macKey, value: keys.macKey),
                        TLVElement(tag: TLVTerminalTag.dataKey, value: keys.dataKey)]
        exchange(.updateWorkKeys, elements, trace: trace, parse: { packet in
            guard let values = packet.value(TLVTerminalTag.checkValues), values.count == 12 else {
                return .failure(.malformedResponse(command: TerminalCommand.updateWorkKeys.name, reason: "check values missing"))
            }
            return .success(KeyCheckValues(pin: Array(values[0..<4]), mac: Array(values[4..<8]), data: Array(values[8..<12])))
        }, completion: completion)
    }

    public func updateICParameters(_ parameters: [UInt8], trace: SpanContext?, completion: @escaping (Result<Void, DeviceError>) -> Void) {
        exchange(.updateICParameters, [TLVElement(tag: TLVTerminalTag.icParameters, value: parameters)], trace: trace,
                 parse: { _ in .success(()) }, completion: completion)
    }

    public func startCardTransaction(_ request: CardTransactionRequest, trace: SpanContext?,
                                     completion: @escaping (Result<CardTransactionResult, DeviceError>) -> Void) {
        var amount: [UInt8] = []
        amount.appendLittleEndian(request.amountMinor)
        var currency: [UInt8] = []
        currency.appendLittleEndian(request.currencyCode)
        let elements = [TLVElement(tag: TLVTerminalTag.amount, value: amount), TLVElement(tag: TLVTerminalTag.currency, value: currency),
                        TLVElement(tag: TLVTerminalTag.kind, value: [request.kind.rawValue]),
                        TLVElement(tag: TLVTerminalTag.timeout, value: [request.timeoutSeconds])]
        exchange(.startCardTransaction, elements, timeoutMs: transactionTimeoutMs, trace: trace, parse: { packet in
            guard let entry = packet.value(TLVTerminalTag.entryMode)?.first, let mode = CardTransactionResult.EntryMode(rawValue: entry),
                  let pan = packet.value(TLVTerminalTag.maskedPAN) else {
                return .failure(.malformedResponse(command: TerminalCommand.startCardTransaction.name, reason: "entry mode or PAN missing"))
            }
            return .success(CardTransactionResult(entryMode: mode, maskedPAN: String(decoding: pan, as: UTF8.self),
                                                  icData: packet.value(TLVTerminalTag.icData) ?? []))
        }, completion: completion)
    }

    public func secondAuthorization(_ issuerResponse: [UInt8], trace: SpanContext?,
                                    completion: @escaping (Result<SecondAuthorizationResult, DeviceError>) -> Void) {
        exchange(.secondAuthorization, [TLVElement(tag: TLVTerminalTag.issuerResponse, value: Array(issuerResponse.prefix(Int(UInt16.max))))],
                 trace: trace, parse: { packet in
            guard let approved = packet.value(TLVTerminalTag.approved)?.first else {
                return .failure(.malformedResponse(command: TerminalCommand.secondAuthorization.name, reason: "approval missing"))
            }
            return .success(SecondAuthorizationResult(approved: approved != 0, scriptResults: packet.value(TLVTerminalTag.scriptResults) ?? []))
        }, completion: completion)
    }

    public func cancel(trace: SpanContext?, completion: @escaping (Result<Void, DeviceError>) -> Void) {
        exchange(.cancel, [], trace: trace, parse: { _ in .success(()) }, completion: completion)
    }

    private func exchange<T>(_ command: TerminalCommand, _ elements: [TLVElement], timeoutMs: Double? = nil, trace: SpanContext?,
                             parse: @escaping (TLVPacket) -> Result<T, DeviceError>,
                             completion: @escaping (Result<T, DeviceError>) -> Void) {
        sequence &+= 1
        let sequence = self.sequence
        let code = Self.code(of: command)
        let request: [UInt8]
        do {
            request = try TLVPacket([TLVElement(tag: TLVTerminalTag.command, value: [code]),
                                     TLVElement(tag: TLVTerminalTag.sequence, value: [sequence])] + elements).encoded()
        } catch {
            let failure = DeviceError.malformedResponse(command: command.name, reason: "request not encodable: \(error)")
            channel.connection.scheduler.execute(label: "command refused") { completion(.failure(failure)) }
            return
        }
        channel.send(command.name, request: request, timeoutMs: timeoutMs ?? commandTimeoutMs, trace: trace, matches: { packet in
            packet.value(TLVTerminalTag.command) == [code] && packet.value(TLVTerminalTag.sequence) == [sequence]
        }) { result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let packet):
                guard let status = packet.value(TLVTerminalTag.status)?.first else {
                    return completion(.failure(.malformedResponse(command: command.name, reason: "status missing")))
                }
                if let failure = DeviceError(status: status, command: command) { return completion(.failure(failure)) }
                completion(parse(packet))
            }
        }
    }
}
