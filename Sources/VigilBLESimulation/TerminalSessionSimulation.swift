import Foundation
import VigilBLE
import VigilCore

/// Runs one payment-terminal session end to end on a simulated link with authenticated
/// commands, optionally with a ``ManInTheMiddle`` on the link: the connect chain (with the
/// authenticated key update), then IC parameters and a card transaction sent back to back, then
/// the second authorization. A flip or a replay attacks the card transaction, a flip of an
/// answer the terminal's answer to it; a reorder holds the IC parameters back behind it. Used by
/// `vigil ble bench --attack` and the tests.
public struct TerminalSessionSimulation: Sendable {
    /// Radio and host model.
    public var parameters: SimulationParameters
    /// The attack (nil: a clean link).
    public var attack: ManInTheMiddle.Attack?
    /// Seed of keys, radio and terminal nonces.
    public var seed: UInt64

    /// A run description.
    public init(parameters: SimulationParameters = SimulationParameters(), attack: ManInTheMiddle.Attack? = nil, seed: UInt64 = 1) {
        self.parameters = parameters
        self.attack = attack
        self.seed = seed
    }

    /// The IC parameters the session loads.
    public static let icParameters: [UInt8] = [0x9F, 0x06, 0x07, 0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10]
    /// The card transaction the session starts: 12.50 EUR.
    public static let transaction = CardTransactionRequest(amountMinor: 1_250, currencyCode: 978)

    /// What a session produced.
    public struct Outcome: Sendable {
        /// The attack run (nil: none).
        public var attack: ManInTheMiddle.Attack?
        /// The connect chain's result.
        public var connect: Result<PaymentTerminal.Identity, PaymentTerminalError>?
        /// The IC parameter update's result.
        public var icParameters: Result<Void, DeviceError>?
        /// The card transaction's result.
        public var transaction: Result<CardTransactionResult, DeviceError>?
        /// The second authorization's result (sent only after a card was read).
        public var secondAuthorization: Result<SecondAuthorizationResult, DeviceError>?
        /// Every frame the relay passed to the terminal, in order (empty without an attack).
        public var relayed: [ManInTheMiddle.RelayedFrame]
        /// Answers the relay changed.
        public var forgedAnswers: Int
        /// Every request frame the terminal received, with its verdict.
        public var terminalLog: [AuthenticatingTerminalPeripheral.LoggedFrame]
        /// The operations the terminal acted on.
        public var terminalOperations: [SimulatedTerminalBehavior.Operation]
        /// Virtual time from the first connect to the last answer (s).
        public var virtualSeconds: Double
        /// Tasks left on the scheduler after the closing disconnect (should be none).
        public var leftoverTasks: [String]

        /// Frames the relay forged.
        public var forgedCount: Int { relayed.filter(\.forged).count }
        /// Frames the terminal refused.
        public var refusedCount: Int { terminalLog.filter { !$0.accepted }.count }
        /// Answers the phone refused as unauthenticated (each failed its command).
        public var refusedAnswers: Int {
            func refused<T>(_ result: Result<T, DeviceError>?) -> Int {
                if case .failure(.unauthenticatedResponse)? = result { return 1 }
                return 0
            }
            let chain: Int
            if case .failure(.step(_, .unauthenticatedResponse))? = connect { chain = 1 } else { chain = 0 }
            return chain + refused(icParameters) + refused(transaction) + refused(secondAuthorization)
        }
        /// Whether every step of the session succeeded.
        public var completed: Bool {
            guard case .success? = connect, case .success? = icParameters, case .success? = transaction,
                  case .success? = secondAuthorization else { return false }
            return true
        }
        /// True when the relay forged at least one frame, the terminal saw exactly the frames
        /// relayed in the same order, and refused every forged one (so acted on none of them);
        /// for a forged answer, when the phone refused every one (and so used none).
        public var attackRejected: Bool {
            if attack == .flipAnswer { return forgedAnswers > 0 && refusedAnswers == forgedAnswers }
            guard forgedCount > 0, relayed.map(\.bytes) == terminalLog.map(\.bytes) else { return false }
            return zip(relayed, terminalLog).allSatisfy { !$0.forged || !$1.accepted }
        }
    }

