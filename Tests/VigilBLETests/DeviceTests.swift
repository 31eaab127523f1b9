import Foundation
import Testing
import VigilBLE
import VigilBLESimulation
import VigilCore

@Suite("Devices: two terminal families behind one adapter, and the payment terminal chain")
struct DeviceTests {
    static let keys = WorkKeys(pinKey: [UInt8](repeating: 1, count: 16), macKey: [UInt8](repeating: 2, count: 16),
                               dataKey: [UInt8](repeating: 3, count: 16))

    /// A world with one terminal and a payment terminal facade whose server check answers `verdict`.
    struct TerminalWorld {
        let world: SimulatedWorld
        let terminal: PaymentTerminal
        var checked: [PaymentTerminal.Identity] { checkedBox.values }
        private let checkedBox = Box()

        final class Box { var values: [PaymentTerminal.Identity] = [] }

        init(_ peripheral: SimulatedPeripheral, parameters: SimulationParameters = SimulationParameters(),
             verdict: Result<ServerVerdict, PaymentTerminalError> = .success(.approved)) {
            world = SimulatedWorld(parameters: parameters, peripherals: [peripheral])
            let box = checkedBox
            let scheduler = world.scheduler
            terminal = PaymentTerminal(connection: world.connection) { identity, answer in
                box.values.append(identity)
                // The app's server answers 120 ms later.
                scheduler.schedule(afterMilliseconds: 120, label: "server check") { answer(verdict) }
            }
        }

        func connect() -> Result<PaymentTerminal.Identity, PaymentTerminalError>? {
            var result: Result<PaymentTerminal.Identity, PaymentTerminalError>?
            terminal.connect { result = $0 }
            world.scheduler.run(until: { result != nil }, timeLimitMs: 120_000)
            return result
        }

        func run<T>(_ body: (@escaping (T) -> Void) -> Void) -> T? {
            var value: T?
            body { value = $0 }
            world.scheduler.run(until: { value != nil }, timeLimitMs: 120_000)
            return value
        }
    }

    @Test("the factory picks the 0xAA55 family by advertised service and the TLV family by name")
    func factorySelection() {
        let factory = DeviceAdapterFactory.builtIn
        let framed = Advertisement(peer: "a", name: "Anything", services: [FramedTerminalAdapter.service])
        let tlv = Advertisement(peer: "b", name: "TLV-POS 123", services: [])
        let unknown = Advertisement(peer: "c", name: "Headphones", services: ["180D"])
        #expect(factory.registration(for: framed)?.vendor == "framed-aa55")
        #expect(factory.registration(for: framed)?.match(framed) == "service")
        #expect(factory.registration(for: tlv)?.vendor == "tlv-crc16")
        #expect(factory.registration(for: tlv)?.match(tlv) == "name")
        #expect(factory.registration(for: unknown) == nil)
        #expect(factory.connectionTarget.select(tlv) == TLVTerminalAdapter.profile)
    }

