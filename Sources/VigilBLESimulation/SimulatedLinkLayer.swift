import VigilBLE
import VigilCore

/// One simulated connection: the two link-layer transmit queues, the connection events that
/// drain them, and the ATT procedures on top (Write Command, Write Request, long write,
/// notification, request/response exchanges).
///
/// Timing: a PDU queued at time t may leave in the first connection event whose anchor is at
/// or after t. Each event carries at most N packet exchanges (``StreamingBound``), each taking
/// the airtime of both packets plus two inter-frame spaces, and never overruns the interval.
/// A delivered PDU reaches the receiving host after that side's latency.
final class SimulatedLinkLayer {
    private struct AirPDU {
        var remaining: Int
        let eligibleAt: MonotonicInstant
        let isWriteCommand: Bool
        let delivered: (MonotonicInstant) -> Void
    }

    private struct PDUQueue {
        var items: [AirPDU] = []
        var head = 0
        var first: AirPDU? { head < items.count ? items[head] : nil }
        var isEmpty: Bool { head >= items.count }

        mutating func append(_ pdu: AirPDU) { items.append(pdu) }

        /// Sends `bytes` of the head PDU; returns it when that completed it.
        mutating func consume(_ bytes: Int) -> AirPDU? {
            items[head].remaining -= bytes
            guard items[head].remaining <= 0 else { return nil }
            let done = items[head]
            head += 1
            if head >= 256 && head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return done
        }

        mutating func removeAll() {
            items.removeAll()
            head = 0
        }
    }

    // Per-packet closures capture the link strongly: they are short-lived (run once, or dropped
    // with the queues at tear-down), and weak captures would put every link on the slow,
    // side-table reference-counting path.
    unowned let transport: SimulatedTransport
    unowned let slot: SimulatedTransport.PeripheralSlot
    let origin: MonotonicInstant
    private(set) var isUp = true
    var disconnectFault: DisconnectFault?
    var bufferedWriteCommands = 0
    private var readyOwed = false
    private var subscribed: Set<BLEUUID> = []
    private var valuesToPeripheral = 0
    private var central = PDUQueue()
    private var peripheral = PDUQueue()
    private var event: ScheduledTask?
    private let interval: UInt64
    private let centralLatency: UInt64
    private let peripheralLatency: UInt64

    private(set) lazy var context = PeripheralContext(
        scheduler: transport.scheduler, maxNotificationLength: transport.parameters.link.maxWriteValueLength,
        alive: { [weak self] in self?.isUp ?? false },
        send: { [weak self] value, characteristic in self?.notify(value, characteristic: characteristic) ?? false })

    init(transport: SimulatedTransport, slot: SimulatedTransport.PeripheralSlot, origin: MonotonicInstant) {
        self.transport = transport
        self.slot = slot
        self.origin = origin
        let parameters = transport.parameters
        interval = UInt64(parameters.link.connectionIntervalMs * 1_000_000)
        centralLatency = UInt64(parameters.centralLatencyMs * 1_000_000)
        peripheralLatency = UInt64(parameters.peripheralLatencyMs * 1_000_000)
    }

    private var scheduler: VirtualTimeScheduler { transport.scheduler }
    private var peer: PeerIdentifier { slot.device.identifier }
    /// Whether the phone still considers this link its own (it has not been told it is gone).
    private var isCurrent: Bool { slot.link === self }

    // MARK: ATT procedures

    func writeCommand(_ value: [UInt8], characteristic: BLEUUID) {
        bufferedWriteCommands += 1
        if bufferedWriteCommands >= transport.parameters.writeBufferCapacity { readyOwed = true }
        enqueue(fromCentral: true, bytes: 3 + value.count, isWriteCommand: true) { time in
            self.valueArrived(value, characteristic: characteristic, withResponse: false, at: time)
        }
    }

    func writeRequest(_ value: [UInt8], characteristic: BLEUUID) {
        let peer = self.peer
        if value.count <= transport.parameters.link.maxWriteValueLength {
            enqueue(fromCentral: true, bytes: 3 + value.count, isWriteCommand: false) { time in
                self.answer(at: time, bytes: 1) {
                    self.transport.emitNow(.wrote(peer, characteristic, .success(())))
                }
                self.valueArrived(value, characteristic: characteristic, withResponse: true, at: time)
            }
        } else {
            longWrite(value, characteristic: characteristic, offset: 0)
        }
    }

