import Testing
import VigilBLE
import VigilBLESimulation
@testable import VigilBLEHost

/// A controller played by the test: answers every command the way a controller with
/// `bufferCount` LE ACL buffers of 27 bytes would, records ACL packets, and lets the test send
/// events. Delivers on the scheduler, like the socket channel.
final class FakeController: HCIChannel {
    var onReceive: (([UInt8]) -> Void)?
    var onClose: ((HCIChannelError) -> Void)?
    let scheduler: VirtualTimeScheduler
    let bufferCount: UInt8
    var features: UInt64 = 1 << 5 | 1 << 8
    var supportsDataLengthAndPHYCommands = true
    var commands: [HCICommand] = []
    var acl: [ACLPacket] = []
    var closed = false

    init(scheduler: VirtualTimeScheduler, bufferCount: UInt8 = 2) {
        self.scheduler = scheduler
        self.bufferCount = bufferCount
    }

    func start() {}
    func close() {
        closed = true
        onClose?(.closed)
    }

    func send(_ packet: [UInt8]) throws(HCIChannelError) {
        var decoder = H4Decoder()
        guard let decoded = try? decoder.feed(packet), decoded.count == 1 else { return }
        switch decoded[0] {
        case .command(let opcode, let parameters):
            commands.append(HCICommand(opcode: opcode, parameters: parameters))
            answer(opcode)
        case .acl(let packet):
            acl.append(packet)
        default: break
        }
    }

