import VigilBLE
import VigilCore

/// A simulated BLE stack — the phone's side of a radio shared with ``SimulatedPeripheral``s —
/// implementing ``BLETransport`` over virtual time.
///
/// The link layer follows the physical model of ``StreamingBound``: connection events every
/// interval, at most N packet exchanges per event, link-layer fragmentation of ATT PDUs at the
/// data length, airtime per packet, and host latencies on both sides (an answer can only leave
/// in an event that starts after the host produced it). Write Commands sit in a bounded buffer
/// that drains as packets go out; `readyToSendWriteWithoutResponse` fires when it has room
/// again after being full. Faults (``LinkFaults``) are seeded. Runs on a
/// ``VirtualTimeScheduler``; a 10 MB transfer simulates in a fraction of a second.
public final class SimulatedTransport: BLETransport {
    /// The simulation's scheduler.
    public let scheduler: VirtualTimeScheduler
    /// Radio, latencies, buffer.
    public let parameters: SimulationParameters
    /// Injected faults (may be changed between links).
    public var faults: LinkFaults
    /// A hostile relay the phone's writes to its characteristic, and the peer's notifications on
    /// its answer characteristic, pass through before the faults apply (nil: none).
    public var manInTheMiddle: ManInTheMiddle?
    /// What happened so far.
    public internal(set) var statistics = SimulationStatistics()
    public var eventHandler: ((TransportEvent) -> Void)?
    public private(set) var isPoweredOn = true

    let bound: StreamingBound
    var random: SeededGenerator
    private var slots: [PeripheralSlot] = []
    private var scan: (services: [BLEUUID], generation: Int)?
    private var scanGeneration = 0
    private var nextDisconnectFault = 0

    final class PeripheralSlot {
        let device: SimulatedPeripheral
        var advertisingFrom = MonotonicInstant(nanoseconds: 0)
        var link: SimulatedLinkLayer?
        var pendingConnect: ScheduledTask?
        var connectRequested = false
        var pendingDisconnectEvent: ScheduledTask?
        var reportedInScan = -1

        init(device: SimulatedPeripheral) { self.device = device }
    }

    /// A radio with no peers yet.
    public init(scheduler: VirtualTimeScheduler, parameters: SimulationParameters = SimulationParameters(),
                faults: LinkFaults = .none, seed: UInt64 = 1) {
        self.scheduler = scheduler
        self.parameters = parameters
        self.faults = faults
        self.bound = StreamingBound(parameters.link)
        self.random = SeededGenerator(seed: seed)
    }

    /// Puts a peer on the air (advertising at once).
    public func add(_ peripheral: SimulatedPeripheral) {
        let slot = PeripheralSlot(device: peripheral)
        slot.advertisingFrom = scheduler.now
        slots.append(slot)
        if scan != nil { reportAdvertisement(slot) }
    }

    /// Switches the radio off (links vanish without disconnect events, as on iOS) or on.
    public func setPoweredOn(_ on: Bool) {
        guard on != isPoweredOn else { return }
        isPoweredOn = on
        if !on {
            scan = nil
            for slot in slots {
                slot.pendingConnect?.cancel()
                slot.pendingConnect = nil
                slot.connectRequested = false
                slot.pendingDisconnectEvent?.cancel()
                slot.pendingDisconnectEvent = nil
                if let link = slot.link {
                    link.tearDown()
                    slot.link = nil
                    slot.advertisingFrom = scheduler.now
                }
            }
        }
        emit(.powerChanged(on), after: 0)
    }

    /// Drops the link to `peer` now, as a disconnect fault would.
    public func dropLink(to peer: PeerIdentifier, reason: DisconnectReason = .remoteTerminated, outageMs: Double = 0) {
        guard let slot = slot(peer), let link = slot.link, link.isUp else { return }
        dropLink(slot, link: link, fault: DisconnectFault(.afterMs(0), reason: reason, outageMs: outageMs))
    }

    /// The link to `peer`, if one is up.
    public func isLinked(_ peer: PeerIdentifier) -> Bool { slot(peer)?.link?.isUp ?? false }

    // MARK: BLETransport

    public func startScan(services: [BLEUUID]) {
        guard isPoweredOn else { return }
        scanGeneration += 1
        scan = (services, scanGeneration)
        for slot in slots { reportAdvertisement(slot) }
    }

    public func stopScan() { scan = nil }

