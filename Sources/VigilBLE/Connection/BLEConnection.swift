import VigilCore

/// A reconnecting link to one BLE peer: the state machine `idle → scanning → connecting →
/// discovering → ready`, plus `reconnecting`, over any ``BLETransport``.
///
/// - Reconnecting is idempotent: ``reconnect(source:)`` starts an attempt only from `idle`
///   (with a remembered target) or `reconnecting`; while an attempt runs or the link is ready,
///   further triggers are counted and ignored. Waits between attempts back off exponentially,
///   capped, with jitter; ``disconnect()`` cancels everything.
/// - GATT requests go through a queue with one outstanding request and a timeout each; a
///   timed-out request drops the link (an unanswered ATT request blocks the bearer).
/// - `ready` means the service was discovered and every notification the profile needs was
///   enabled and confirmed by the peer: commands are never sent before (no fixed sleeps).
/// - Every attempt is a `ble.connect` span with `ble.scan` and `ble.discover` children.
///
/// Confined to its scheduler: call it there, and observers are called there.
public final class BLEConnection {
    /// The stack.
    public let transport: any BLETransport
    /// Where everything runs.
    public let scheduler: any LinkScheduler
    /// Timeouts and reconnect policy.
    public let configuration: ConnectionConfiguration
    /// Span source.
    public let tracer: LinkTracer

    /// The current state.
    public private(set) var state: ConnectionState = .idle

    private var target: ConnectionTarget?
    private var traceParent: SpanContext?
    private var peer: PeerIdentifier?
    private var profile: GATTProfile?
    private var advertisement: Advertisement?
    private var attemptTimer: ScheduledTask?
    private var attemptSpan: ActiveSpan?
    private var phaseSpan: ActiveSpan?
    private var waitingForPower = false
    private var pendingCancellations: [PeerIdentifier: Int] = [:]
    private var observers: [(id: Int, observer: ConnectionObserver)] = []
    private var nextObserverId = 0
    private var jitter: SeededGenerator
    private let operations: GATTOperationQueue
    private var counters = Counters()

    private struct Counters {
        var packetsIn = 0, packetsOut = 0, bytesIn = 0, bytesOut = 0, retransmissions = 0
        var attempts = 0, ignoredTriggers = 0
        var rssi: Int?
        var lastActivity: MonotonicInstant?
        var lastError: ConnectionError?
        var lastDisconnect: DisconnectReason?
    }

    /// A connection over `transport`, driven by `scheduler`.
    public init(transport: any BLETransport, scheduler: any LinkScheduler,
                configuration: ConnectionConfiguration = ConnectionConfiguration(), tracer: LinkTracer? = nil) {
        self.transport = transport
        self.scheduler = scheduler
        self.configuration = configuration
        self.tracer = tracer ?? LinkTracer.disabled(clock: scheduler.clock)
        var seedSource = SystemRandomNumberGenerator()
        self.jitter = SeededGenerator(seed: configuration.seed ?? seedSource.next())
        self.operations = GATTOperationQueue(scheduler: scheduler, timeoutMs: configuration.operationTimeoutMs)
        operations.issue = { [weak self] operation in self?.issue(operation) }
        operations.timedOut = { [weak self] operation in self?.operationTimedOut(operation) }
        transport.eventHandler = { [weak self] event in self?.handle(event) }
    }

    // MARK: Public API

    /// Starts connecting to `target` (attempt 1 of an effort); spans are parented under `trace`.
    /// Throws ``ConnectionError/busy(state:)`` unless idle.
    public func connect(to target: ConnectionTarget, trace: SpanContext? = nil) throws(ConnectionError) {
        guard case .idle = state else { throw .busy(state: state.name) }
        self.target = target
        self.traceParent = trace
        if let known = target.knownPeer {
            peer = known.peer
            profile = known.profile
        } else {
            peer = nil
            profile = nil
            advertisement = nil
        }
        beginAttempt(1)
    }

    /// Asks for a reconnect on behalf of `source`. Starts an attempt from `idle` (when a target
    /// is remembered) or `reconnecting` (skipping the rest of the backoff); anything else is a
    /// counted no-op, so simultaneous triggers start exactly one attempt.
    @discardableResult
    public func reconnect(source: ReconnectTrigger) -> ReconnectOutcome {
        switch state {
        case .idle:
            guard target != nil else { return .noTarget }
            beginAttempt(1)
            return .started
        case .reconnecting(let attempt, _):
            attemptTimer?.cancel()
            attemptTimer = nil
            beginAttempt(attempt)
            return .started
        case .ready:
            counters.ignoredTriggers += 1
            return .alreadyConnected
        case .scanning, .connecting, .discovering:
            counters.ignoredTriggers += 1
            return .alreadyRunning
        }
    }