    /// Prepare Write requests of MTU − 5 bytes each, then Execute Write.
    private func longWrite(_ value: [UInt8], characteristic: BLEUUID, offset: Int) {
        let partSize = transport.parameters.link.attMTU - 5
        let peer = self.peer
        if offset < value.count {
            let part = min(partSize, value.count - offset)
            exchange(request: 5 + part, response: 5 + part, atPeripheral: { true }) {
                self.longWrite(value, characteristic: characteristic, offset: offset + part)
            }
        } else {
            enqueue(fromCentral: true, bytes: 2, isWriteCommand: false) { time in
                self.answer(at: time, bytes: 1) {
                    self.transport.emitNow(.wrote(peer, characteristic, .success(())))
                }
                self.valueArrived(value, characteristic: characteristic, withResponse: true, at: time)
            }
        }
    }

    func subscribe(_ characteristic: BLEUUID, enabled: Bool) {
        let peer = self.peer
        var answer = SubscriptionAnswer.confirm
        exchange(request: 5, response: 1, atPeripheral: {
            answer = self.slot.device.subscriptionChanged(characteristic, enabled: enabled)
            if answer == .confirm {
                if enabled { self.subscribed.insert(characteristic) } else { self.subscribed.remove(characteristic) }
            }
            return answer != .ignore
        }) {
            let result: Result<Bool, TransportFailure> = answer == .confirm
                ? .success(enabled) : .failure(TransportFailure(code: 0x03, "write not permitted"))
            self.transport.emitNow(.notificationStateChanged(peer, characteristic, result))
        }
    }

    func exchanges(_ count: Int, request: Int, response: Int, done: @escaping () -> Void) {
        guard count > 0 else { return done() }
        exchange(request: request, response: response, atPeripheral: { true }) {
            self.exchanges(count - 1, request: request, response: response, done: done)
        }
    }

    /// One ATT request from the phone (sizes are ATT PDU bytes; L2CAP's header is added on
    /// queuing) and the peer's response (`atPeripheral` returns whether
    /// the peer answers at all).
    private func exchange(request: Int, response: Int, atPeripheral: @escaping () -> Bool, atCentral: @escaping () -> Void) {
        enqueue(fromCentral: true, bytes: request, isWriteCommand: false) { time in
            self.scheduler.schedule(at: MonotonicInstant(nanoseconds: time.nanoseconds + self.peripheralLatency), label: "sim: peer handles request") {
                guard self.isUp, atPeripheral() else { return }
                self.enqueue(fromCentral: false, bytes: response, isWriteCommand: false) { time in
                    self.scheduler.schedule(at: MonotonicInstant(nanoseconds: time.nanoseconds + self.centralLatency), label: "sim: phone handles response") {
                        guard self.isCurrent else { return }
                        atCentral()
                    }
                }
            }
        }
    }

    /// The peer's ATT layer answers a PDU that reached it at `time`.
    private func answer(at time: MonotonicInstant, bytes: Int, atCentral: @escaping () -> Void) {
        scheduler.schedule(at: MonotonicInstant(nanoseconds: time.nanoseconds + peripheralLatency), label: "sim: peer answers") {
            guard self.isUp else { return }
            self.enqueue(fromCentral: false, bytes: bytes, isWriteCommand: false) { time in
                self.scheduler.schedule(at: MonotonicInstant(nanoseconds: time.nanoseconds + self.centralLatency), label: "sim: phone gets answer") {
                    guard self.isCurrent else { return }
                    atCentral()
                }
            }
        }
    }

    private func valueArrived(_ value: [UInt8], characteristic: BLEUUID, withResponse: Bool, at time: MonotonicInstant) {
        valuesToPeripheral += 1
        let hostTime = time.nanoseconds + peripheralLatency
        let relay = transport.manInTheMiddle.flatMap { $0.characteristic == characteristic ? $0 : nil }
        for relayed in relay?.relay(value) ?? [value] {
            for delivery in transport.applyFaults(relayed, toward: .toPeripheral) {
                scheduler.schedule(at: MonotonicInstant(nanoseconds: hostTime + delivery.extraNanoseconds), label: "sim: peer gets value") {
                    guard self.isUp else { return }
                    self.slot.device.didReceiveWrite(delivery.bytes, characteristic: characteristic, withResponse: withResponse)
                }
            }
        }
        if let fault = disconnectFault, case .afterValuesToPeripheral(let count) = fault.moment, valuesToPeripheral == count {
            scheduler.schedule(at: MonotonicInstant(nanoseconds: hostTime), label: "sim: disconnect fault") {
                self.transport.dropLink(self.slot, link: self, fault: fault)
            }
        }
    }

