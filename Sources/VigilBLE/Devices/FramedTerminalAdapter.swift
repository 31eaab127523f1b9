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
    private let makeNonce: () -> [UInt8]
    private var session: (key: SessionKey, nextCounter: UInt32)?
    private var token: ObserverToken?

    /// An adapter on a ready connection to such a terminal. `makeNonce` gives the 16-byte nonce of
    /// each authenticated key update (default: the system's cryptographic generator).
    public init(connection: BLEConnection, commandTimeoutMs: Double = 3_000, transactionTimeoutMs: Double = 65_000,
                makeNonce: @escaping () -> [UInt8] = FramedTerminalAdapter.systemNonce) {
        channel = CommandChannel(connection: connection, writeCharacteristic: FramedTerminalAdapter.writeCharacteristic,
                                 notifyCharacteristic: FramedTerminalAdapter.notifyCharacteristic,
                                 decoder: FramedTerminalDecoder(), vendor: "framed-aa55")
        self.commandTimeoutMs = commandTimeoutMs
        self.transactionTimeoutMs = transactionTimeoutMs
        self.makeNonce = makeNonce
        // The session key belongs to one link: the terminal forgets it when the link drops.
        token = connection.addObserver(ConnectionObserver(stateChanged: { [weak self] state in
            if !state.isReady { self?.session = nil }
        }))
    }

    deinit {
        if let token { channel.connection.removeObserver(token) }
    }

    /// 16 bytes from the system's cryptographically secure generator (getrandom on Linux,
    /// arc4random_buf on Apple platforms), as SystemRandomNumberGenerator documents.
    public static func systemNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<SessionKey.nonceLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Whether commands are authenticated (a key update with a MAC key ran on this link).
    public var isAuthenticated: Bool { session != nil }

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

    /// Loads work keys and starts authenticated commands: sends the keys with a fresh phone
    /// nonce, derives the ``SessionKey`` from `macKey` (the MAC work key in clear, from the app's
    /// server) and the terminal's nonce, and checks the terminal's confirmation tag
    /// (``DeviceError/unauthenticatedResponse(command:_:)`` with
    /// ``CommandAuthenticationError/keyConfirmationFailed`` when it differs). From then on every
    /// command and answer on this link carries a counter and a tag.
    public func updateWorkKeys(_ keys: WorkKeys, authenticatingWith macKey: [UInt8], trace: SpanContext?,
                               completion: @escaping (Result<KeyCheckValues, DeviceError>) -> Void) {
        let phoneNonce = makeNonce()
        let name = TerminalCommand.updateWorkKeys.name
        exchange(.updateWorkKeys, keys.pinKey + keys.macKey + keys.dataKey + phoneNonce, trace: trace, parse: { [weak self] reader in
            let values = KeyCheckValues(pin: try reader.bytes("pinCheck", count: 4), mac: try reader.bytes("macCheck", count: 4),
                                        data: try reader.bytes("dataCheck", count: 4))
            let terminalNonce = try reader.bytes("terminalNonce", count: SessionKey.nonceLength)
            let confirmation = try reader.bytes("confirmation", count: SessionKey.confirmationLength)
            let key = SessionKey(macKey: macKey, phoneNonce: phoneNonce, terminalNonce: terminalNonce)
            guard HMACSHA256.constantTimeEqual(confirmation, key.confirmation(phoneNonce: phoneNonce, terminalNonce: terminalNonce, checkValues: values)) else {
                self?.session = nil
                return .failure(.unauthenticatedResponse(command: name, .keyConfirmationFailed))
            }
            self?.session = (key, 1)
            return .success(values)
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
        let scheduler = channel.connection.scheduler
        let code = Self.code(of: command)
        var frame = Frame(command: code, payload: payload)
        var sealed: (key: SessionKey, counter: UInt32)?
        if let session {
            guard session.nextCounter < UInt32.max else {
                scheduler.execute(label: "command refused") { completion(.failure(.authenticationRejected(command: command.name, .counterExhausted))) }
                return
            }
            frame = AuthenticatedFrame(command: code, counter: session.nextCounter, body: payload, key: session.key).frame
            sealed = (session.key, session.nextCounter)
            self.session?.nextCounter += 1
        }
        let request: [UInt8]
        do {
            request = try frame.encoded(in: FramedTerminalAdapter.format)
        } catch {
            let failure = DeviceError.writeFailed(command: command.name, .valueTooLong(length: frame.payload.count, limit: FramedTerminalAdapter.format.maxPayloadLength))
            scheduler.execute(label: "command refused") { completion(.failure(failure)) }
            return
        }
        // An authenticated answer names its request's counter: only that one completes the
        // exchange, so a replayed answer (whose request is long finished) completes nothing.
        channel.send(command.name, request: request, timeoutMs: timeoutMs ?? commandTimeoutMs, trace: trace,
                     matches: { frame in
                         guard frame.command == code | 0x80 else { return false }
                         guard let sealed else { return true }
                         return (try? AuthenticatedFrame(decoding: frame))?.counter == sealed.counter
                     }) { result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let frame):
                var body = frame.payload
                if let sealed {
                    guard let answer = try? AuthenticatedFrame(decoding: frame), answer.isAuthentic(under: sealed.key) else {
                        return completion(.failure(.unauthenticatedResponse(command: command.name, .badTag)))
                    }
                    body = answer.body
                }
                guard let status = body.first else {
                    return completion(.failure(.malformedResponse(command: command.name, reason: "no status byte")))
                }
                if let failure = DeviceError(status: status, command: command) { return completion(.failure(failure)) }
                var reader = ByteReader(body.dropFirst())
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