    private func answer(_ opcode: UInt16) {
        var reply: [UInt8] = [0x00]
        switch opcode {
        case HCICommand.Opcode.leCreateConnection, HCICommand.Opcode.disconnect, HCICommand.Opcode.leConnectionUpdate, HCICommand.Opcode.leSetPHY:
            return event(0x0F, [0x00, 0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)])
        case HCICommand.Opcode.readBufferSize: reply += [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        case HCICommand.Opcode.leReadBufferSize: reply += [27, 0, bufferCount]
        case HCICommand.Opcode.leReadLocalSupportedFeatures: reply += (0..<8).map { UInt8(truncatingIfNeeded: features >> (8 * $0)) }
        case HCICommand.Opcode.readBDAddr: reply += [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
        case HCICommand.Opcode.readRSSI: reply += [0x40, 0x00, 0xC8]
        case HCICommand.Opcode.readLocalSupportedCommands:
            var mask = [UInt8](repeating: 0xFF, count: 64)
            if !supportsDataLengthAndPHYCommands {
                mask[33] &= ~(1 << 6)
                mask[35] &= ~(1 << 6)
            }
            reply += mask
        default: break
        }
        event(0x0E, [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + reply)
    }

    /// Sends an event to the host (on the scheduler).
    func event(_ code: UInt8, _ parameters: [UInt8]) {
        deliver(HCIPacket.event(code: code, parameters: parameters).h4Bytes)
    }

    /// Sends an L2CAP PDU to the host in ACL fragments of `fragment` bytes.
    func l2cap(handle: UInt16, channel: UInt16, _ payload: [UInt8], fragment: Int = 27) {
        for var packet in L2CAPFragmenter.fragments(handle: handle, channel: channel, payload: payload, maximumFragment: fragment) {
            if packet.boundary == .firstNonFlushable { packet.boundary = .firstFlushable }
            deliver(HCIPacket.acl(packet).h4Bytes)
        }
    }

    func deliver(_ bytes: [UInt8]) {
        scheduler.execute(label: "controller") { [weak self] in self?.onReceive?(bytes) }
    }

    /// The L2CAP PDUs the host sent, rebuilt from the recorded ACL packets.
    func sentPDUs() -> [L2CAPReassembler.PDU] {
        var reassembler = L2CAPReassembler()
        return acl.compactMap { try? reassembler.add($0) }
    }

    func connectionComplete(handle: UInt16 = 0x40) {
        event(0x3E, [0x01, 0x00, UInt8(handle), 0x00, 0x00, 0x00, 0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0, 0x0C, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00])
    }
}

@Suite struct BLEHostTests {
    let scheduler = VirtualTimeScheduler()
    let controller: FakeController
    let host: BLEHost
    let transport: HostTransport
    final class Events { var list: [TransportEvent] = [] }
    let events = Events()
    let peer: PeerIdentifier = "F0:F1:F2:F3:F4:F5/public"

    init() {
        controller = FakeController(scheduler: scheduler)
        host = BLEHost(channel: controller, scheduler: scheduler)
        transport = HostTransport(host: host, scheduler: scheduler)
        let events = self.events
        transport.eventHandler = { events.list.append($0) }
    }

    private func run() { _ = scheduler.runUntilIdle(timeLimitMs: 1_000) }

    /// Initialises, connects and answers the MTU exchange with 247.
    private func connect() {
        transport.start()
        run()
        transport.connect(peer)
        run()
        controller.connectionComplete()
        run()
        controller.l2cap(handle: 0x40, channel: 4, [0x03, 0xF7, 0x00])
        run()
    }

    @Test func initialisationReadsBuffersAndFeaturesThenPowersOn() {
        transport.start()
        run()
        #expect(controller.commands.map(\.opcode) == [0x0C03, 0x0C01, 0x2001, 0x1005, 0x2002, 0x2003, 0x1009, 0x1002, 0x2005])
        let random = controller.commands.last?.parameters ?? []
        #expect(random.count == 6 && random[5] & 0xC0 == 0xC0)
        #expect(host.ownAddress?.wireBytes == random)
        #expect(host.aclBufferCount == 2 && host.aclDataLength == 27)
        #expect(host.supportsDataLengthExtension && host.supports2MPHY)
        #expect(host.localAddress?.text == "A5:A4:A3:A2:A1:A0")
        #expect(transport.isPoweredOn)
        guard case .powerChanged(true)? = events.list.first else {
            Issue.record("no powerChanged(true)")
            return
        }
    }

    @Test func aConnectionAsksForDataLengthAnd2MThenExchangesTheMTUBeforeReportingConnected() {
        connect()
        let opcodes = controller.commands.map(\.opcode)
        #expect(opcodes.suffix(3) == [0x200D, 0x2022, 0x2032])
        #expect(controller.sentPDUs().first == L2CAPReassembler.PDU(channel: 4, payload: [0x02, 0xF7, 0x00]))
        #expect(transport.maximumWriteLength(.withoutResponse, for: peer) == 244)
        #expect(events.list.contains { if case .connected(let p) = $0 { return p == peer }; return false })
        controller.event(0x3E, [0x07, 0x40, 0x00, 0xFB, 0x00, 0x48, 0x08, 0xFB, 0x00, 0x48, 0x08])
        controller.event(0x3E, [0x0C, 0x00, 0x40, 0x00, 0x02, 0x02])
        run()
        let link = transport.link(peer)
        #expect(link?.maxTxOctets == 251 && link?.txPHY == 2)
    }

    @Test func dataLengthAndPHYAreNotAskedForWhenTheControllerDoesNotListTheCommands() {
        controller.supportsDataLengthAndPHYCommands = false
        connect()
        #expect(!host.supportsDataLengthExtension && !host.supports2MPHY)
        #expect(!controller.commands.contains { $0.opcode == 0x2022 || $0.opcode == 0x2032 })
        #expect(events.list.contains { if case .connected = $0 { return true }; return false })
    }

    @Test func aclPacketsWaitForControllerCreditsFromNumberOfCompletedPackets() {
        connect()
        let before = controller.acl.count // the MTU request: 1 packet
        // A 244-byte Write Command is 251 bytes of L2CAP: 10 fragments; the controller has 2 buffers.
        #expect(transport.canSendWriteWithoutResponse(peer))
        transport.host.links[0x40]!.characteristics["AAAA"] = GATTCharacteristic(uuid: "AAAA", declarationHandle: 1, valueHandle: 2,
                                                                                  properties: [.writeWithoutResponse], endHandle: 2)
        controller.event(0x13, [0x01, 0x40, 0x00, 0x01, 0x00]) // the MTU request's buffer
        run()
        transport.write([UInt8](repeating: 0xAB, count: 244), characteristic: "AAAA", type: .withoutResponse, on: peer)
        run()
        #expect(controller.acl.count == before + 2)
        #expect(host.statistics.maximumACLInFlight == 2)
        controller.event(0x13, [0x01, 0x40, 0x00, 0x02, 0x00])
        run()
        #expect(controller.acl.count == before + 4)
        for _ in 0..<4 {
            controller.event(0x13, [0x01, 0x40, 0x00, 0x02, 0x00])
            run()
        }
        let pdus = controller.sentPDUs()
        #expect(pdus.last?.payload == [0x52, 0x02, 0x00] + [UInt8](repeating: 0xAB, count: 244))
        #expect(host.statistics.maximumACLInFlight == 2)
    }

    @Test func writeCommandsAreRefusedWhileTheBacklogIsFullAndReadyFollowsWhenItDrains() {
        connect()
        transport.host.links[0x40]!.characteristics["AAAA"] = GATTCharacteristic(uuid: "AAAA", declarationHandle: 1, valueHandle: 2,
                                                                                  properties: [.writeWithoutResponse], endHandle: 2)
        var written = 0
        while transport.canSendWriteWithoutResponse(peer), written < 100 {
            transport.write([UInt8](repeating: 1, count: 244), characteristic: "AAAA", type: .withoutResponse, on: peer)
            written += 1
        }
        #expect(written == 2) // backlog limit: two full-MTU PDUs (20 packets) beyond 2 credits
        events.list.removeAll()
        for _ in 0..<12 {
            controller.event(0x13, [0x01, 0x40, 0x00, 0x02, 0x00])
            run()
        }
        #expect(events.list.contains { if case .readyToSendWriteWithoutResponse = $0 { return true }; return false })
        #expect(transport.canSendWriteWithoutResponse(peer))
    }

    @Test func aPeripheralsConnectionParameterUpdateRequestIsAcceptedAndApplied() {
        connect()
        controller.l2cap(handle: 0x40, channel: 5, [0x12, 0x09, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01])
        run()
        controller.event(0x13, [0x01, 0x40, 0x00, 0x01, 0x00])
        run()
        #expect(controller.sentPDUs().contains(L2CAPReassembler.PDU(channel: 5, payload: [0x13, 0x09, 0x02, 0x00, 0x00, 0x00])))
        let update = controller.commands.last { $0.opcode == 0x2013 }
        #expect(update?.parameters == [0x40, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00, 0x00, 0x00, 0x00])
        // Unacceptable values are rejected and not applied.
        controller.l2cap(handle: 0x40, channel: 5, [0x12, 0x0A, 0x08, 0x00, 0x28, 0x00, 0x18, 0x00, 0x00, 0x00, 0xF4, 0x01])
        run()
        controller.event(0x13, [0x01, 0x40, 0x00, 0x01, 0x00])
        run()
        #expect(controller.sentPDUs().contains(L2CAPReassembler.PDU(channel: 5, payload: [0x13, 0x0A, 0x02, 0x00, 0x01, 0x00])))
        #expect(controller.commands.filter { $0.opcode == 0x2013 }.count == 1)
    }

    @Test func anATTTimeoutDropsTheLink() {
        connect()
        transport.host.links[0x40]!.characteristics["AAAA"] = GATTCharacteristic(uuid: "AAAA", declarationHandle: 1, valueHandle: 2,
                                                                                  properties: [.write], endHandle: 2)
        transport.write([1], characteristic: "AAAA", type: .withResponse, on: peer)
        run()
        scheduler.advanceTime(byMilliseconds: 30_000)
        #expect(controller.commands.last?.opcode == HCICommand.Opcode.disconnect)
        let wrote = events.list.compactMap { event -> TransportFailure? in
            if case .wrote(_, _, .failure(let failure)) = event { return failure }
            return nil
        }
        #expect(wrote.first?.message.contains("timed out") == true)
        controller.event(0x05, [0x00, 0x40, 0x00, 0x13])
        run()
        #expect(events.list.contains { if case .disconnected(_, .remoteTerminated) = $0 { return true }; return false })
        #expect(transport.link(peer) == nil)
    }

    @Test func connectingToALinkedPeerAnswersConnectedAgain() {
        connect()
        events.list.removeAll()
        let commands = controller.commands.count
        transport.connect(peer)
        run()
        #expect(events.list.count == 1)
        #expect(events.list.contains { if case .connected(let p) = $0 { return p == peer }; return false })
        #expect(controller.commands.count == commands)
    }

    @Test func cancellingAPendingConnectionAnswersWithOneDisconnect() {
        transport.start()
        run()
        transport.connect(peer)
        run()
        transport.cancelConnection(peer)
        run()
        #expect(controller.commands.last?.opcode == HCICommand.Opcode.leCreateConnectionCancel)
        controller.event(0x3E, [0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        run()
        let disconnects = events.list.filter { if case .disconnected(_, .localHostTerminated) = $0 { return true }; return false }
        #expect(disconnects.count == 1)
        #expect(!events.list.contains { if case .connectFailed = $0 { return true }; return false })
    }

    @Test func aCorruptStreamClosesTheChannelAndPowersOff() {
        transport.start()
        run()
        controller.deliver([0x09, 0x00, 0x00])
        run()
        #expect(!transport.isPoweredOn)
        #expect(events.list.contains { if case .powerChanged(false) = $0 { return true }; return false })
        #expect(host.statistics.malformedPackets == 1)
    }

    @Test func aCommandTheControllerNeverAnswersTimesOut() {
        let quiet = BLEHost(channel: SilentChannel(), scheduler: scheduler)
        var outcome: Result<Void, HostError>?
        quiet.start { outcome = $0 }
        scheduler.advanceTime(byMilliseconds: 10_000)
        guard case .failure(let error) = outcome else {
            Issue.record("expected a failure, got \(String(describing: outcome))")
            return
        }
        #expect(error == .commandTimeout(opcode: 0x0C03))
    }

    @Test func theUserChannelReportsAMissingAdapterAsATypedError() {
        do {
            _ = try SocketHCIChannel(endpoint: .userChannel(index: 199), queue: .init(label: "test"))
            Issue.record("hci199 should not exist")
        } catch {
            guard case .adapterUnavailable(let index, let code, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(index == 199)
            #expect(code != 0)
        }
    }

    @Test func aRefusedTCPConnectionIsATypedError() {
        #expect(throws: HCIChannelError.self) { try SocketHCIChannel(endpoint: .tcp(host: "127.0.0.1", port: 1), queue: .init(label: "test")) }
        #expect(throws: HCIChannelError.invalidEndpoint("not an IPv4 address: example.com")) {
            try SocketHCIChannel(endpoint: .tcp(host: "example.com", port: 1), queue: .init(label: "test"))
        }
    }
}

/// A channel to a controller that never answers.
final class SilentChannel: HCIChannel {
    var onReceive: (([UInt8]) -> Void)?
    var onClose: ((HCIChannelError) -> Void)?
    func start() {}
    func send(_ packet: [UInt8]) throws(HCIChannelError) {}
    func close() {}
}