    private func notify(_ value: [UInt8], characteristic: BLEUUID) -> Bool {
        guard isUp, subscribed.contains(characteristic), value.count <= transport.parameters.link.maxWriteValueLength else {
            transport.statistics.notificationsRefused += 1
            return false
        }
        let peer = self.peer
        enqueue(fromCentral: false, bytes: 3 + value.count, isWriteCommand: false) { time in
            let relay = self.transport.manInTheMiddle.flatMap { $0.answerCharacteristic == characteristic ? $0 : nil }
            for relayed in relay?.relayAnswer(value) ?? [value] {
                for delivery in self.transport.applyFaults(relayed, toward: .toCentral) {
                    let at = MonotonicInstant(nanoseconds: time.nanoseconds + self.centralLatency + delivery.extraNanoseconds)
                    self.scheduler.schedule(at: at, label: "sim: phone gets notification") {
                        guard self.isCurrent else { return }
                        self.transport.emitNow(.valueReceived(peer, characteristic, delivery.bytes))
                    }
                }
            }
        }
        return true
    }

    // MARK: Link layer

    func tearDown() {
        guard isUp else { return }
        isUp = false
        event?.cancel()
        event = nil
        central.removeAll()
        peripheral.removeAll()
        slot.device.didDisconnect()
    }

    private func enqueue(fromCentral: Bool, bytes: Int, isWriteCommand: Bool, delivered: @escaping (MonotonicInstant) -> Void) {
        guard isUp else {
            if fromCentral { transport.statistics.writesOnDeadLink += 1 }
            return
        }
        // L2CAP adds its 4-byte header to every ATT PDU.
        let pdu = AirPDU(remaining: bytes + 4, eligibleAt: scheduler.now, isWriteCommand: isWriteCommand, delivered: delivered)
        if fromCentral { central.append(pdu) } else { peripheral.append(pdu) }
        scheduleEvent(notBefore: scheduler.now)
    }

    private func scheduleEvent(notBefore: MonotonicInstant) {
        guard event == nil, isUp else { return }
        let heads = [central.first?.eligibleAt, peripheral.first?.eligibleAt].compactMap { $0 }
        guard let eligible = heads.min() else { return }
        let earliest = max(eligible, notBefore).nanoseconds
        let since = earliest > origin.nanoseconds ? earliest - origin.nanoseconds : 0
        let anchor = MonotonicInstant(nanoseconds: origin.nanoseconds + (since + interval - 1) / interval * interval)
        event = scheduler.schedule(at: anchor, label: "sim: connection event") {
            self.runEvent(at: anchor)
        }
    }

    private func runEvent(at anchor: MonotonicInstant) {
        event = nil
        guard isUp else { return }
        let parameters = transport.parameters
        let dataLength = parameters.link.dataLength
        let phy = parameters.link.phy
        let intervalMicroseconds = parameters.link.connectionIntervalMs * 1000
        let maxPackets = transport.bound.packetsPerEvent
        var elapsed = 0.0
        var packets = 0
        var freed = false
        while packets < maxPackets {
            let centralBytes = central.first.flatMap { $0.eligibleAt <= anchor ? min(dataLength, $0.remaining) : nil }
            let peripheralBytes = peripheral.first.flatMap { $0.eligibleAt <= anchor ? min(dataLength, $0.remaining) : nil }
            if centralBytes == nil && peripheralBytes == nil { break }
            let slot = StreamingBound.airtimeMicroseconds(payload: centralBytes ?? 0, phy: phy)
                + StreamingBound.airtimeMicroseconds(payload: peripheralBytes ?? 0, phy: phy)
                + 2 * StreamingBound.interFrameSpaceMicroseconds
            if packets > 0 && elapsed + slot > intervalMicroseconds { break }
            elapsed += slot
            packets += 1
            let time = MonotonicInstant(nanoseconds: anchor.nanoseconds + UInt64(elapsed * 1000))
            if let bytes = centralBytes {
                transport.statistics.linkPacketsFromCentral += 1
                if let done = central.consume(bytes) {
                    if done.isWriteCommand {
                        bufferedWriteCommands -= 1
                        freed = true
                    }
                    done.delivered(time)
                }
            }
            if let bytes = peripheralBytes {
                transport.statistics.linkPacketsFromPeripheral += 1
                if let done = peripheral.consume(bytes) { done.delivered(time) }
            }
            guard isUp else { return }
        }
        if packets > 0 { transport.statistics.connectionEvents += 1 }
        if freed && readyOwed && bufferedWriteCommands < parameters.writeBufferCapacity {
            readyOwed = false
            let peer = self.peer
            let at = MonotonicInstant(nanoseconds: anchor.nanoseconds + UInt64(elapsed * 1000) + centralLatency)
            scheduler.schedule(at: at, label: "sim: write buffer ready") {
                guard self.isCurrent, self.isUp else { return }
                self.transport.emitNow(.readyToSendWriteWithoutResponse(peer))
            }
        }
        scheduleEvent(notBefore: MonotonicInstant(nanoseconds: anchor.nanoseconds + 1))
    }
}