    public func connect(_ peer: PeerIdentifier) {
        guard isPoweredOn, let slot = slot(peer), slot.link == nil, slot.pendingConnect == nil else { return }
        slot.connectRequested = true
        let advertisingDelay = Double.random(in: 0..<parameters.advertisingIntervalMs, using: &random)
        let start = max(scheduler.now, slot.advertisingFrom).advanced(byMilliseconds: advertisingDelay + 1.25)
        slot.pendingConnect = scheduler.schedule(at: start, label: "sim: connection setup") { [weak self, weak slot] in
            guard let self, let slot else { return }
            slot.pendingConnect = nil
            slot.connectRequested = false
            if self.faults.connectFailure > 0, Double.random(in: 0..<1, using: &self.random) < self.faults.connectFailure {
                self.statistics.connectFailuresInjected += 1
                self.emit(.connectFailed(peer, TransportFailure(code: 0x3E, "connection failed to be established")), after: 0)
                return
            }
            self.establish(slot)
        }
    }

    public func cancelConnection(_ peer: PeerIdentifier) {
        guard let slot = slot(peer) else {
            emit(.disconnected(peer, .localHostTerminated), after: 0)
            return
        }
        slot.pendingConnect?.cancel()
        slot.pendingConnect = nil
        slot.connectRequested = false
        slot.pendingDisconnectEvent?.cancel()
        slot.pendingDisconnectEvent = nil
        if let link = slot.link {
            if link.isUp {
                link.tearDown()
                slot.advertisingFrom = scheduler.now
            }
            slot.link = nil
        }
        if scan != nil { reportAdvertisement(slot) }
        // Exactly one disconnect event answers every cancel (the BLETransport contract).
        emit(.disconnected(peer, .localHostTerminated), after: parameters.link.connectionIntervalMs)
    }

    public func discover(service: BLEUUID, characteristics: [BLEUUID], on peer: PeerIdentifier) {
        guard let slot = slot(peer), let link = slot.link else { return }
        let offered = Set(slot.device.gatt[service] ?? [])
        let found = Set(characteristics).intersection(offered)
        link.exchanges(parameters.discoveryExchanges, request: 7, response: 20) { [weak self] in
            self?.emitNow(.servicesDiscovered(peer, .success(found)))
        }
    }

    public func setNotifications(_ enabled: Bool, characteristic: BLEUUID, on peer: PeerIdentifier) {
        guard let slot = slot(peer), let link = slot.link else { return }
        link.subscribe(characteristic, enabled: enabled)
    }

    public func write(_ bytes: [UInt8], characteristic: BLEUUID, type: WriteType, on peer: PeerIdentifier) {
        guard let slot = slot(peer), let link = slot.link else { return }
        switch type {
        case .withoutResponse:
            guard link.bufferedWriteCommands < parameters.writeBufferCapacity else {
                statistics.writeCommandsIntoFullBuffer += 1
                return
            }
            guard bytes.count <= parameters.link.maxWriteValueLength else {
                statistics.writeCommandsIntoFullBuffer += 1
                return
            }
            link.writeCommand(bytes, characteristic: characteristic)
        case .withResponse:
            guard bytes.count <= 512 else {
                emit(.wrote(peer, characteristic, .failure(TransportFailure(code: 0x0D, "invalid attribute value length"))),
                     after: parameters.centralLatencyMs)
                return
            }
            link.writeRequest(bytes, characteristic: characteristic)
        }
    }

    public func canSendWriteWithoutResponse(_ peer: PeerIdentifier) -> Bool {
        guard let link = slot(peer)?.link else { return false }
        return link.bufferedWriteCommands < parameters.writeBufferCapacity
    }

    public func maximumWriteLength(_ type: WriteType, for peer: PeerIdentifier) -> Int {
        type == .withoutResponse ? parameters.link.maxWriteValueLength : 512
    }

    public func readRSSI(_ peer: PeerIdentifier) {
        guard let slot = slot(peer), slot.link != nil else { return }
        let noise = Int.random(in: -3...3, using: &random)
        emit(.rssiRead(peer, slot.device.rssi + noise), after: parameters.link.connectionIntervalMs)
    }

    // MARK: Internals

    private func slot(_ peer: PeerIdentifier) -> PeripheralSlot? {
        slots.first { $0.device.identifier == peer }
    }

