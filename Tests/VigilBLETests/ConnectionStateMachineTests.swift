import Testing
import VigilBLE
import VigilBLESimulation
import VigilCore

@Suite("Connection state machine")
struct ConnectionStateMachineTests {
    @Test("a connection walks idle → scanning → connecting → discovering → ready, each attempt a span with its phases")
    func happyPath() throws {
        let world = SimulatedWorld(peripherals: [TransferPeerPeripheral()])
        var states: [String] = []
        _ = world.connection.addObserver(ConnectionObserver(stateChanged: { states.append($0.name) }))
        try world.connectToTransferPeer()
        #expect(states == ["scanning", "connecting", "discovering", "ready"])
        let connect = try #require(world.recorder.spans(named: "ble.connect").first)
        #expect(connect.status == .ok)
        #expect(connect.attributes["ble.peer.id"] == "transfer-peer")
        #expect(connect.attributes["ble.mtu"] == 247)
        #expect(connect.attributes["ble.retries"] == 0)
        for phase in ["ble.scan", "ble.discover"] {
            let span = try #require(world.recorder.spans(named: phase).first)
            #expect(span.parentSpanId == connect.spanId && span.traceId == connect.traceId)
        }
        let snapshot = world.connection.snapshot
        #expect(snapshot.peerName == "Vigil Transfer Peer" && snapshot.peerId == "transfer-peer" && snapshot.mtu == 247)
        #expect(snapshot.rssi != nil && snapshot.attempts == 1)
        try world.tearDown()
    }

    @Test("notifications are enabled and confirmed by the peer before the link is ready (no fixed sleeps)")
    func notificationsBeforeReady() throws {
        let peer = ScriptedPeripheral()
        let world = SimulatedWorld(peripherals: [peer])
        var readyAt: MonotonicInstant?
        _ = world.connection.addObserver(ConnectionObserver(stateChanged: { if $0.isReady { readyAt = world.scheduler.now } }))
        try world.connectToTransferPeer()
        let subscribed = try #require(peer.subscribedAt)
        let ready = try #require(readyAt)
        #expect(subscribed < ready)
        try world.tearDown()
    }

    @Test("duplicate reconnect triggers from three sources at once start exactly one attempt")
    func threeTriggersOneAttempt() throws {
        let world = SimulatedWorld(peripherals: [TransferPeerPeripheral()])
        try world.connectToTransferPeer()
        let connectsBefore = world.counting.connectCalls
        let spansBefore = world.recorder.spans(named: "ble.connect").count
        world.transport.dropLink(to: "transfer-peer")
        world.scheduler.run(until: { if case .reconnecting = world.connection.state { return true } else { return false } }, timeLimitMs: 1_000)
        // The backoff timer is pending; three sources fire at the same virtual instant.
        var outcomes: [ReconnectOutcome] = []
        let at = world.scheduler.now.advanced(byMilliseconds: 10)
        for source in [ReconnectTrigger.appForeground, .bluetoothPoweredOn, .user] {
            world.scheduler.schedule(at: at, label: "trigger \(source)") { outcomes.append(world.connection.reconnect(source: source)) }
        }
        world.scheduler.run(until: { world.connection.state.isReady }, timeLimitMs: 10_000)
        world.scheduler.advanceTime(byMilliseconds: 5_000)  // past the abandoned backoff deadline
        #expect(outcomes == [.started, .alreadyRunning, .alreadyRunning])
        #expect(world.counting.connectCalls == connectsBefore + 1)
        #expect(world.recorder.spans(named: "ble.connect").count == spansBefore + 1)
        #expect(world.connection.state.isReady)
        #expect(world.connection.snapshot.ignoredReconnectTriggers == 2)
        #expect(world.connection.reconnect(source: .user) == .alreadyConnected)
        try world.tearDown()
    }

    @Test("after giving up, three simultaneous triggers start one new effort; after a user disconnect they do nothing")
    func triggersFromIdle() throws {
        let world = SimulatedWorld(configuration: ConnectionConfiguration(scanTimeoutMs: 500, reconnect: ReconnectPolicy(maxAttempts: 2, initialDelayMs: 50), seed: 3),
                                   peripherals: [])
        try world.connection.connect(to: .service(TransferService.profile))
        world.scheduler.run(until: { world.connection.state == .idle }, timeLimitMs: 10_000)
        #expect(world.connection.lastError == .gaveUp(attempts: 2, last: .scanTimedOut(afterMs: 500)))
        #expect(world.counting.scanStarts == 2)
        let outcomes = [ReconnectTrigger.user, .appForeground, .bluetoothPoweredOn].map { world.connection.reconnect(source: $0) }
        #expect(outcomes == [.started, .alreadyRunning, .alreadyRunning])
        #expect(world.counting.scanStarts == 3)
        world.connection.disconnect()
        #expect(world.connection.reconnect(source: .appForeground) == .noTarget)
        world.scheduler.runUntilIdle()
        try world.scheduler.checkNoWorkLeft()
    }

