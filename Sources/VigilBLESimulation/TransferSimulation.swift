import Foundation
import VigilBLE
import VigilCore

/// Runs one transfer end to end on a simulated link — connect, transfer, verify byte for
/// byte, disconnect — and measures it against the streaming bound. Used by `vigil ble bench`,
/// the benchmark suite and the tests.
public struct TransferSimulation: Sendable {
    /// Radio and host model.
    public var parameters: SimulationParameters
    /// Injected faults.
    public var faults: LinkFaults
    /// Sender configuration (mode, window, timeouts).
    public var transfer: TransferConfiguration
    /// Peer configuration.
    public var receiver: TransferReceiverConfiguration
    /// Payload size in bytes.
    public var bytes: Int
    /// Seed of everything random: payload, radio, faults, jitter, ids.
    public var seed: UInt64
    /// Connection timeouts and reconnect policy.
    public var connection: ConnectionConfiguration

    /// A run description.
    public init(parameters: SimulationParameters = SimulationParameters(), faults: LinkFaults = .none,
                transfer: TransferConfiguration = TransferConfiguration(), receiver: TransferReceiverConfiguration? = nil,
                bytes: Int, seed: UInt64 = 1, connection: ConnectionConfiguration? = nil) {
        self.parameters = parameters
        self.faults = faults
        self.transfer = transfer
        self.receiver = receiver ?? TransferReceiverConfiguration(maxTransferBytes: UInt64(max(bytes, 1)) * 2,
                                                                  maxChunkSize: 512, receiveWindow: 128,
                                                                  maxNotificationLength: parameters.link.maxWriteValueLength)
        self.bytes = bytes
        self.seed = seed
        self.connection = connection ?? ConnectionConfiguration(reconnect: ReconnectPolicy(maxAttempts: 8, initialDelayMs: 100), seed: seed)
    }

    /// What a run produced.
    public struct Outcome: Sendable {
        /// The sender's result.
        public var result: Result<TransferReport, TransferError>?
        /// Whether the peer holds exactly the payload.
        public var byteExact: Bool
        /// The streaming bound for the parameters (bytes/s).
        public var boundBytesPerSecond: Double
        /// The link's state when the transfer ended.
        public var connectionStateAtEnd: ConnectionState
        /// Radio statistics.
        public var statistics: SimulationStatistics
        /// Spans recorded.
        public var spans: [SpanPayload]
        /// Virtual time the transfer took (s), START to DONE or to the failure.
        public var virtualSeconds: Double
        /// Real time the whole run took (s).
        public var realSeconds: Double
        /// CPU time the whole run took on its thread (s): what the run costs, whatever else
        /// the machine is doing.
        public var cpuSeconds: Double
        /// Tasks left on the scheduler after the closing disconnect (should be none).
        public var leftoverTasks: [String]
        /// Most out-of-order bytes the peer held.
        public var peerPeakHeldBytes: Int
        /// Bad input the peer refused.
        public var peerRejections: [TransferReceiverError]
        /// Scheduler tasks the run executed (its cost in simulation steps).
        public var executedTasks: Int

        /// Goodput (bytes/s), zero on failure.
        public var goodputBytesPerSecond: Double {
            if case .success(let report)? = result { return report.goodputBytesPerSecond }
            return 0
        }
        /// Goodput over the bound.
        public var ratio: Double { boundBytesPerSecond > 0 ? goodputBytesPerSecond / boundBytesPerSecond : 0 }
        /// Retransmitted chunks.
        public var retransmissions: Int {
            if case .success(let report)? = result { return report.retransmissions }
            return 0
        }
        /// Whether the transfer succeeded, the peer's hash check passed, and the bytes match.
        public var verified: Bool {
            if case .success(let report)? = result { return report.verified && byteExact }
            return false
        }
    }

    /// Runs the transfer; `timeLimitMs` bounds virtual time (a run never hangs).
    public func run(timeLimitMs: Double? = nil) -> Outcome {
        let realStart = DispatchTime.now().uptimeNanoseconds
        let cpuStart = Self.threadCPUSeconds()
        let scheduler = VirtualTimeScheduler()
        let transport = SimulatedTransport(scheduler: scheduler, parameters: parameters, faults: faults, seed: seed ^ 0x5EED)
        let peer = TransferPeerPeripheral(configuration: receiver)
        transport.add(peer)
        let recorder = RecordingSpanRecorder()
        let tracer = LinkTracer(recorder: recorder, clock: scheduler.clock, seed: seed)
        let connection = BLEConnection(transport: transport, scheduler: scheduler, configuration: connection, tracer: tracer)
        var generator = SeededGenerator(seed: seed)
        var payload = [UInt8](repeating: 0, count: bytes)
        payload.withUnsafeMutableBytes { raw in
            var index = 0
            while index < raw.count {
                var word = generator.next()
                for _ in 0..<8 where index < raw.count {
                    raw[index] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    index += 1
                }
            }
        }
        var configuration = transfer
        if configuration.transferId == nil { configuration.transferId = UInt32(truncatingIfNeeded: generator.next()) | 1 }
        let bound = StreamingBound(parameters.link)
        let limit = timeLimitMs ?? defaultTimeLimitMs(bound: bound)

        var result: Result<TransferReport, TransferError>?
        var stateAtEnd = ConnectionState.idle
        var transferStart = scheduler.now
        do {
            try connection.connect(to: .service(TransferService.profile))
        } catch {
            result = .failure(.notConnected(state: error.description))
        }
        if result == nil {
            scheduler.run(until: { connection.state.isReady || connection.state == .idle }, timeLimitMs: 60_000)
            transferStart = scheduler.now
            let sender = TransferSender(connection: connection, characteristic: TransferService.characteristic, payload: payload,
                                        configuration: configuration) { outcome in
                result = outcome
                stateAtEnd = connection.state
            }
            sender.start()
            scheduler.run(until: { result != nil }, timeLimitMs: limit)
            if result == nil {
                sender.cancel()
                result = .failure(.peerSilent(phase: "simulation time limit", afterMs: limit))
            }
        }
        let virtualSeconds = Double(scheduler.now.nanoseconds(since: transferStart)) / 1e9
        connection.disconnect()
        scheduler.runUntilIdle(timeLimitMs: 120_000)
        let realSeconds = Double(DispatchTime.now().uptimeNanoseconds - realStart) / 1e9
        let cpuSeconds = Self.threadCPUSeconds() - cpuStart
        return Outcome(result: result, byteExact: peer.received == payload, boundBytesPerSecond: bound.bytesPerSecond,
                       connectionStateAtEnd: stateAtEnd, statistics: transport.statistics, spans: recorder.spans,
                       virtualSeconds: virtualSeconds, realSeconds: realSeconds, cpuSeconds: cpuSeconds,
                       leftoverTasks: scheduler.pendingTaskLabels,
                       peerPeakHeldBytes: peer.peakHeldBytes, peerRejections: peer.rejections,
                       executedTasks: scheduler.executedTaskCount)
    }

    private static func threadCPUSeconds() -> Double {
        var spec = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec) == 0 else { return 0 }
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    private func defaultTimeLimitMs(bound: StreamingBound) -> Double {
        // Generous: a stop-and-wait transfer at 1% of the bound, plus every timeout.
        let seconds = Double(max(bytes, 1)) / max(bound.bytesPerSecond * 0.01, 1)
        return seconds * 1000 + 600_000
    }
}