    /// Runs the session; `timeLimitMs` bounds virtual time per phase.
    public func run(timeLimitMs: Double = 180_000) -> Outcome {
        let scheduler = VirtualTimeScheduler()
        let transport = SimulatedTransport(scheduler: scheduler, parameters: parameters, faults: .none, seed: seed ^ 0x5EED)
        var generator = SeededGenerator(seed: seed)
        func key() -> [UInt8] { (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) } }
        let masterKey = key()
        let peripheral = AuthenticatingTerminalPeripheral(masterKey: masterKey, seed: seed)
        transport.add(peripheral)
        // Flip, replay and a flipped answer attack the card transaction; reorder holds back the
        // IC parameters (sent just before it) so that the transaction overtakes them.
        let relay = attack.map { attack in
            ManInTheMiddle(attack: attack, target: FramedTerminalAdapter.code(of: attack == .reorder ? .updateICParameters : .startCardTransaction))
        }
        transport.manInTheMiddle = relay
        let connection = BLEConnection(transport: transport, scheduler: scheduler,
                                       configuration: ConnectionConfiguration(reconnect: ReconnectPolicy(maxAttempts: 4, initialDelayMs: 100), seed: seed),
                                       tracer: LinkTracer(recorder: RecordingSpanRecorder(), clock: scheduler.clock, seed: seed))

        // The payment server's side: clear work keys, their encrypted form for the terminal,
        // the check values it expects, and the MAC key in clear for the app (over TLS).
        let clear = WorkKeys(pinKey: key(), macKey: key(), dataKey: key())
        let loaded = WorkKeys(pinKey: AuthenticatingTerminalPeripheral.wrapKey(clear.pinKey, masterKey: masterKey),
                              macKey: AuthenticatingTerminalPeripheral.wrapKey(clear.macKey, masterKey: masterKey),
                              dataKey: AuthenticatingTerminalPeripheral.wrapKey(clear.dataKey, masterKey: masterKey))
        let expected = KeyCheckValues(pin: SimulatedTerminalBehavior.checkValue(loaded.pinKey),
                                      mac: SimulatedTerminalBehavior.checkValue(loaded.macKey),
                                      data: SimulatedTerminalBehavior.checkValue(loaded.dataKey))
        let verdict = ServerVerdict.approvedWithAuthenticatedKeyUpdate(loaded, expectedCheckValues: expected, macKey: clear.macKey)
        let terminal = PaymentTerminal(connection: connection) { _, answer in
            scheduler.schedule(afterMilliseconds: 120, label: "server check") { answer(.success(verdict)) }
        }

        let start = scheduler.now
        var outcome = Outcome(attack: attack, relayed: [], forgedAnswers: 0, terminalLog: [], terminalOperations: [], virtualSeconds: 0, leftoverTasks: [])
        terminal.connect { outcome.connect = $0 }
        scheduler.run(until: { outcome.connect != nil }, timeLimitMs: timeLimitMs)
        if case .success? = outcome.connect, let adapter = terminal.adapter {
            var finished = false
            // Sent back to back: the app does not wait for the parameters before starting the
            // transaction (which is what lets a relay reorder them).
            adapter.updateICParameters(Self.icParameters, trace: nil) { outcome.icParameters = $0 }
            adapter.startCardTransaction(Self.transaction, trace: nil) { result in
                outcome.transaction = result
                guard case .success = result else { return finished = true }
                adapter.secondAuthorization([0x30, 0x30], trace: nil) { result in
                    outcome.secondAuthorization = result
                    finished = true
                }
            }
            scheduler.run(until: { finished && outcome.icParameters != nil }, timeLimitMs: timeLimitMs)
        }
        outcome.virtualSeconds = Double(scheduler.now.nanoseconds(since: start)) / 1e9
        terminal.disconnect()
        scheduler.runUntilIdle(timeLimitMs: 120_000)
        outcome.relayed = relay?.relayed ?? []
        outcome.forgedAnswers = relay?.forgedAnswers ?? 0
        outcome.terminalLog = peripheral.log
        outcome.terminalOperations = peripheral.behavior.received
        outcome.leftoverTasks = scheduler.pendingTaskLabels
        return outcome
    }
}