    @Test("backoff grows exponentially with jitter and never exceeds its cap")
    func backoff() {
        let policy = ReconnectPolicy(maxAttempts: nil, initialDelayMs: 250, maxDelayMs: 8_000, multiplier: 2, jitter: 0.2)
        var generator = SeededGenerator(seed: 1)
        for attempt in 1...12 {
            let delay = Double(policy.delay(beforeAttempt: attempt, using: &generator)) / 1e6
            let nominal = min(8_000, 250 * pow(2, Double(attempt - 1)))
            #expect(delay >= nominal * 0.8 - 1e-6 && delay <= min(8_000, nominal * 1.2) + 1e-6, "attempt \(attempt): \(delay) ms")
        }
        #expect(ReconnectPolicy(maxAttempts: 3).allows(attempt: 3) && !ReconnectPolicy(maxAttempts: 3).allows(attempt: 4))
    }

    @Test("a lost link reconnects on its own; the user's disconnect cancels the pending reconnect and leaves nothing scheduled")
    func userCancelsReconnect() throws {
        let world = SimulatedWorld(configuration: ConnectionConfiguration(reconnect: ReconnectPolicy(maxAttempts: 4, initialDelayMs: 2_000), seed: 1),
                                   peripherals: [TransferPeerPeripheral()])
        try world.connectToTransferPeer()
        world.transport.dropLink(to: "transfer-peer", reason: .supervisionTimeout)
        world.scheduler.run(until: { if case .reconnecting = world.connection.state { return true } else { return false } }, timeLimitMs: 5_000)
        #expect(world.connection.snapshot.lastDisconnectReason == .supervisionTimeout)
        let connects = world.counting.connectCalls
        world.connection.disconnect()
        world.scheduler.runUntilIdle()
        #expect(world.connection.state == .idle)
        #expect(world.counting.connectCalls == connects)
        try world.scheduler.checkNoWorkLeft()
    }

    @Test("a peer that never confirms its subscription times the GATT request out, drops the link, retries, then gives up")
    func subscriptionTimeout() throws {
        let peer = ScriptedPeripheral()
        peer.subscription = .ignore
        let world = SimulatedWorld(configuration: ConnectionConfiguration(operationTimeoutMs: 1_000, reconnect: ReconnectPolicy(maxAttempts: 2, initialDelayMs: 100), seed: 2),
                                   peripherals: [peer])
        try world.connectToTransferPeer()
        #expect(world.connection.state == .idle)
        guard case .gaveUp(2, .operationTimedOut(let operation, 1_000))? = world.connection.lastError else {
            Issue.record("unexpected \(String(describing: world.connection.lastError))")
            return
        }
        #expect(operation.contains("enabling notifications"))
        #expect(world.recorder.spans(named: "ble.connect").allSatisfy { $0.status == .error })
        world.scheduler.runUntilIdle()
        try world.scheduler.checkNoWorkLeft()
    }

    @Test("a peer that refuses notifications fails the attempt with a typed error naming the characteristic")
    func subscriptionRefused() throws {
        let peer = ScriptedPeripheral()
        peer.subscription = .refuse
        let world = SimulatedWorld(configuration: ConnectionConfiguration(reconnect: ReconnectPolicy(maxAttempts: 1), seed: 2), peripherals: [peer])
        try world.connectToTransferPeer()
        guard case .gaveUp(1, .notificationsRefused(TransferService.characteristic, _))? = world.connection.lastError else {
            Issue.record("unexpected \(String(describing: world.connection.lastError))")
            return
        }
        world.scheduler.runUntilIdle()
        try world.scheduler.checkNoWorkLeft()
    }

    @Test("Bluetooth switched off while ready: the link is lost; switched on: it reconnects by itself")
    func powerCycle() throws {
        let world = SimulatedWorld(configuration: ConnectionConfiguration(reconnect: ReconnectPolicy(maxAttempts: nil, initialDelayMs: 100), seed: 4),
                                   peripherals: [TransferPeerPeripheral()])
        try world.connectToTransferPeer()
        world.transport.setPoweredOn(false)
        world.scheduler.advanceTime(byMilliseconds: 3_000)
        #expect(!world.connection.state.isReady)
        #expect(world.connection.snapshot.lastDisconnectReason == .poweredOff)
        world.transport.setPoweredOn(true)
        world.scheduler.run(until: { world.connection.state.isReady }, timeLimitMs: 30_000)
        #expect(world.connection.state.isReady)
        try world.tearDown()
    }

    @Test("writes are refused with typed errors when the link is not ready or the value is too long")
    func writeRefusals() throws {
        let world = SimulatedWorld(peripherals: [TransferPeerPeripheral()])
        #expect(throws: ConnectionError.notReady(state: "idle")) { try world.connection.writeWithoutResponse([1], to: TransferService.characteristic) }
        try world.connectToTransferPeer()
        #expect(throws: ConnectionError.valueTooLong(length: 245, limit: 244)) {
            try world.connection.writeWithoutResponse([UInt8](repeating: 0, count: 245), to: TransferService.characteristic)
        }
        #expect(throws: ConnectionError.busy(state: "ready")) { try world.connection.connect(to: .service(TransferService.profile)) }
        try world.tearDown()
    }
}

import Foundation
