import Foundation
import Testing
import VigilBLE
import VigilBLESimulation
import VigilCore

@Suite("Authenticated terminal sessions in the simulator, clean and under a man in the middle")
struct AuthenticatedSessionTests {
    @Test("clean link: the chain, IC parameters, the transaction and the second authorization all complete, authenticated, nothing refused")
    func cleanPath() throws {
        let outcome = TerminalSessionSimulation(seed: 4).run()
        let identity = try #require(try? outcome.connect?.get())
        #expect(identity.vendor == "framed-aa55")
        #expect(outcome.completed)
        #expect(outcome.refusedCount == 0 && outcome.forgedCount == 0 && !outcome.attackRejected)
        #expect(try outcome.transaction?.get().maskedPAN == "476173******0010")
        #expect(outcome.terminalOperations.contains(.startTransaction(TerminalSessionSimulation.transaction)))
        #expect(outcome.terminalOperations.contains(.icParameters(TerminalSessionSimulation.icParameters)))
        // Open, info, serial, trace and the key update plain; the three later commands sealed.
        #expect(outcome.terminalLog.count == 8 && outcome.terminalLog.allSatisfy(\.accepted))
        #expect(outcome.leftoverTasks.isEmpty)
    }

    @Test("a flipped amount byte with a fixed checksum is refused for its tag; the terminal never starts the transaction")
    func flip() {
        let outcome = TerminalSessionSimulation(attack: .flip, seed: 4).run()
        #expect(outcome.attackRejected)
        #expect(outcome.forgedCount == 1 && outcome.refusedCount == 1)
        #expect(outcome.terminalLog.first { !$0.accepted }?.refusal == .badTag)
        guard case .failure(let error)? = outcome.transaction else { Issue.record("transaction did not fail"); return }
        #expect(error == .authenticationRejected(command: "startCardTransaction", .badTag))
        #expect(!outcome.terminalOperations.contains { if case .startTransaction = $0 { return true } else { return false } })
        #expect(!outcome.completed)
        // The parameters sent beside it were not touched and still loaded.
        #expect(outcome.icParameters.map { (try? $0.get()) != nil } == true)
    }

    @Test("a replayed card-transaction command is refused as stale; the terminal ran the transaction exactly once and the session completes")
    func replay() {
        let outcome = TerminalSessionSimulation(attack: .replay, seed: 4).run()
        #expect(outcome.attackRejected)
        #expect(outcome.forgedCount == 1 && outcome.refusedCount == 1)
        guard case .staleCounter? = outcome.terminalLog.first(where: { !$0.accepted })?.refusal else {
            Issue.record("the replay was not refused as stale"); return
        }
        #expect(outcome.terminalOperations.filter { if case .startTransaction = $0 { return true } else { return false } }.count == 1)
        #expect(outcome.completed)
    }

    @Test("two commands swapped in flight: the one that arrives late is refused as stale and never acted on")
    func reorder() {
        let outcome = TerminalSessionSimulation(attack: .reorder, seed: 4).run()
        #expect(outcome.attackRejected)
        #expect(outcome.forgedCount == 1 && outcome.refusedCount == 1)
        // The transaction overtook the IC parameters; the parameters arrived late and were refused.
        #expect(outcome.terminalLog.suffix(3).map(\.command) == [0x20, 0x11, 0x21])
        #expect(outcome.terminalLog.suffix(3).map(\.accepted) == [true, false, true])
        guard case .failure(let error)? = outcome.icParameters else { Issue.record("the parameters did not fail"); return }
        #expect(error == .authenticationRejected(command: "updateICParameters", .staleCounter(received: 0, lastAccepted: 0)))
        #expect(!outcome.terminalOperations.contains { if case .icParameters = $0 { return true } else { return false } })
        #expect(outcome.transaction.map { (try? $0.get()) != nil } == true)
    }