    /// The user's disconnect: stops scanning, closes the link, cancels any pending reconnect and
    /// GATT request (they fail with ``ConnectionError/cancelled``), forgets the target, and
    /// goes `idle`.
    public func disconnect() {
        attemptTimer?.cancel()
        attemptTimer = nil
        switch state {
        case .scanning: transport.stopScan()
        case .connecting(let peer, _), .discovering(let peer, _), .ready(let peer): cancelLink(peer)
        case .idle, .reconnecting: break
        }
        let wasAttempting = state.isAttemptRunning
        phaseSpan?.end(status: .error, message: "cancelled")
        if wasAttempting { attemptSpan?["ble.result"] = "cancelled" }
        attemptSpan?.end(status: .error, message: "cancelled")
        phaseSpan = nil
        attemptSpan = nil
        waitingForPower = false
        target = nil
        // State first: completions of the failed requests must see a link that is not ready.
        setState(.idle)
        operations.failAll(.cancelled)
    }

    /// Queues a Write Request; `completion` runs when the peer answered (or with the error).
    public func write(_ bytes: [UInt8], to characteristic: BLEUUID,
                      completion: @escaping (Result<Void, ConnectionError>) -> Void) {
        guard case .ready = state else {
            let failure = ConnectionError.notReady(state: state.name)
            scheduler.execute(label: "write refused") { completion(.failure(failure)) }
            return
        }
        record(outgoing: bytes.count)
        operations.enqueue(.write(characteristic, bytes)) { result in
            completion(result.map { _ in () })
        }
    }

    /// Sends a Write Command now. Refuses (never writes into a full buffer) with
    /// ``ConnectionError/writeBufferFull`` when the stack has no room: wait for the observers'
    /// `readyToWrite`.
    public func writeWithoutResponse(_ bytes: [UInt8], to characteristic: BLEUUID) throws(ConnectionError) {
        guard case .ready(let peer) = state else { throw .notReady(state: state.name) }
        let limit = transport.maximumWriteLength(.withoutResponse, for: peer)
        guard bytes.count <= limit else { throw .valueTooLong(length: bytes.count, limit: limit) }
        guard transport.canSendWriteWithoutResponse(peer) else { throw .writeBufferFull }
        record(outgoing: bytes.count)
        transport.write(bytes, characteristic: characteristic, type: .withoutResponse, on: peer)
    }

    /// Whether a Write Command may be sent now.
    public var canSendWriteWithoutResponse: Bool {
        guard case .ready(let peer) = state else { return false }
        return transport.canSendWriteWithoutResponse(peer)
    }

    /// The longest value one write of `type` carries, 0 while not linked.
    public func maximumWriteLength(_ type: WriteType) -> Int {
        guard let peer = linkedPeer else { return 0 }
        return transport.maximumWriteLength(type, for: peer)
    }

    /// The peer while linked (discovering or ready).
    public var linkedPeer: PeerIdentifier? {
        switch state {
        case .discovering(let peer, _), .ready(let peer): return peer
        default: return nil
        }
    }

    /// The advertisement the current (or last) peer was chosen from.
    public var peerAdvertisement: Advertisement? { advertisement }

    /// The profile in use.
    public var activeProfile: GATTProfile? { profile }

    /// The span of the current (or last) connection attempt, to parent work done on the link.
    public var traceContext: SpanContext? { attemptSpan?.context }

    /// The last failure.
    public var lastError: ConnectionError? { counters.lastError }

    /// Registers `observer`; keep the token to remove it.
    public func addObserver(_ observer: ConnectionObserver) -> ObserverToken {
        nextObserverId += 1
        observers.append((nextObserverId, observer))
        return ObserverToken(id: nextObserverId)
    }

    /// Removes an observer.
    public func removeObserver(_ token: ObserverToken) {
        observers.removeAll { $0.id == token.id }
    }

    /// Adds `count` to the link's retransmission counter (reported by transfers).
    public func recordRetransmissions(_ count: Int) { counters.retransmissions += count }

    /// Asks the stack for a fresh RSSI reading (shown in ``snapshot``).
    public func refreshRSSI() {
        guard case .ready = state else { return }
        operations.enqueue(.readRSSI) { _ in }
    }