    private func establish(_ slot: PeripheralSlot) {
        let link = SimulatedLinkLayer(transport: self, slot: slot, origin: scheduler.now)
        slot.link = link
        manInTheMiddle?.reset()
        if nextDisconnectFault < faults.disconnects.count {
            link.disconnectFault = faults.disconnects[nextDisconnectFault]
            nextDisconnectFault += 1
            if case .afterMs(let ms) = link.disconnectFault?.moment {
                scheduler.schedule(afterMilliseconds: ms, label: "sim: disconnect fault") { [weak self, weak link, weak slot] in
                    guard let self, let link, let slot, link.isUp, let fault = link.disconnectFault else { return }
                    self.dropLink(slot, link: link, fault: fault)
                }
            }
        }
        slot.device.didConnect(link.context)
        let peer = slot.device.identifier
        // ATT MTU exchange before the stack reports the link (iOS does it at once).
        link.exchanges(1, request: 3, response: 3) { [weak self] in self?.emitNow(.connected(peer)) }
    }

    func dropLink(_ slot: PeripheralSlot, link: SimulatedLinkLayer, fault: DisconnectFault) {
        guard link.isUp else { return }
        statistics.disconnectsInjected += 1
        link.tearDown()
        slot.advertisingFrom = scheduler.now.advanced(byMilliseconds: fault.outageMs)
        let peer = slot.device.identifier
        let noticeAfter = fault.reason == .supervisionTimeout ? parameters.supervisionTimeoutMs : parameters.link.connectionIntervalMs
        slot.pendingDisconnectEvent = scheduler.schedule(afterMilliseconds: noticeAfter, label: "sim: disconnect notice") { [weak self, weak slot] in
            guard let self, let slot else { return }
            slot.pendingDisconnectEvent = nil
            if slot.link === link { slot.link = nil }
            self.emitNow(.disconnected(peer, fault.reason))
            if self.scan != nil { self.reportAdvertisement(slot) }
        }
    }

    private func reportAdvertisement(_ slot: PeripheralSlot) {
        guard let scan, slot.link == nil, slot.reportedInScan != scan.generation else { return }
        let device = slot.device
        guard scan.services.isEmpty || scan.services.contains(where: device.advertisedServices.contains) else { return }
        slot.reportedInScan = scan.generation
        let delay = Double.random(in: 0..<parameters.advertisingIntervalMs, using: &random)
        let at = max(scheduler.now, slot.advertisingFrom).advanced(byMilliseconds: delay)
        let generation = scan.generation
        scheduler.schedule(at: at, label: "sim: advertisement") { [weak self, weak slot] in
            guard let self, let slot, self.scan?.generation == generation, slot.link == nil, self.isPoweredOn else { return }
            let advertisement = Advertisement(peer: device.identifier, name: device.advertisedName, services: device.advertisedServices,
                                              rssi: device.rssi + Int.random(in: -4...4, using: &self.random))
            self.emitNow(.advertisement(advertisement))
        }
    }

    func emit(_ event: TransportEvent, after milliseconds: Double) {
        scheduler.schedule(afterMilliseconds: milliseconds, label: "sim: event") { [weak self] in self?.eventHandler?(event) }
    }

    func emitNow(_ event: TransportEvent) { eventHandler?(event) }

    /// The fate of one application value under the configured faults: zero, one or two
    /// deliveries, each with its bytes and extra delay (ns).
    func applyFaults(_ value: [UInt8], toward direction: LinkFaults.Directions) -> [(bytes: [UInt8], extraNanoseconds: UInt64)] {
        let faults = self.faults
        guard faults.directions.contains(direction),
              faults.loss > 0 || faults.corruption > 0 || faults.duplication > 0 || faults.reordering > 0 || faults.delay > 0
        else { return [(value, 0)] }
        func chance(_ probability: Double) -> Bool {
            probability > 0 && Double.random(in: 0..<1, using: &random) < probability
        }
        if chance(faults.loss) {
            statistics.valuesLost += 1
            return []
        }
        var bytes = value
        if !bytes.isEmpty, chance(faults.corruption) {
            statistics.valuesCorrupted += 1
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let bit = Int.random(in: 0..<(bytes.count * 8), using: &random)
                bytes[bit / 8] ^= 1 << UInt8(bit % 8)
            }
        }
        let interval = UInt64(parameters.link.connectionIntervalMs * 1_000_000)
        var extra: UInt64 = 0
        if chance(faults.reordering) {
            statistics.valuesReordered += 1
            extra += interval + UInt64.random(in: 0...interval, using: &random)
        }
        if chance(faults.delay) {
            statistics.valuesDelayed += 1
            extra += UInt64(Double.random(in: 0...faults.maxDelayMs, using: &random) * 1_000_000)
        }
        var deliveries = [(bytes, extra)]
        if chance(faults.duplication) {
            statistics.valuesDuplicated += 1
            deliveries.append((bytes, extra + UInt64.random(in: 0...interval, using: &random)))
        }
        return deliveries
    }
}