    @Test("a flipped byte in the terminal's answer, checksum fixed, is refused by the phone: the transaction fails and nothing follows from it")
    func flippedAnswer() {
        let outcome = TerminalSessionSimulation(attack: .flipAnswer, seed: 4).run()
        #expect(outcome.attackRejected)
        #expect(outcome.forgedAnswers == 1 && outcome.refusedAnswers == 1 && outcome.refusedCount == 0)
        guard case .failure(let error)? = outcome.transaction else { Issue.record("the forged answer was used"); return }
        #expect(error == .unauthenticatedResponse(command: "startCardTransaction", .badTag))
        #expect(outcome.secondAuthorization == nil)
    }

    @Test("the same relay against a terminal without authentication: the flipped amount is acted on (why the tags exist)")
    func flipWithoutAuthentication() throws {
        let peripheral = FramedTerminalPeripheral()
        let world = DeviceTests.TerminalWorld(peripheral)
        // No counter in a plain frame: the amount's low byte is payload byte 7.
        world.world.transport.manInTheMiddle = ManInTheMiddle(attack: .flip, flipOffset: 7)
        _ = try #require(try? world.connect()?.get())
        let adapter = try #require(world.terminal.adapter)
        let result = world.run { done in adapter.startCardTransaction(TerminalSessionSimulation.transaction, trace: nil) { done($0) } }
        #expect((try? result?.get()) != nil)
        var forged = TerminalSessionSimulation.transaction
        forged.amountMinor = 1_251
        #expect(peripheral.behavior.received.contains(.startTransaction(forged)))
        #expect(!peripheral.behavior.received.contains(.startTransaction(TerminalSessionSimulation.transaction)))
    }

    @Test("a command before the key update is refused as noSessionKey and not acted on")
    func commandBeforeKey() throws {
        let peripheral = AuthenticatingTerminalPeripheral(masterKey: [UInt8](repeating: 5, count: 16))
        let world = SimulatedWorld(peripherals: [peripheral])
        try world.connection.connect(to: .service(FramedTerminalAdapter.profile))
        world.scheduler.run(until: { world.connection.state.isReady }, timeLimitMs: 60_000)
        let adapter = FramedTerminalAdapter(connection: world.connection)
        var result: Result<CardTransactionResult, DeviceError>?
        adapter.startCardTransaction(TerminalSessionSimulation.transaction, trace: nil) { result = $0 }
        world.scheduler.run(until: { result != nil }, timeLimitMs: 60_000)
        guard case .failure(let error)? = result else { Issue.record("no refusal: \(String(describing: result))"); return }
        #expect(error == .authenticationRejected(command: "startCardTransaction", .noSessionKey))
        #expect(peripheral.behavior.received.isEmpty && !adapter.isAuthenticated)
        try world.tearDown()
    }

    @Test("a MAC key that differs from the terminal's fails the key update on the confirmation tag; the chain ends")
    func wrongMACKey() throws {
        let master = [UInt8](repeating: 5, count: 16)
        let peripheral = AuthenticatingTerminalPeripheral(masterKey: master)
        let keys = WorkKeys(pinKey: [UInt8](repeating: 1, count: 16), macKey: [UInt8](repeating: 2, count: 16), dataKey: [UInt8](repeating: 3, count: 16))
        let world = DeviceTests.TerminalWorld(peripheral, verdict: .success(.approvedWithAuthenticatedKeyUpdate(
            keys, expectedCheckValues: nil, macKey: [UInt8](repeating: 0xEE, count: 16))))
        guard case .failure(let error)? = world.connect() else { Issue.record("connected with a wrong key"); return }
        #expect(error == .step(.keyUpdate, .unauthenticatedResponse(command: "updateWorkKeys", .keyConfirmationFailed)))
        #expect(!world.terminal.isConnected)
    }