    /// The debug-panel view of the link.
    public var snapshot: ConnectionSnapshot {
        let linked = linkedPeer
        return ConnectionSnapshot(
            state: state, peerName: advertisement?.name, peerId: peer, rssi: counters.rssi ?? advertisement?.rssi,
            mtu: linked.map { transport.maximumWriteLength(.withoutResponse, for: $0) + 3 },
            packetsIn: counters.packetsIn, packetsOut: counters.packetsOut, bytesIn: counters.bytesIn,
            bytesOut: counters.bytesOut, retransmissions: counters.retransmissions, lastActivity: counters.lastActivity,
            attempts: counters.attempts, ignoredReconnectTriggers: counters.ignoredTriggers,
            lastError: counters.lastError, lastDisconnectReason: counters.lastDisconnect)
    }

    // MARK: Attempts

    private func beginAttempt(_ attempt: Int) {
        counters.attempts += 1
        attemptSpan?.end(status: .error, message: "superseded")
        let span = tracer.startSpan("ble.connect", parent: traceParent, kind: .client,
                                    attributes: ["ble.attempt": .int(Int64(attempt)), "ble.retries": .int(Int64(attempt - 1))])
        attemptSpan = span
        if let peer, profile != nil {
            span["ble.peer.id"] = .string(peer.rawValue)
            startConnecting(peer, attempt: attempt)
        } else {
            startScanning(attempt: attempt)
        }
    }

    private func startScanning(attempt: Int) {
        phaseSpan = tracer.startSpan("ble.scan", parent: attemptSpan?.context)
        armAttemptTimer(configuration.scanTimeoutMs, label: "scan timeout") { [weak self] in
            guard let self else { return }
            self.transport.stopScan()
            self.attemptFailed(.scanTimedOut(afterMs: self.configuration.scanTimeoutMs))
        }
        setState(.scanning(attempt: attempt))
        if transport.isPoweredOn {
            transport.startScan(services: target?.scanServices ?? [])
        } else {
            waitingForPower = true
        }
    }

    private func startConnecting(_ peer: PeerIdentifier, attempt: Int) {
        armAttemptTimer(configuration.connectTimeoutMs, label: "connect timeout") { [weak self] in
            guard let self else { return }
            // attemptFailed closes the pending request (state is still `connecting`).
            self.attemptFailed(.connectTimedOut(peer, afterMs: self.configuration.connectTimeoutMs))
        }
        setState(.connecting(peer, attempt: attempt))
        if transport.isPoweredOn {
            transport.connect(peer)
        } else {
            waitingForPower = true
        }
    }

    private func startDiscovery(_ peer: PeerIdentifier, attempt: Int) {
        attemptTimer?.cancel()
        attemptTimer = nil
        guard let profile else { return attemptFailed(.discoveryFailed(peer, TransportFailure("no profile"))) }
        phaseSpan = tracer.startSpan("ble.discover", parent: attemptSpan?.context,
                                     attributes: ["ble.peer.id": .string(peer.rawValue), "ble.service": .string(profile.service.string)])
        setState(.discovering(peer, attempt: attempt))
        operations.enqueue(.discover(service: profile.service, characteristics: profile.characteristics)) { [weak self] result in
            guard let self, case .discovering(peer, attempt) = self.state else { return }
            switch result {
            case .failure(let error):
                self.attemptFailed(error)
            case .success(let outcome):
                guard case .discovered(let found) = outcome else { return }
                let missing = profile.characteristics.filter { !found.contains($0) }
                guard missing.isEmpty else { return self.attemptFailed(.missingCharacteristics(peer, missing)) }
                self.phaseSpan?["ble.characteristics"] = .int(Int64(found.count))
                self.enableNotifications(profile.notifying[...], peer: peer, attempt: attempt)
            }
        }
    }

    private func enableNotifications(_ remaining: ArraySlice<BLEUUID>, peer: PeerIdentifier, attempt: Int) {
        guard let characteristic = remaining.first else { return becomeReady(peer) }
        operations.enqueue(.setNotifications(characteristic, true)) { [weak self] result in
            guard let self, case .discovering(peer, attempt) = self.state else { return }
            switch result {
            case .failure(let error): self.attemptFailed(error)
            case .success(.notifications(true)): self.enableNotifications(remaining.dropFirst(), peer: peer, attempt: attempt)
            case .success:
                self.attemptFailed(.notificationsRefused(characteristic, TransportFailure("peer left notifications off")))
            }
        }
    }

