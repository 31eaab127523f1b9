import VigilBLE
import VigilCore

/// What a simulated card terminal does, whatever its wire format: it answers each operation
/// after a processing delay, waits for a "card" on a transaction (which a cancel ends), keeps a
/// trace counter, stores keys and IC parameters, and can misbehave on request (stay silent on
/// chosen commands, put noise before its answers, corrupt them).
public final class SimulatedTerminalBehavior {
    /// One request, decoded from either wire format.
    public enum Operation: Sendable, Hashable {
        case open, deviceInfo, serialNumber, traceNumber
        case workKeys(WorkKeys)
        case icParameters([UInt8])
        case startTransaction(CardTransactionRequest)
        case secondAuthorization([UInt8])
        case cancel

        /// The command the operation is.
        public var command: TerminalCommand {
            switch self {
            case .open: return .open
            case .deviceInfo: return .deviceInfo
            case .serialNumber: return .serialNumber
            case .traceNumber: return .traceNumber
            case .workKeys: return .updateWorkKeys
            case .icParameters: return .updateICParameters
            case .startTransaction: return .startCardTransaction
            case .secondAuthorization: return .secondAuthorization
            case .cancel: return .cancel
            }
        }

        /// The command name (as the adapters name their spans).
        public var name: String { command.name }
    }

    /// One answer, encoded by the wire format.
    public enum Reply: Sendable, Hashable {
        case ok
        case info(TerminalInfo)
        case serial(String)
        case traceNumber(UInt32)
        case checkValues(KeyCheckValues)
        case card(CardTransactionResult)
        case secondAuthorization(SecondAuthorizationResult)
        /// A non-zero status (6 = cancelled).
        case status(UInt8)
    }

    /// Model and firmware reported.
    public var info = TerminalInfo(model: "SIM-T100", firmware: "4.2.1")
    /// Serial number reported.
    public var serialNumber: String
    /// The next trace number; incremented by each read.
    public var traceNumber: UInt32 = 1_000
    /// How long each command takes (ms).
    public var processingDelayMs: Double = 15
    /// How long the "customer" takes to present a card (ms).
    public var cardPresentationDelayMs: Double = 800
    /// The card presented.
    public var card = CardTransactionResult(entryMode: .chip, maskedPAN: "476173******0010",
                                            icData: [0x9F, 0x26, 0x08, 0x1A, 0x2B, 0x3C, 0x4D, 0x5E, 0x6F, 0x70, 0x81])
    /// Commands (by name) the terminal never answers.
    public var silentCommands: Set<String> = []
    /// A status to answer `open` with (nil: OK).
    public var openStatus: UInt8?
    /// Bytes of noise sent before every answer.
    public var noiseBeforeReplies: [UInt8] = []
    /// Whether answers are sent with a damaged checksum (and so must be dropped by the phone).
    public var corruptReplies = false
    /// Keys loaded.
    public private(set) var workKeys: WorkKeys?
    /// IC parameters loaded.
    public private(set) var icParameters: [UInt8] = []
    /// Every operation received, in order.
    public private(set) var received: [Operation] = []

    private var pendingTransaction: (task: ScheduledTask, reply: (Reply) -> Void)?

    /// A terminal with `serialNumber`.
    public init(serialNumber: String) { self.serialNumber = serialNumber }

    /// The check value the simulated terminal computes for a key: the first four bytes of its
    /// SHA-256 (real terminals encrypt a zero block; any deterministic function serves here).
    public static func checkValue(_ key: [UInt8]) -> [UInt8] { Array(SHA256Hasher.hash(key).prefix(4)) }

    /// Handles `operation`, answering through `reply` later on `scheduler`.
    public func handle(_ operation: Operation, scheduler: VirtualTimeScheduler, reply: @escaping (Reply) -> Void) {
        received.append(operation)
        guard !silentCommands.contains(operation.name) else { return }
        let answer: Reply
        switch operation {
        case .open: answer = openStatus.map(Reply.status) ?? .ok
        case .deviceInfo: answer = .info(info)
        case .serialNumber: answer = .serial(serialNumber)
        case .traceNumber:
            answer = .traceNumber(traceNumber)
            traceNumber &+= 1
        case .workKeys(let keys):
            workKeys = keys
            answer = .checkValues(KeyCheckValues(pin: Self.checkValue(keys.pinKey), mac: Self.checkValue(keys.macKey),
                                                 data: Self.checkValue(keys.dataKey)))
        case .icParameters(let parameters):
            icParameters = parameters
            answer = .ok
        case .startTransaction:
            pendingTransaction?.task.cancel()
            let card = self.card
            let task = scheduler.schedule(afterMilliseconds: processingDelayMs + cardPresentationDelayMs, label: "terminal: card presented") { [weak self] in
                self?.pendingTransaction = nil
                reply(.card(card))
            }
            pendingTransaction = (task, reply)
            return
        case .secondAuthorization(let issuerResponse):
            answer = .secondAuthorization(SecondAuthorizationResult(approved: issuerResponse.first == 0x30,
                                                                    scriptResults: [0x9F, 0x5B, 0x01, 0x00]))
        case .cancel:
            if let pending = pendingTransaction {
                pending.task.cancel()
                pendingTransaction = nil
                scheduler.schedule(afterMilliseconds: processingDelayMs, label: "terminal: transaction cancelled") { pending.reply(.status(0x06)) }
            }
            answer = .ok
        }
        scheduler.schedule(afterMilliseconds: processingDelayMs, label: "terminal: reply \(operation.name)") { reply(answer) }
    }

    /// Forgets a waiting transaction (the link dropped).
    public func linkDropped() {
        pendingTransaction?.task.cancel()
        pendingTransaction = nil
    }
}
