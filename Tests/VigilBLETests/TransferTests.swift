import Foundation
import Testing
import VigilBLE
import VigilBLESimulation
import VigilCore

@Suite("Reliable transfer over the simulated link")
struct TransferTests {
    static let bestCase = SimulationParameters(link: LinkParameters(phy: .twoM, attMTU: 247, connectionIntervalMs: 15, packetsPerEvent: 5))

    @Test("window mode at MTU 247 / 2M / 15 ms / 5 per event reaches ≥ 90 % of the bound at 0 % loss and ≥ 75 % at 2 %, byte-exact, never writing into a full buffer")
    func windowGoals() {
        for (loss, goal) in [(0.0, 0.90), (0.02, 0.75)] {
            let outcome = TransferSimulation(parameters: Self.bestCase, faults: LinkFaults(loss: loss), bytes: 400_000, seed: 3).run()
            #expect(outcome.verified, "loss \(loss): \(String(describing: outcome.result))")
            #expect(outcome.ratio >= goal, "loss \(loss): ratio \(outcome.ratio)")
            #expect(outcome.statistics.writeCommandsIntoFullBuffer == 0)
            #expect(outcome.leftoverTasks.isEmpty)
        }
    }

    @Test("stop-and-wait is byte-exact too, and one chunk per two connection events: window mode is ~10× faster")
    func stopAndWait() {
        let window = TransferSimulation(parameters: Self.bestCase, bytes: 120_000, seed: 4).run()
        let stopAndWait = TransferSimulation(parameters: Self.bestCase, transfer: TransferConfiguration(mode: .stopAndWait), bytes: 120_000, seed: 4).run()
        #expect(stopAndWait.verified && window.verified)
        let chunkPerTwoEvents = 237.0 / 0.030
        #expect(abs(stopAndWait.goodputBytesPerSecond - chunkPerTwoEvents) / chunkPerTwoEvents < 0.02)
        #expect(window.goodputBytesPerSecond / stopAndWait.goodputBytesPerSecond > 9.5)
    }

    @Test("a 10 MB window transfer (over two minutes of virtual time) costs well under a second of CPU in a release build, and is byte-exact")
    func tenMegabytesFast() {
        let outcome = TransferSimulation(parameters: Self.bestCase, bytes: 10_000_000, seed: 5).run()
        #expect(outcome.verified)
        #expect(outcome.virtualSeconds > 120)
        // CPU, not wall time: the shared machine may be busy. Debug builds are ~10× slower.
        #if DEBUG
        #expect(outcome.cpuSeconds < 15)
        #else
        #expect(outcome.cpuSeconds < 1.0)
        #endif
    }

    @Test("a disconnect mid-transfer resumes from the last acknowledged chunk and completes", arguments: [TransferMode.window, .stopAndWait],
          [DisconnectReason.remoteTerminated, .supervisionTimeout])
    func resumeAfterDisconnect(mode: TransferMode, reason: DisconnectReason) throws {
        let bytes = mode == .window ? 200_000 : 30_000
        let chunks = bytes / 237 + 1
        let faults = LinkFaults(disconnects: [DisconnectFault(.afterValuesToPeripheral(chunks / 2), reason: reason, outageMs: 300)])
        let outcome = TransferSimulation(parameters: Self.bestCase, faults: faults, transfer: TransferConfiguration(mode: mode),
                                         bytes: bytes, seed: 6).run()
        let report = try #require(try? outcome.result?.get(), "\(String(describing: outcome.result))")
        #expect(outcome.byteExact && outcome.statistics.disconnectsInjected == 1)
        #expect(report.resumes == 1)
        // Resumed, not restarted: far fewer than half the chunks were sent again.
        #expect(report.retransmissions < chunks / 4, "retransmissions \(report.retransmissions) of \(chunks)")
        let span = try #require(outcome.spans.first { $0.name == "ble.transfer" })
        #expect(span.attributes["ble.transfer.resumes"] == 1 && span.status == .ok)
        let attempts = outcome.spans.filter { $0.name == "ble.connect" }
        #expect(attempts.count == 2, "\(attempts.map { "\($0.status): \($0.statusMessage ?? "")" })")
        #expect(outcome.leftoverTasks.isEmpty)
    }