    private func becomeReady(_ peer: PeerIdentifier) {
        let mtu = transport.maximumWriteLength(.withoutResponse, for: peer) + 3
        phaseSpan?.end(status: .ok)
        phaseSpan = nil
        if let span = attemptSpan {
            span["ble.peer.id"] = .string(peer.rawValue)
            if let name = advertisement?.name { span["ble.peer.name"] = .string(name) }
            span["ble.mtu"] = .int(Int64(mtu))
            if let rssi = advertisement?.rssi { span["ble.rssi"] = .int(Int64(rssi)) }
            span["ble.result"] = "ok"
            span.end(status: .ok)
        }
        counters.lastError = nil
        setState(.ready(peer))
    }

    /// The current attempt failed: close what is open, then back off or give up.
    private func attemptFailed(_ error: ConnectionError) {
        attemptTimer?.cancel()
        attemptTimer = nil
        waitingForPower = false
        counters.lastError = error
        phaseSpan?.end(status: .error, message: error.description)
        phaseSpan = nil
        let attempt: Int
        switch state {
        case .scanning(let current): attempt = current
        case .connecting(let peer, let current), .discovering(let peer, let current):
            attempt = current
            cancelLink(peer)
        default: attempt = 1
        }
        attemptSpan?["ble.result"] = .string(error.description)
        attemptSpan?.end(status: .error, message: error.description)
        // Leave the attempt's state before failing its requests, so their completions (which
        // check the state) cannot fail the attempt a second time.
        scheduleRetry(after: attempt, error: error)
        operations.failAll(error)
    }

    private func scheduleRetry(after attempt: Int, error: ConnectionError) {
        let next = attempt + 1
        guard target != nil, configuration.reconnect.allows(attempt: next) else {
            counters.lastError = .gaveUp(attempts: attempt, last: error)
            setState(.idle)
            return
        }
        let delay = configuration.reconnect.delay(beforeAttempt: next, using: &jitter)
        let retryAt = MonotonicInstant(nanoseconds: scheduler.now.nanoseconds &+ delay)
        attemptTimer = scheduler.schedule(at: retryAt, label: "reconnect backoff") { [weak self] in
            guard let self, case .reconnecting(let attempt, _) = self.state else { return }
            self.attemptTimer = nil
            self.beginAttempt(attempt)
        }
        setState(.reconnecting(attempt: next, retryAt: retryAt))
    }

    private func linkLost(_ reason: DisconnectReason) {
        counters.lastDisconnect = reason
        let error: ConnectionError = reason == .poweredOff ? .poweredOff : .disconnected(reason)
        counters.lastError = error
        defer { operations.failAll(error) }  // after the state change: see attemptFailed
        guard configuration.reconnectAutomatically, target != nil else {
            setState(.idle)
            return
        }
        let retryAt = MonotonicInstant(nanoseconds: scheduler.now.nanoseconds &+ nanoseconds(milliseconds: configuration.reconnect.initialDelayMs))
        attemptTimer = scheduler.schedule(at: retryAt, label: "reconnect after link loss") { [weak self] in
            guard let self, case .reconnecting(let attempt, _) = self.state else { return }
            self.attemptTimer = nil
            self.beginAttempt(attempt)
        }
        setState(.reconnecting(attempt: 1, retryAt: retryAt))
    }

    private func operationTimedOut(_ operation: GATTOperationQueue.Operation) {
        let error = ConnectionError.operationTimedOut(operation: operation.description, afterMs: configuration.operationTimeoutMs)
        switch state {
        case .discovering:
            attemptFailed(error)
        case .ready(let peer):
            cancelLink(peer)
            linkLost(.other(code: -1, message: error.description))
        default:
            break
        }
    }

    private func armAttemptTimer(_ milliseconds: Double, label: String, _ work: @escaping () -> Void) {
        attemptTimer?.cancel()
        attemptTimer = scheduler.schedule(afterMilliseconds: milliseconds, label: label) { [weak self] in
            self?.attemptTimer = nil
            work()
        }
    }

    /// Closes the link or pending request; the stack answers with exactly one `disconnected`,
    /// which is then recognised as ours and ignored.
    private func cancelLink(_ peer: PeerIdentifier) {
        pendingCancellations[peer, default: 0] += 1
        transport.cancelConnection(peer)
    }

    // MARK: Transport events

