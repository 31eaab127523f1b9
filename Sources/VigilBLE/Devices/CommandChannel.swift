import VigilCore

/// Request/response exchanges with a terminal over a write characteristic and a notifying
/// one: requests are split into writes of at most ATT MTU − 3 bytes (Write Requests, through
/// the connection's GATT queue); notification bytes go through the vendor's streaming
/// ``TerminalMessageDecoder``; each decoded message completes the first outstanding exchange
/// it matches.
///
/// Several exchanges may be outstanding (a cancel while a card transaction waits); each has
/// its own timeout and `ble.command` span (vendor, peer, MTU, request and response sizes,
/// result). When the link leaves `ready`, every outstanding exchange fails with
/// ``DeviceError/linkLost(command:)`` and partial input is dropped. Confined to the
/// connection's scheduler.
public final class CommandChannel<Decoder: TerminalMessageDecoder> {
    /// The link.
    public let connection: BLEConnection
    /// Where requests are written.
    public let writeCharacteristic: BLEUUID
    /// Where responses are notified.
    public let notifyCharacteristic: BLEUUID
    /// The vendor's parser.
    public let decoder: Decoder
    /// Vendor name, for spans.
    public let vendor: String
    /// Decoded messages no exchange was waiting for.
    public private(set) var unmatchedMessages = 0

    private struct Exchange {
        let id: Int
        let command: String
        let matches: (Decoder.Message) -> Bool
        let completion: (Result<Decoder.Message, DeviceError>) -> Void
        let timer: ScheduledTask
        let span: ActiveSpan
    }

    private var exchanges: [Exchange] = []
    private var nextId = 0
    private var token: ObserverToken?

    /// A channel on `connection`.
    public init(connection: BLEConnection, writeCharacteristic: BLEUUID, notifyCharacteristic: BLEUUID, decoder: Decoder, vendor: String) {
        self.connection = connection
        self.writeCharacteristic = writeCharacteristic
        self.notifyCharacteristic = notifyCharacteristic
        self.decoder = decoder
        self.vendor = vendor
        token = connection.addObserver(ConnectionObserver(
            stateChanged: { [weak self] state in self?.linkChanged(state) },
            valueReceived: { [weak self] uuid, bytes in self?.received(uuid, bytes) }))
    }

    deinit {
        if let token { connection.removeObserver(token) }
    }

    /// Exchanges outstanding.
    public var outstandingCount: Int { exchanges.count }

    /// Sends `request` and completes with the first message `matches` accepts, or an error
    /// after `timeoutMs`. The `ble.command` span is parented under `trace`.
    public func send(_ command: String, request: [UInt8], timeoutMs: Double, trace: SpanContext?,
                     matches: @escaping (Decoder.Message) -> Bool,
                     completion: @escaping (Result<Decoder.Message, DeviceError>) -> Void) {
        let scheduler = connection.scheduler
        guard connection.state.isReady else {
            let failure = DeviceError.notReady(state: connection.state.name)
            scheduler.execute(label: "command refused") { completion(.failure(failure)) }
            return
        }
        nextId += 1
        let id = nextId
        let maxWrite = max(1, connection.maximumWriteLength(.withoutResponse))
        let span = connection.tracer.startSpan("ble.command", parent: trace ?? connection.traceContext, kind: .client, attributes: [
            "ble.command.name": .string(command),
            "ble.vendor": .string(vendor),
            "ble.peer.id": .string(connection.linkedPeer?.rawValue ?? ""),
            "ble.mtu": .int(Int64(maxWrite + 3)),
            "ble.request.bytes": .int(Int64(request.count)),
            "ble.retries": 0,
        ])
        let timer = scheduler.schedule(afterMilliseconds: timeoutMs, label: "command timeout: \(command)") { [weak self] in
            self?.finish(id, .failure(.timedOut(command: command, afterMs: timeoutMs)))
        }
        exchanges.append(Exchange(id: id, command: command, matches: matches, completion: completion, timer: timer, span: span))
        var offset = 0
        repeat {
            let end = min(offset + maxWrite, request.count)
            connection.write(Array(request[offset..<end]), to: writeCharacteristic) { [weak self] result in
                if case .failure(let error) = result { self?.finish(id, .failure(.writeFailed(command: command, error))) }
            }
            offset = end
        } while offset < request.count
    }

    private func received(_ uuid: BLEUUID, _ bytes: [UInt8]) {
        guard uuid == notifyCharacteristic else { return }
        for message in decoder.feed(bytes) {
            if let exchange = exchanges.first(where: { $0.matches(message) }) {
                finish(exchange.id, .success(message))
            } else {
                unmatchedMessages += 1
            }
        }
    }

    private func linkChanged(_ state: ConnectionState) {
        guard !state.isReady else { return }
        decoder.reset()
        for exchange in exchanges { finish(exchange.id, .failure(.linkLost(command: exchange.command))) }
    }

    private func finish(_ id: Int, _ result: Result<Decoder.Message, DeviceError>) {
        guard let index = exchanges.firstIndex(where: { $0.id == id }) else { return }
        let exchange = exchanges.remove(at: index)
        exchange.timer.cancel()
        exchange.span.end(result)
        exchange.completion(result)
    }
}