    @Test("10,000 seeded random transfers under mixed faults: every success byte-exact, every failure typed, none hangs", arguments: 0..<8)
    func randomTransfersUnderFaults(batch: Int) throws {
        let mtus = [23, 27, 51, 100, 185, 247]
        var successes = 0
        for index in 0..<1_250 {
            let seed = UInt64(batch * 1_250 + index + 1)
            var generator = SeededGenerator(seed: seed)
            func unit() -> Double { Double(generator.next() % 1_000_000) / 1_000_000 }
            let mtu = mtus[Int(generator.next() % UInt64(mtus.count))]
            let link = LinkParameters(phy: generator.next() % 2 == 0 ? .oneM : .twoM, attMTU: mtu,
                                      connectionIntervalMs: [7.5, 15, 30][Int(generator.next() % 3)], packetsPerEvent: 1 + Int(generator.next() % 6))
            var faults = LinkFaults(loss: unit() * 0.10, duplication: unit() * 0.05, reordering: unit() * 0.05,
                                    corruption: unit() * 0.05, delay: unit() * 0.05, maxDelayMs: 40)
            if generator.next() % 5 == 0 {
                faults.disconnects = [DisconnectFault(.afterValuesToPeripheral(1 + Int(generator.next() % 40)),
                                                      reason: generator.next() % 2 == 0 ? .remoteTerminated : .supervisionTimeout,
                                                      outageMs: Double(generator.next() % 500))]
            }
            let mode: TransferMode = generator.next() % 3 == 0 ? .stopAndWait : .window
            let simulation = TransferSimulation(
                parameters: SimulationParameters(link: link, writeBufferCapacity: 2 + Int(generator.next() % 12)), faults: faults,
                transfer: TransferConfiguration(mode: mode, requestedWindow: 1 + Int(generator.next() % 96)),
                bytes: Int(generator.next() % 600), seed: seed)
            let outcome = simulation.run(timeLimitMs: 600_000)
            func described() -> String { "seed \(seed), \(mode), MTU \(mtu): \(String(describing: outcome.result))" }
            switch outcome.result {
            case .success(let report)?:
                successes += 1
                #expect(outcome.byteExact && report.verified, "\(described())")
            case .failure(let error)?:
                switch error {
                case .peerSilent(let phase, _): #expect(phase != "simulation time limit", "hung: \(described())")
                case .tooManyRetransmissions, .disconnected, .tooManyResumes: break
                default: Issue.record("unexpected failure kind: \(described())")
                }
            case nil:
                Issue.record("no result: \(described())")
            }
            #expect(outcome.leftoverTasks.isEmpty, "\(described()): \(outcome.leftoverTasks.prefix(3))")
            #expect(outcome.statistics.writeCommandsIntoFullBuffer == 0, "\(described())")
        }
        // Most transfers succeed despite the faults; failures are the exception.
        #expect(successes > 1_100, "only \(successes) of 1250 succeeded")
    }

    @Test("acknowledgements for chunks never sent abort the transfer with a protocol violation; the link stays ready")
    func ackForUnsentChunk() throws {
        let peer = ScriptedPeripheral()
        peer.onWrite = { peer, bytes in
            guard case .start(let start)? = try? TransferPacket.decode(bytes, sequenceWidth: .two) else { return }
            peer.notify(.startAck(TransferStartAck(status: .accepted, transferId: start.transferId, window: 4, resumeFrom: 0)))
            peer.notify(.ack(TransferAck(cumulative: 1_000)))
        }
        let world = SimulatedWorld(peripherals: [peer])
        try world.connectToTransferPeer()
        var result: Result<TransferReport, TransferError>?
        let sender = TransferSender(connection: world.connection, characteristic: TransferService.characteristic,
                                    payload: [UInt8](repeating: 1, count: 5_000)) { result = $0 }
        sender.start()
        world.scheduler.run(until: { result != nil }, timeLimitMs: 60_000)
        guard case .failure(.protocolViolation(.ackForUnsentChunk(let sequence, _)))? = result else {
            Issue.record("unexpected \(String(describing: result))")
            return
        }
        #expect(sequence == 999)
        #expect(world.connection.state.isReady)
        world.scheduler.advanceTime(byMilliseconds: 100)
        #expect(peer.writes.contains { (try? TransferPacket.decode($0, sequenceWidth: .two))?.kind == .abort })
        try world.tearDown()
    }