    @Test("the right MAC key makes the adapter authenticated; a new link starts without a session on both ends")
    func sessionPerLink() throws {
        let master = [UInt8](repeating: 5, count: 16)
        let peripheral = AuthenticatingTerminalPeripheral(masterKey: master)
        let clearMAC = [UInt8](repeating: 2, count: 16)
        let keys = WorkKeys(pinKey: [UInt8](repeating: 1, count: 16), macKey: AuthenticatingTerminalPeripheral.wrapKey(clearMAC, masterKey: master),
                            dataKey: [UInt8](repeating: 3, count: 16))
        let world = DeviceTests.TerminalWorld(peripheral, verdict: .success(.approvedWithAuthenticatedKeyUpdate(keys, expectedCheckValues: nil, macKey: clearMAC)))
        _ = try #require(try? world.connect()?.get())
        let adapter = try #require(world.terminal.adapter as? FramedTerminalAdapter)
        #expect(adapter.isAuthenticated && peripheral.commandGuard.key != nil)
        world.world.transport.dropLink(to: peripheral.identifier)
        world.world.scheduler.run(until: { !world.world.connection.state.isReady }, timeLimitMs: 10_000)
        #expect(!adapter.isAuthenticated && peripheral.commandGuard.key == nil)
    }

    @Test("a plain key update (no nonce) to a terminal that requires authentication is refused with a typed error")
    func plainKeyUpdateRefused() {
        let peripheral = AuthenticatingTerminalPeripheral(masterKey: [UInt8](repeating: 5, count: 16))
        let world = DeviceTests.TerminalWorld(peripheral, verdict: .success(.approvedWithKeyUpdate(DeviceTests.keys, expectedCheckValues: nil)))
        guard case .failure(let error)? = world.connect() else { Issue.record("connected"); return }
        #expect(error == .step(.keyUpdate, .authenticationRejected(command: "updateWorkKeys", .noSessionKey)))
        #expect(peripheral.behavior.workKeys == nil && peripheral.commandGuard.key == nil)
    }

    @Test("a session key never prints its bytes")
    func keyDescription() {
        #expect("\(SessionKey(bytes: [UInt8](repeating: 0xAB, count: 32)))" == "SessionKey(32 bytes)")
    }

    @Test("re-keying within a link: the second key update runs sealed under the first key, and commands restart at counter 1 under the new one")
    func rekey() throws {
        let master = [UInt8](repeating: 5, count: 16)
        let peripheral = AuthenticatingTerminalPeripheral(masterKey: master)
        let clearMAC = [UInt8](repeating: 2, count: 16)
        let keys = WorkKeys(pinKey: [UInt8](repeating: 1, count: 16), macKey: AuthenticatingTerminalPeripheral.wrapKey(clearMAC, masterKey: master),
                            dataKey: [UInt8](repeating: 3, count: 16))
        let world = DeviceTests.TerminalWorld(peripheral, verdict: .success(.approvedWithAuthenticatedKeyUpdate(keys, expectedCheckValues: nil, macKey: clearMAC)))
        _ = try #require(try? world.connect()?.get())
        let adapter = try #require(world.terminal.adapter as? FramedTerminalAdapter)
        let firstKey = try #require(peripheral.commandGuard.key)
        _ = try #require(try world.run { done in adapter.updateWorkKeys(keys, authenticatingWith: clearMAC, trace: nil) { done($0) } }?.get())
        let secondKey = try #require(peripheral.commandGuard.key)
        #expect(firstKey != secondKey)
        // The re-key was itself an authenticated command (counter 1 under the first key).
        #expect(peripheral.log.last?.accepted == true && peripheral.log.last.map { $0.bytes.count == 2 + 3 + 4 + 64 + 16 + 2 } == true)
        _ = try #require(try world.run { done in adapter.startCardTransaction(TerminalSessionSimulation.transaction, trace: nil) { done($0) } }?.get())
        #expect(peripheral.commandGuard.lastAcceptedCounter == 1)
    }

    @Test("a family without an authenticated mode fails the key update step with authenticationUnsupported")
    func unsupportedFamily() {
        let keys = DeviceTests.keys
        let world = DeviceTests.TerminalWorld(TLVTerminalPeripheral(), verdict: .success(.approvedWithAuthenticatedKeyUpdate(keys, expectedCheckValues: nil, macKey: keys.macKey)))
        guard case .failure(let error)? = world.connect() else { Issue.record("connected"); return }
        #expect(error == .step(.keyUpdate, .authenticationUnsupported(vendor: "tlv-crc16")))
    }
}
