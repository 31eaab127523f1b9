/// The `0xAA55` frame family's notification parser: a ``FrameReassembler`` with CRC-16.
public final class FramedTerminalDecoder: TerminalMessageDecoder {
    private var reassembler: FrameReassembler

    /// A decoder for `format`.
    public init(format: FrameFormat = FramedTerminalAdapter.format) {
        reassembler = FrameReassembler(format: format)
    }

    public func feed(_ bytes: [UInt8]) -> [Frame] {
        reassembler.append(bytes).compactMap { output in
            if case .frame(let frame) = output { return frame }
            return nil
        }
    }

    public func reset() { reassembler.reset() }

    public var malformedCount: Int { reassembler.statistics.discardedBytes }
}

/// A ``DeviceAdapter`` for terminals speaking `0xAA55 | command | length | payload | CRC-16`
/// frames (payload layouts in docs/ble-protocol.md; multi-byte fields big-endian).
public final class FramedTerminalAdapter: DeviceAdapter {
    /// The family's service.
    public static let service: BLEUUID = "AA550000-6B1E-4C3A-8F2D-3C1A7E9B0D11"
    /// Requests are written here.
    public static let writeCharacteristic: BLEUUID = "AA550001-6B1E-4C3A-8F2D-3C1A7E9B0D11"
    /// Responses are notified here.
    public static let notifyCharacteristic: BLEUUID = "AA550002-6B1E-4C3A-8F2D-3C1A7E9B0D11"
    /// Frames with CRC-16/CCITT and payloads of at most 1 KiB.
    public static let format = FrameFormat(checksum: .crc16CCITT, maxPayloadLength: 1024)
    /// The GATT profile a connection needs.
    public static let profile = GATTProfile(service: service, characteristics: [writeCharacteristic], notifying: [notifyCharacteristic])
    /// The factory entry: matched by its advertised service or a name starting `AA55-`.
    public static let registration = DeviceAdapterFactory.Registration(
        vendor: "framed-aa55", namePrefixes: ["AA55-"], services: [service], profile: profile) { FramedTerminalAdapter(connection: $0) }

    /// The family's command byte for `command`; a response carries the byte with its high bit
    /// set and a payload that starts with a status byte (0 = OK, 6 = cancelled).
    public static func code(of command: TerminalCommand) -> UInt8 {
        switch command {
        case .open: return 0x01
        case .deviceInfo: return 0x02
        case .serialNumber: return 0x03
        case .traceNumber: return 0x04
        case .updateWorkKeys: return 0x10
        case .updateICParameters: return 0x11
        case .startCardTransaction: return 0x20
        case .secondAuthorization: return 0x21
        case .cancel: return 0x2F
        }
    }

    public let vendor = "framed-aa55"
    private let channel: CommandChannel<FramedTerminalDecoder>
    private let commandTimeoutMs: Double
    private let transactionTimeoutMs: Double

    /// An adapter on a ready connection to such a terminal.
    public init(connection: BLEConnection, commandTimeoutMs: Double = 3_000, transactionTimeoutMs: Double = 65_000) {
        channel = CommandChannel(connection: connection, writeCharacteristic: FramedTerminalAdapter.writeCharacteristic,
                                 notifyCharacteristic: FramedTerminalAdapter.notifyCharacteristic,
                                 decoder: FramedTerminalDecoder(), vendor: "framed-aa55")
        self.commandTimeoutMs = commandTimeoutMs
        self.transactionTimeoutMs = transactionTimeoutMs
    }

    public var malformedMessages: Int { channel.decoder.malformedCount }

    public func open(trace: SpanContext?, completion: @escaping (Result<Void, DeviceError>) -> Void) {
        exchange(.open, [], trace: trace, parse: { _ in .success(()) }, completion: completion)
    }

    public func deviceInfo(trace: SpanContext?, completion: @escaping (Result<TerminalInfo, DeviceError>) -> Void) {
        exchange(.deviceInfo, [], trace: trace, parse: { reader in
            let model = try reader.lengthPrefixedString("model")
            let firmware = try reader.lengthPrefixedString("firmware")
            return .success(TerminalInfo(model: model, firmware: firmware))
        }, completion: completion)
    }

    public func serialNumber(trace: SpanContext?, completion: @escaping (Result<String, DeviceError>) -> Void) {
        exchange(.serialNumber, [], trace: trace, parse: { .success(try $0.lengthPrefixedString("serial")) }, completion: completion)
    }

    public func transactionTraceNumber(trace: SpanContext?, completion: @escaping (Result<UInt32, DeviceError>) -> Void) {
        exchange(.traceNumber, [], trace: trace, parse: { .success(try $0.u32be("traceNumber")) }, completion: completion)
    }

