import VigilCore

/// A card terminal as the payment app sees it: `connect` runs the whole chain — link, open,
/// device info, serial number, trace number, the app's own server check, key update if the
/// server asks (authenticated commands from then on, if it says so) — and only then reports
/// `connected`.
///
/// The chain is one trace: a `terminal.connect` root span with a `terminal.<step>` span per
/// step, the connection attempts (`ble.connect`, `ble.scan`, `ble.discover`) under the link
/// step and every command (`ble.command`) under its step. A failed step ends the chain with a
/// typed ``PaymentTerminalError`` and closes the link, so the terminal is never left half
/// set up; a link lost after `connected` returns the status to `disconnected` (the chain must
/// run again). Confined to the connection's scheduler.
public final class PaymentTerminal {
    /// The steps of the chain, in order.
    public enum Step: String, Sendable, Hashable, CaseIterable {
        case link, open, deviceInfo, serialNumber, traceNumber, serverCheck, keyUpdate
    }

    /// Who the connected terminal is.
    public struct Identity: Sendable, Hashable {
        /// Its family (``DeviceAdapter/vendor``).
        public var vendor: String
        /// Its BLE identity.
        public var peer: PeerIdentifier
        /// Its advertised name.
        public var name: String?
        /// Model and firmware.
        public var info: TerminalInfo
        /// Serial number.
        public var serialNumber: String
        /// The transaction trace number read during the chain.
        public var traceNumber: UInt32
    }

    /// Where the terminal is.
    public enum Status: Sendable, Hashable {
        case disconnected
        case connecting(Step)
        case connected(Identity)
        case failed(PaymentTerminalError)
    }

    /// The app's server check: shown the terminal's identity, it answers with a verdict (or
    /// fails). Called on the scheduler; may answer later.
    public typealias ServerCheck = (Identity, @escaping (Result<ServerVerdict, PaymentTerminalError>) -> Void) -> Void

    /// The link.
    public let connection: BLEConnection
    /// The terminal families.
    public let factory: DeviceAdapterFactory
    /// The current status.
    public private(set) var status = Status.disconnected
    /// The adapter of the connected (or connecting) terminal.
    public private(set) var adapter: (any DeviceAdapter)?

    private let serverCheck: ServerCheck
    private var root: ActiveSpan?
    private var stepSpan: ActiveSpan?
    private var completion: ((Result<Identity, PaymentTerminalError>) -> Void)?
    private var token: ObserverToken?
    private var run = 0

    /// A terminal on `connection`, choosing adapters with `factory`.
    public init(connection: BLEConnection, factory: DeviceAdapterFactory = .builtIn, serverCheck: @escaping ServerCheck) {
        self.connection = connection
        self.factory = factory
        self.serverCheck = serverCheck
        token = connection.addObserver(ConnectionObserver(stateChanged: { [weak self] state in self?.linkChanged(state) }))
    }

    deinit {
        if let token { connection.removeObserver(token) }
    }

    /// Whether the whole chain is done and the link is up.
    public var isConnected: Bool {
        if case .connected = status { return true }
        return false
    }

    /// Runs the chain; `completion` gets the identity once `connected`, or the first error.
    public func connect(trace: SpanContext? = nil, completion: @escaping (Result<Identity, PaymentTerminalError>) -> Void) {
        switch status {
        case .connecting, .connected:
            connection.scheduler.execute(label: "terminal busy") { completion(.failure(.busy)) }
            return
        case .disconnected, .failed:
            break
        }
        run += 1
        self.completion = completion
        adapter = nil
        root = connection.tracer.startSpan("terminal.connect", parent: trace, kind: .client)
        beginStep(.link)
        switch connection.state {
        case .ready:
            linkReady()
        case .idle:
            do {
                try connection.connect(to: factory.connectionTarget, trace: stepSpan?.context)
            } catch {
                fail(.link(error))
            }
        default:
            break  // an attempt is running; `linkChanged` continues when it ends
        }
    }

    /// Ends the chain (if running) with ``PaymentTerminalError/cancelled`` and closes the link.
    public func disconnect() {
        if case .connecting = status { fail(.cancelled, closeLink: false) }
        adapter = nil
        status = .disconnected
        connection.disconnect()
    }

    // MARK: The chain