    private func handle(_ event: TransportEvent) {
        switch event {
        case .powerChanged(let on):
            if on {
                guard waitingForPower else {
                    if case .reconnecting = state { reconnect(source: .bluetoothPoweredOn) }
                    return
                }
                waitingForPower = false
                switch state {
                case .scanning: transport.startScan(services: target?.scanServices ?? [])
                case .connecting(let peer, _): transport.connect(peer)
                default: break
                }
            } else {
                switch state {
                case .ready:
                    // CoreBluetooth invalidates links on power-off without a disconnect callback.
                    linkLost(.poweredOff)
                case .connecting, .discovering:
                    attemptFailed(.poweredOff)
                default:
                    break
                }
            }
        case .advertisement(let seen):
            guard case .scanning(let attempt) = state, let target else { return }
            guard let chosen = target.select(seen) else { return }
            transport.stopScan()
            advertisement = seen
            peer = seen.peer
            profile = chosen
            phaseSpan?["ble.peer.id"] = .string(seen.peer.rawValue)
            phaseSpan?["ble.rssi"] = .int(Int64(seen.rssi))
            phaseSpan?.end(status: .ok)
            phaseSpan = nil
            attemptSpan?["ble.peer.id"] = .string(seen.peer.rawValue)
            startConnecting(seen.peer, attempt: attempt)
        case .connected(let linked):
            guard case .connecting(let peer, let attempt) = state, peer == linked else { return }
            startDiscovery(peer, attempt: attempt)
        case .connectFailed(let failed, let failure):
            guard case .connecting(let peer, _) = state, peer == failed else { return }
            attemptFailed(.connectFailed(peer, failure))
        case .disconnected(let gone, let reason):
            if let pending = pendingCancellations[gone], pending > 0 {
                pendingCancellations[gone] = pending == 1 ? nil : pending - 1
                return
            }
            switch state {
            case .ready(let peer) where peer == gone:
                linkLost(reason)
            case .connecting(let peer, _) where peer == gone, .discovering(let peer, _) where peer == gone:
                attemptFailed(.disconnected(reason))
            default:
                break
            }
        case .servicesDiscovered(let from, let result):
            guard from == linkedPeer else { return }
            operations.resolve { operation in
                guard case .discover = operation else { return nil }
                return result.map { .discovered($0) }.mapError { .discoveryFailed(from, $0) }
            }
        case .notificationStateChanged(let from, let characteristic, let result):
            guard from == linkedPeer else { return }
            operations.resolve { operation in
                guard case .setNotifications(characteristic, _) = operation else { return nil }
                return result.map { .notifications($0) }.mapError { .notificationsRefused(characteristic, $0) }
            }
        case .wrote(let from, let characteristic, let result):
            guard from == linkedPeer else { return }
            operations.resolve { operation in
                guard case .write(characteristic, _) = operation else { return nil }
                return result.map { .wrote }.mapError { .writeFailed(characteristic, $0) }
            }
        case .valueReceived(let from, let characteristic, let bytes):
            guard case .ready(let peer) = state, peer == from else { return }
            counters.packetsIn += 1
            counters.bytesIn += bytes.count
            counters.lastActivity = scheduler.now
            for entry in observers { entry.observer.valueReceived?(characteristic, bytes) }
        case .readyToSendWriteWithoutResponse(let from):
            guard case .ready(let peer) = state, peer == from else { return }
            for entry in observers { entry.observer.readyToWrite?() }
        case .rssiRead(let from, let rssi):
            guard from == linkedPeer else { return }
            counters.rssi = rssi
            operations.resolve { operation in
                guard case .readRSSI = operation else { return nil }
                return .success(.rssi(rssi))
            }
        case .restored(let peers):
            // The system kept links alive while the app was suspended; reconnecting to a
            // restored peer completes at once on CoreBluetooth.
            guard case .idle = state, let known = target?.knownPeer, peers.contains(known.peer) else { return }
            reconnect(source: .stateRestoration)
        }
    }

    private func issue(_ operation: GATTOperationQueue.Operation) {
        guard let peer = linkedPeer else { return }
        switch operation {
        case .discover(let service, let characteristics):
            transport.discover(service: service, characteristics: characteristics, on: peer)
        case .setNotifications(let characteristic, let enabled):
            transport.setNotifications(enabled, characteristic: characteristic, on: peer)
        case .write(let characteristic, let bytes):
            transport.write(bytes, characteristic: characteristic, type: .withResponse, on: peer)
        case .readRSSI:
            transport.readRSSI(peer)
        }
    }

    private func record(outgoing count: Int) {
        counters.packetsOut += 1
        counters.bytesOut += count
        counters.lastActivity = scheduler.now
    }

    private func setState(_ newState: ConnectionState) {
        guard newState != state else { return }
        state = newState
        for entry in observers { entry.observer.stateChanged?(newState) }
    }
}