    public func updateWorkKeys(_ keys: WorkKeys, trace: SpanContext?, completion: @escaping (Result<KeyCheckValues, DeviceError>) -> Void) {
        exchange(.updateWorkKeys, keys.pinKey + keys.macKey + keys.dataKey, trace: trace, parse: { reader in
            .success(KeyCheckValues(pin: try reader.bytes("pinCheck", count: 4), mac: try reader.bytes("macCheck", count: 4),
                                    data: try reader.bytes("dataCheck", count: 4)))
        }, completion: completion)
    }

    public func updateICParameters(_ parameters: [UInt8], trace: SpanContext?, completion: @escaping (Result<Void, DeviceError>) -> Void) {
        exchange(.updateICParameters, parameters, trace: trace, parse: { _ in .success(()) }, completion: completion)
    }

    public func startCardTransaction(_ request: CardTransactionRequest, trace: SpanContext?,
                                     completion: @escaping (Result<CardTransactionResult, DeviceError>) -> Void) {
        var payload: [UInt8] = []
        payload.appendBigEndian(request.amountMinor)
        payload.appendBigEndian(request.currencyCode)
        payload.append(request.kind.rawValue)
        payload.append(request.timeoutSeconds)
        exchange(.startCardTransaction, payload, timeoutMs: transactionTimeoutMs, trace: trace, parse: { reader in
            let entry = try reader.u8("entryMode")
            guard let mode = CardTransactionResult.EntryMode(rawValue: entry) else {
                return .failure(.malformedResponse(command: TerminalCommand.startCardTransaction.name, reason: "entry mode \(entry)"))
            }
            let pan = try reader.lengthPrefixedString("maskedPAN")
            let length = Int(try reader.u16be("icDataLength"))
            return .success(CardTransactionResult(entryMode: mode, maskedPAN: pan, icData: try reader.bytes("icData", count: length)))
        }, completion: completion)
    }

    public func secondAuthorization(_ issuerResponse: [UInt8], trace: SpanContext?,
                                    completion: @escaping (Result<SecondAuthorizationResult, DeviceError>) -> Void) {
        var payload: [UInt8] = []
        payload.appendBigEndian(UInt16(clamping: issuerResponse.count))
        payload += issuerResponse.prefix(Int(UInt16.max))
        exchange(.secondAuthorization, payload, trace: trace, parse: { reader in
            let approved = try reader.u8("approved") != 0
            let length = Int(try reader.u16be("scriptLength"))
            return .success(SecondAuthorizationResult(approved: approved, scriptResults: try reader.bytes("scriptResults", count: length)))
        }, completion: completion)
    }

    public func cancel(trace: SpanContext?, completion: @escaping (Result<Void, DeviceError>) -> Void) {
        exchange(.cancel, [], trace: trace, parse: { _ in .success(()) }, completion: completion)
    }

    private func exchange<T>(_ command: TerminalCommand, _ payload: [UInt8], timeoutMs: Double? = nil, trace: SpanContext?,
                             parse: @escaping (inout ByteReader) throws -> Result<T, DeviceError>,
                             completion: @escaping (Result<T, DeviceError>) -> Void) {
        let request: [UInt8]
        do {
            request = try Frame(command: Self.code(of: command), payload: payload).encoded(in: FramedTerminalAdapter.format)
        } catch {
            let failure = DeviceError.writeFailed(command: command.name, .valueTooLong(length: payload.count, limit: FramedTerminalAdapter.format.maxPayloadLength))
            channel.connection.scheduler.execute(label: "command refused") { completion(.failure(failure)) }
            return
        }
        channel.send(command.name, request: request, timeoutMs: timeoutMs ?? commandTimeoutMs, trace: trace,
                     matches: { $0.command == Self.code(of: command) | 0x80 }) { result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let frame):
                guard let status = frame.payload.first else {
                    return completion(.failure(.malformedResponse(command: command.name, reason: "no status byte")))
                }
                if let failure = DeviceError(status: status, command: command) { return completion(.failure(failure)) }
                var reader = ByteReader(frame.payload.dropFirst())
                do {
                    completion(try parse(&reader))
                } catch {
                    completion(.failure(.malformedResponse(command: command.name, reason: String(describing: error))))
                }
            }
        }
    }
}

extension ByteReader {
    /// A `length u8 | UTF-8` string.
    mutating func lengthPrefixedString(_ field: StaticString) throws(TruncatedInput) -> String {
        let length = Int(try u8(field))
        return String(decoding: try bytes(field, count: length), as: UTF8.self)
    }
}