    private func linkReady() {
        guard case .connecting(.link) = status else { return }
        guard let advertisement = connection.peerAdvertisement, let registration = factory.registration(for: advertisement) else {
            return fail(.unknownDevice(name: connection.peerAdvertisement?.name))
        }
        stepSpan?["ble.peer.id"] = .string(advertisement.peer.rawValue)
        stepSpan?["terminal.vendor"] = .string(registration.vendor)
        stepSpan?["terminal.match"] = registration.match(advertisement).map { .string($0) }
        root?["terminal.vendor"] = .string(registration.vendor)
        root?["ble.peer.id"] = .string(advertisement.peer.rawValue)
        endStep(ok: true)
        let adapter = registration.make(connection)
        self.adapter = adapter
        let current = run
        perform(.open, { adapter.open(trace: $0, completion: $1) }) { [weak self] _ in
            self?.perform(.deviceInfo, { adapter.deviceInfo(trace: $0, completion: $1) }) { [weak self] info in
                self?.perform(.serialNumber, { adapter.serialNumber(trace: $0, completion: $1) }) { [weak self] serial in
                    self?.perform(.traceNumber, { adapter.transactionTraceNumber(trace: $0, completion: $1) }) { [weak self] traceNumber in
                        guard let self, self.run == current else { return }
                        let identity = Identity(vendor: adapter.vendor, peer: advertisement.peer, name: advertisement.name, info: info,
                                                serialNumber: serial, traceNumber: traceNumber)
                        self.checkWithServer(identity, adapter: adapter)
                    }
                }
            }
        }
    }

    private func checkWithServer(_ identity: Identity, adapter: any DeviceAdapter) {
        beginStep(.serverCheck)
        let current = run
        serverCheck(identity) { [weak self] verdict in
            guard let self, self.run == current, case .connecting(.serverCheck) = self.status else { return }
            switch verdict {
            case .failure(let error):
                self.fail(error)
            case .success(.rejected(let reason)):
                self.fail(.serverRejected(reason: reason))
            case .success(.approved):
                self.endStep(ok: true)
                self.connected(identity)
            case .success(.approvedWithKeyUpdate(let keys, let expected)):
                self.endStep(ok: true)
                self.perform(.keyUpdate, { adapter.updateWorkKeys(keys, trace: $0, completion: $1) }) { [weak self] values in
                    guard let self else { return }
                    if let expected, expected != values { return self.fail(.keyCheckMismatch) }
                    self.connected(identity)
                }
            case .success(.approvedWithAuthenticatedKeyUpdate(let keys, let expected, let macKey)):
                self.endStep(ok: true)
                guard let authenticating = adapter as? any CommandAuthenticating else {
                    self.beginStep(.keyUpdate)
                    return self.fail(.step(.keyUpdate, .authenticationUnsupported(vendor: adapter.vendor)))
                }
                self.perform(.keyUpdate, { authenticating.updateWorkKeys(keys, authenticatingWith: macKey, trace: $0, completion: $1) }) { [weak self] values in
                    guard let self else { return }
                    if let expected, expected != values { return self.fail(.keyCheckMismatch) }
                    self.connected(identity)
                }
            }
        }
    }

    /// Runs one step as a span; on success continues with `next`, on failure ends the chain.
    private func perform<T>(_ step: Step, _ body: (SpanContext?, @escaping (Result<T, DeviceError>) -> Void) -> Void,
                            next: @escaping (T) -> Void) {
        let current = run
        beginStep(step)
        body(stepSpan?.context) { [weak self] result in
            guard let self, self.run == current, case .connecting(step) = self.status else { return }
            switch result {
            case .success(let value):
                self.endStep(ok: true)
                next(value)
            case .failure(let error):
                self.fail(.step(step, error))
            }
        }
    }

    private func connected(_ identity: Identity) {
        status = .connected(identity)
        root?["terminal.serial"] = .string(identity.serialNumber)
        root?["terminal.model"] = .string(identity.info.model)
        root?["ble.result"] = "ok"
        root?.end(status: .ok)
        root = nil
        let completion = self.completion
        self.completion = nil
        completion?(.success(identity))
    }

    private func beginStep(_ step: Step) {
        stepSpan?.end(status: .error, message: "superseded")
        status = .connecting(step)
        stepSpan = connection.tracer.startSpan("terminal.\(step.rawValue)", parent: root?.context)
    }

    private func endStep(ok: Bool, message: String? = nil) {
        if ok { stepSpan?["ble.result"] = "ok" }
        stepSpan?.end(status: ok ? .ok : .error, message: message)
        stepSpan = nil
    }

    private func fail(_ error: PaymentTerminalError, closeLink: Bool = true) {
        run += 1
        stepSpan?["ble.result"] = .string(error.description)
        endStep(ok: false, message: error.description)
        root?["ble.result"] = .string(error.description)
        root?.end(status: .error, message: error.description)
        root = nil
        status = .failed(error)
        adapter = nil
        let completion = self.completion
        self.completion = nil
        if closeLink, error != .linkLost { connection.disconnect() }
        completion?(.failure(error))
    }

    private func linkChanged(_ state: ConnectionState) {
        switch status {
        case .connecting(.link):
            if state.isReady {
                linkReady()
            } else if state == .idle {
                fail(.link(connection.lastError ?? .cancelled), closeLink: false)
            }
        case .connecting:
            if !state.isReady { fail(.linkLost, closeLink: false) }
        case .connected:
            if !state.isReady {
                status = .disconnected
                adapter = nil
            }
        case .disconnected, .failed:
            break
        }
    }
}
