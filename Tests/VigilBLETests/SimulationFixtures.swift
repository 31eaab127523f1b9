import VigilBLE
import VigilBLESimulation
import VigilCore

/// A transport that forwards to another and counts what the link asked of it, so tests can
/// assert how many connection attempts reached the stack.
final class CountingTransport: BLETransport {
    let inner: SimulatedTransport
    private(set) var connectCalls = 0
    private(set) var scanStarts = 0
    private(set) var cancelCalls = 0

    init(_ inner: SimulatedTransport) { self.inner = inner }

    var eventHandler: ((TransportEvent) -> Void)? {
        get { inner.eventHandler }
        set { inner.eventHandler = newValue }
    }
    var isPoweredOn: Bool { inner.isPoweredOn }
    func startScan(services: [BLEUUID]) { scanStarts += 1; inner.startScan(services: services) }
    func stopScan() { inner.stopScan() }
    func connect(_ peer: PeerIdentifier) { connectCalls += 1; inner.connect(peer) }
    func cancelConnection(_ peer: PeerIdentifier) { cancelCalls += 1; inner.cancelConnection(peer) }
    func discover(service: BLEUUID, characteristics: [BLEUUID], on peer: PeerIdentifier) {
        inner.discover(service: service, characteristics: characteristics, on: peer)
    }
    func setNotifications(_ enabled: Bool, characteristic: BLEUUID, on peer: PeerIdentifier) {
        inner.setNotifications(enabled, characteristic: characteristic, on: peer)
    }
    func write(_ bytes: [UInt8], characteristic: BLEUUID, type: WriteType, on peer: PeerIdentifier) {
        inner.write(bytes, characteristic: characteristic, type: type, on: peer)
    }
    func canSendWriteWithoutResponse(_ peer: PeerIdentifier) -> Bool { inner.canSendWriteWithoutResponse(peer) }
    func maximumWriteLength(_ type: WriteType, for peer: PeerIdentifier) -> Int { inner.maximumWriteLength(type, for: peer) }
    func readRSSI(_ peer: PeerIdentifier) { inner.readRSSI(peer) }
}

/// A simulated peer whose every reaction is a closure, for bad-input tests: a silent peer, a
/// peer that acknowledges chunks it never got, a peer that never confirms subscriptions.
final class ScriptedPeripheral: SimulatedPeripheral {
    let identifier: PeerIdentifier = "scripted"
    let advertisedName: String? = "Scripted"
    var advertisedServices: [BLEUUID] { [TransferService.service] }
    var rssi = -50
    var gatt: [BLEUUID: [BLEUUID]] { [TransferService.service: [TransferService.characteristic]] }
    var subscription: SubscriptionAnswer = .confirm
    var onWrite: (ScriptedPeripheral, [UInt8]) -> Void = { _, _ in }
    private(set) var context: PeripheralContext?
    private(set) var writes: [[UInt8]] = []
    private(set) var subscribedAt: MonotonicInstant?

    func didConnect(_ context: PeripheralContext) { self.context = context }
    func didDisconnect() { context = nil }
    func subscriptionChanged(_ characteristic: BLEUUID, enabled: Bool) -> SubscriptionAnswer {
        if subscription == .confirm { subscribedAt = context?.scheduler.now }
        return subscription
    }
    func didReceiveWrite(_ value: [UInt8], characteristic: BLEUUID, withResponse: Bool) {
        writes.append(value)
        onWrite(self, value)
    }
    func notify(_ packet: TransferPacket) { context?.notify(packet.encoded(), characteristic: TransferService.characteristic) }
}

/// One simulated world: scheduler, radio, span recorder, connection.
struct SimulatedWorld {
    let scheduler = VirtualTimeScheduler()
    let transport: SimulatedTransport
    let counting: CountingTransport
    let recorder = RecordingSpanRecorder()
    let connection: BLEConnection

    init(parameters: SimulationParameters = SimulationParameters(), faults: LinkFaults = .none,
         configuration: ConnectionConfiguration = ConnectionConfiguration(reconnect: ReconnectPolicy(maxAttempts: 4, initialDelayMs: 100), seed: 1),
         peripherals: [SimulatedPeripheral]) {
        transport = SimulatedTransport(scheduler: scheduler, parameters: parameters, faults: faults, seed: 11)
        for peripheral in peripherals { transport.add(peripheral) }
        counting = CountingTransport(transport)
        connection = BLEConnection(transport: counting, scheduler: scheduler, configuration: configuration,
                                   tracer: LinkTracer(recorder: recorder, clock: scheduler.clock, seed: 5))
    }

    /// Connects to the transfer service and runs until ready (or the effort ends).
    func connectToTransferPeer() throws {
        try connection.connect(to: .service(TransferService.profile))
        scheduler.run(until: { connection.state.isReady || connection.state == .idle }, timeLimitMs: 60_000)
    }

    /// Closes everything and fails if any timer is left behind.
    func tearDown() throws {
        connection.disconnect()
        scheduler.runUntilIdle(timeLimitMs: 60_000)
        try scheduler.checkNoWorkLeft()
    }
}