    @Test("a silent peer fails the transfer with a typed error in bounded virtual time; the link stays ready", arguments: [false, true])
    func silentPeer(afterStart: Bool) throws {
        let peer = ScriptedPeripheral()
        peer.onWrite = { peer, bytes in
            guard afterStart, case .start(let start)? = try? TransferPacket.decode(bytes, sequenceWidth: .two) else { return }
            peer.notify(.startAck(TransferStartAck(status: .accepted, transferId: start.transferId, window: 16, resumeFrom: 0)))
        }
        let world = SimulatedWorld(peripherals: [peer])
        try world.connectToTransferPeer()
        var result: Result<TransferReport, TransferError>?
        let startedAt = world.scheduler.now
        let sender = TransferSender(connection: world.connection, characteristic: TransferService.characteristic,
                                    payload: [UInt8](repeating: 2, count: 50_000)) { result = $0 }
        sender.start()
        world.scheduler.run(until: { result != nil }, timeLimitMs: 600_000)
        guard case .failure(.peerSilent(let phase, _))? = result else {
            Issue.record("unexpected \(String(describing: result))")
            return
        }
        #expect(phase == (afterStart ? "stream" : "start"))
        #expect(world.scheduler.now.milliseconds(since: startedAt) < 20_000)
        #expect(world.connection.state.isReady)
        try world.tearDown()
    }

    @Test("a payload over the peer's limit is refused at START: a typed error, nothing streamed")
    func payloadOverPeerLimit() {
        let outcome = TransferSimulation(parameters: Self.bestCase, receiver: TransferReceiverConfiguration(maxTransferBytes: 10_000),
                                         bytes: 20_000, seed: 8).run()
        guard case .failure(.peerRejected(.tooLarge))? = outcome.result else {
            Issue.record("unexpected \(String(describing: outcome.result))")
            return
        }
        #expect(outcome.peerRejections.contains(.announcedSizeTooLarge(announced: 20_000, limit: 10_000)))
        #expect(outcome.connectionStateAtEnd.isReady)
    }

    @Test("garbage notifications during a transfer are counted and ignored; the peer's held bytes stay within its window")
    func garbageAndBoundedMemory() throws {
        let faults = LinkFaults(reordering: 0.2, corruption: 0.05)
        let receiver = TransferReceiverConfiguration(maxTransferBytes: 1 << 20, receiveWindow: 32, maxNotificationLength: 244)
        let outcome = TransferSimulation(parameters: Self.bestCase, faults: faults, receiver: receiver, bytes: 150_000, seed: 9).run()
        let report = try #require(try? outcome.result?.get(), "\(String(describing: outcome.result))")
        #expect(outcome.byteExact)
        #expect(report.malformedPackets > 0)
        #expect(outcome.peerPeakHeldBytes <= 32 * 237)
        #expect(outcome.peerRejections.contains { if case .malformedPacket = $0 { return true } else { return false } })
    }

    @Test("the transfer span carries peer, MTU, mode, bytes, retransmissions and result, under the connection's trace")
    func transferSpan() throws {
        let outcome = TransferSimulation(parameters: Self.bestCase, faults: LinkFaults(loss: 0.03), bytes: 50_000, seed: 10).run()
        let span = try #require(outcome.spans.first { $0.name == "ble.transfer" })
        let connect = try #require(outcome.spans.first { $0.name == "ble.connect" })
        #expect(span.traceId == connect.traceId && span.parentSpanId == connect.spanId)
        #expect(span.attributes["ble.peer.id"] == "transfer-peer" && span.attributes["ble.mtu"] == 247)
        #expect(span.attributes["ble.transfer.mode"] == "window" && span.attributes["ble.transfer.bytes"] == 50_000)
        #expect(span.attributes["ble.retries"] == .int(Int64(outcome.retransmissions)) && outcome.retransmissions > 0)
        #expect(span.attributes["ble.result"] == "ok" && span.status == .ok)
    }
}