    @Test("connected means the whole chain is done — link, open, info, serial, trace, server check, key update — each step a span in one trace",
          arguments: [true, false])
    func wholeChain(framed: Bool) throws {
        let peripheral: SimulatedPeripheral = framed ? FramedTerminalPeripheral() : TLVTerminalPeripheral()
        let expected = KeyCheckValues(pin: SimulatedTerminalBehavior.checkValue(Self.keys.pinKey),
                                      mac: SimulatedTerminalBehavior.checkValue(Self.keys.macKey),
                                      data: SimulatedTerminalBehavior.checkValue(Self.keys.dataKey))
        let world = TerminalWorld(peripheral, parameters: SimulationParameters(link: LinkParameters(phy: .oneM, attMTU: 23, connectionIntervalMs: 30)),
                                  verdict: .success(.approvedWithKeyUpdate(Self.keys, expectedCheckValues: expected)))
        var statuses: [String] = []
        _ = world.world.connection.addObserver(ConnectionObserver(stateChanged: { _ in statuses.append("\(world.terminal.status)") }))
        let identity = try #require(try? world.connect()?.get())
        #expect(identity.vendor == (framed ? "framed-aa55" : "tlv-crc16"))
        #expect(identity.serialNumber == (framed ? "A55100042" : "T7700913") && identity.traceNumber == 1_000)
        #expect(identity.info == TerminalInfo(model: "SIM-T100", firmware: "4.2.1"))
        #expect(world.terminal.isConnected)
        #expect(world.checked == [identity])

        let spans = world.world.recorder.spans
        let root = try #require(spans.first { $0.name == "terminal.connect" })
        #expect(root.status == .ok && root.attributes["terminal.vendor"] == .string(identity.vendor))
        let steps = spans.filter { $0.name.hasPrefix("terminal.") && $0.name != "terminal.connect" }
        #expect(steps.map(\.name) == PaymentTerminal.Step.allCases.map { "terminal.\($0.rawValue)" })
        #expect(steps.allSatisfy { $0.traceId == root.traceId && $0.parentSpanId == root.spanId && $0.status == .ok })
        // The link step parents the connection attempt; each command step parents its command.
        let linkStep = steps[0]
        #expect(spans.first { $0.name == "ble.connect" }?.parentSpanId == linkStep.spanId)
        let commands = spans.filter { $0.name == "ble.command" }
        #expect(commands.map { $0.attributes["ble.command.name"] } == ["open", "deviceInfo", "serialNumber", "traceNumber", "updateWorkKeys"])
        #expect(commands.allSatisfy { $0.traceId == root.traceId && $0.attributes["ble.mtu"] == 23 && $0.attributes["ble.peer.id"] != "" })
        // Step spans follow each other in time; the chain ends after the server answered.
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.end.timeIntervalSince($1.start) <= 1e-6 })
        try world.world.tearDown()
    }

    @Test("card transaction, second authorization, IC parameters and a cancel that ends a waiting transaction", arguments: [true, false])
    func transactionFlow(framed: Bool) throws {
        let peripheral: SimulatedPeripheral = framed ? FramedTerminalPeripheral() : TLVTerminalPeripheral()
        let world = TerminalWorld(peripheral)
        _ = try #require(try? world.connect()?.get())
        let adapter = try #require(world.terminal.adapter)
        let request = CardTransactionRequest(amountMinor: 12_345, currencyCode: 978)
        let card = try #require(world.run { done in adapter.startCardTransaction(request, trace: nil) { done($0) } })
        #expect((try? card.get())?.maskedPAN == "476173******0010")
        let second = try #require(world.run { done in adapter.secondAuthorization([0x30, 0x30], trace: nil) { done($0) } })
        #expect((try? second.get())?.approved == true)
        let parameters = try #require(world.run { done in adapter.updateICParameters([0x9F, 0x06, 0x01, 0xA0], trace: nil) { done($0) } })
        #expect((try? parameters.get()) != nil)

        var waiting: Result<CardTransactionResult, DeviceError>?
        adapter.startCardTransaction(request, trace: nil) { waiting = $0 }
        world.world.scheduler.advanceTime(byMilliseconds: 200)
        let cancelled = try #require(world.run { done in adapter.cancel(trace: nil) { done($0) } })
        #expect((try? cancelled.get()) != nil)
        world.world.scheduler.run(until: { waiting != nil }, timeLimitMs: 10_000)
        #expect(waiting.map { if case .failure(.cancelled("startCardTransaction")) = $0 { return true } else { return false } } == true)
        try world.world.tearDown()
    }

    @Test("the server's rejection ends the chain with a typed error, not connected, and the link closed")
    func serverRejects() throws {
        let world = TerminalWorld(FramedTerminalPeripheral(), verdict: .success(.rejected(reason: "terminal not registered")))
        let result = try #require(world.connect())
        #expect(result == .failure(.serverRejected(reason: "terminal not registered")))
        #expect(!world.terminal.isConnected && world.terminal.status == .failed(.serverRejected(reason: "terminal not registered")))
        world.world.scheduler.runUntilIdle()
        #expect(world.world.connection.state == .idle)
        let step = try #require(world.world.recorder.spans.first { $0.name == "terminal.serverCheck" })
        #expect(step.status == .error)
        try world.world.scheduler.checkNoWorkLeft()
    }

    @Test("key check values that differ from the server's fail the chain")
    func keyMismatch() throws {
        let wrong = KeyCheckValues(pin: [0, 0, 0, 0], mac: [0, 0, 0, 0], data: [0, 0, 0, 0])
        let world = TerminalWorld(TLVTerminalPeripheral(), verdict: .success(.approvedWithKeyUpdate(Self.keys, expectedCheckValues: wrong)))
        #expect(world.connect() == .failure(.keyCheckMismatch))
        world.world.scheduler.runUntilIdle()
        try world.world.scheduler.checkNoWorkLeft()
    }

    @Test("a terminal that ignores a command, or answers only with corrupted frames, fails that step with a typed timeout; noise before answers is skipped",
          arguments: [true, false])
    func badTerminal(framed: Bool) throws {
        func peripheral() -> (SimulatedPeripheral, SimulatedTerminalBehavior) {
            if framed {
                let terminal = FramedTerminalPeripheral()
                return (terminal, terminal.behavior)
            }
            let terminal = TLVTerminalPeripheral()
            return (terminal, terminal.behavior)
        }
        // Noise before every answer: skipped by the reassembler, the chain still completes.
        let (noisy, noisyBehavior) = peripheral()
        noisyBehavior.noiseBeforeReplies = [0xAA, 0x02, 0x55, 0x13, 0x02, 0xFF, 0xFF, 0x00]
        let noisyWorld = TerminalWorld(noisy)
        #expect((try? noisyWorld.connect()?.get()) != nil)
        #expect((noisyWorld.terminal.adapter?.malformedMessages ?? 0) > 0)
        try noisyWorld.world.tearDown()

        // Silent on `serialNumber`.
        let (silent, silentBehavior) = peripheral()
        silentBehavior.silentCommands = ["serialNumber"]
        let silentWorld = TerminalWorld(silent)
        #expect(silentWorld.connect() == .failure(.step(.serialNumber, .timedOut(command: "serialNumber", afterMs: 3_000))))
        silentWorld.world.scheduler.runUntilIdle()
        try silentWorld.world.scheduler.checkNoWorkLeft()

        // Every answer corrupted: the first command times out.
        let (corrupt, corruptBehavior) = peripheral()
        corruptBehavior.corruptReplies = true
        let corruptWorld = TerminalWorld(corrupt)
        #expect(corruptWorld.connect() == .failure(.step(.open, .timedOut(command: "open", afterMs: 3_000))))
        corruptWorld.world.scheduler.runUntilIdle()
        try corruptWorld.world.scheduler.checkNoWorkLeft()
    }

    @Test("a terminal that refuses to open fails the open step with its status")
    func openRefused() {
        let terminal = FramedTerminalPeripheral()
        terminal.behavior.openStatus = 0x21
        let world = TerminalWorld(terminal)
        #expect(world.connect() == .failure(.step(.open, .rejected(command: "open", status: 0x21))))
    }

    @Test("losing the link mid-chain fails with linkLost; losing it after connected returns the status to disconnected")
    func linkLoss() throws {
        let terminal = TLVTerminalPeripheral()
        terminal.behavior.processingDelayMs = 400
        let world = TerminalWorld(terminal)
        var result: Result<PaymentTerminal.Identity, PaymentTerminalError>?
        world.terminal.connect { result = $0 }
        world.world.scheduler.run(until: { world.terminal.status == .connecting(.deviceInfo) }, timeLimitMs: 30_000)
        world.world.transport.dropLink(to: "terminal-tlv")
        world.world.scheduler.run(until: { result != nil }, timeLimitMs: 30_000)
        #expect(result == .failure(.linkLost))

        world.world.scheduler.run(until: { world.world.connection.state.isReady }, timeLimitMs: 30_000)
        #expect((try? world.connect()?.get()) != nil)
        world.world.transport.dropLink(to: "terminal-tlv")
        world.world.scheduler.run(until: { !world.world.connection.state.isReady }, timeLimitMs: 30_000)
        #expect(world.terminal.status == .disconnected && world.terminal.adapter == nil)
        try world.world.tearDown()
    }
}
