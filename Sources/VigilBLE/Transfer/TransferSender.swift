import VigilCore

/// Sends one payload to a peer over a ``BLEConnection`` with the reliable-transfer protocol
/// (docs/ble-protocol.md), in stop-and-wait or selective-repeat window mode.
///
/// - START (a Write Request) carries the size, chunk size, requested window and the SHA-256 of
///   the whole payload; the peer's START-ACK grants a window and says where to resume.
/// - Window mode sends Write Commands only while the stack reports room
///   (`canSendWriteWithoutResponse`), never into a full buffer, and keeps at most the window
///   of chunks beyond the cumulative ACK in flight. A chunk is resent when a chunk sent after
///   it was acknowledged while it was not (selective repeat), when a NACK names it, or when
///   its retransmission timeout expires (``RoundTripEstimator``: one sample per acknowledgement,
///   Karn's rule, exponential backoff).
/// - Stop-and-wait sends each chunk as a Write Request and the next after its ACK.
/// - When the link drops, the transfer pauses; when the connection is ready again it sends
///   START again and resumes from the peer's `resumeFrom` (the peer keeps what it verified).
/// - Success is reported only after the peer's DONE says the SHA-256 matched; every other end
///   is a ``TransferError``. Every wait has a timeout, so a transfer always ends.
/// - The transfer is a `ble.transfer` span (peer, MTU, mode, bytes, retransmissions, resumes,
///   result).
///
/// Confined to the connection's scheduler. Memory: the payload plus per-chunk state for the
/// window.
public final class TransferSender {
    /// The link.
    public let connection: BLEConnection
    /// The characteristic carrying the protocol (written to, notifying back).
    public let characteristic: BLEUUID
    /// Mode, window and timeouts.
    public let configuration: TransferConfiguration
    /// The transfer's id.
    public let transferId: UInt32

    private let payload: [UInt8]
    private let digest: [UInt8]
    private let completion: (Result<TransferReport, TransferError>) -> Void
    private var scheduler: any LinkScheduler { connection.scheduler }

    private enum Phase { case created, waitingForLink, starting, streaming, finishing, finished }

    /// Why a chunk is sent again: its timeout expired, or the peer's acknowledgements said it
    /// was missing (a later chunk acknowledged first, a NACK, an ATT refusal).
    private enum ResendCause { case timeout, fast }

    private struct Flight {
        var firstTransmission: UInt64
        var lastTransmission: UInt64
        var lastSent: MonotonicInstant
        var transmissions: Int
        var acknowledged = false
        var queued = false
        var resendCause = ResendCause.fast
    }

    private var phase = Phase.created
    private var session = 0
    private var chunkSize = 0
    private var chunkCount: UInt64 = 0
    private var width = SequenceWidth.two
    private var window: UInt64 = 1
    private var base: UInt64 = 0
    private var nextNew: UInt64 = 0
    private var sentHighWater: UInt64 = 0
    private var flights: [UInt64: Flight] = [:]
    private var retransmitQueue: [UInt64] = []
    private var retransmitHead = 0
    private var transmissionCounter: UInt64 = 0
    private var highestDeliveredTransmission: UInt64 = 0
    private var roundTrip: RoundTripEstimator
    /// The send time of the oldest chunk, sent once, that the acknowledgement being handled newly
    /// covers: its one round-trip sample.
    private var oldestNewlyAcknowledged: MonotonicInstant?
    private var rtoTimer: ScheduledTask?
    private var controlTimer: ScheduledTask?
    private var controlAttempts = 0
    private var lastHeard = MonotonicInstant(nanoseconds: 0)
    private var stopAndWaitOutstanding: UInt64?
    private var queryPending = false
    private var retransmissions = 0
    /// Chunks that expired with the one a timeout resent, kept back until the next
    /// acknowledgement shows whether they were lost (``settleSuspects()``).
    private var suspects: [UInt64] = []
    private var suspectsHadOneAck = false
    private var spuriousTimeouts = 0
    private var timeoutRetransmissions = 0
    private var resumes = 0
    private var malformed = 0
    private var started: MonotonicInstant?
    private var observer: ObserverToken?
    private var span: ActiveSpan?

    /// A sender of `payload`; `completion` runs exactly once, on the scheduler.
    public init(connection: BLEConnection, characteristic: BLEUUID, payload: [UInt8],
                configuration: TransferConfiguration = TransferConfiguration(),
                completion: @escaping (Result<TransferReport, TransferError>) -> Void) {
        self.connection = connection
        self.characteristic = characteristic
        self.configuration = configuration
        self.payload = payload
        self.digest = SHA256Hasher.hash(payload)
        self.completion = completion
        var random = SystemRandomNumberGenerator()
        self.transferId = configuration.transferId ?? max(1, UInt32.random(in: 1...UInt32.max, using: &random))
        self.roundTrip = RoundTripEstimator(initial: configuration.initialRetransmissionTimeoutMs * 1e6,
                                            minimum: configuration.minRetransmissionTimeoutMs * 1e6,
                                            maximum: configuration.maxRetransmissionTimeoutMs * 1e6)
    }

    /// Whether the transfer has ended.
    public var isFinished: Bool { phase == .finished }

    /// Chunks acknowledged contiguously so far, and the total.
    public var progress: (acknowledged: UInt64, total: UInt64) { (base, chunkCount) }

    /// Starts the transfer (its span parented under `trace`, or under the connection's
    /// attempt). If the link is not ready it waits for it, unless the connection is idle.
    public func start(trace: SpanContext? = nil) {
        guard phase == .created else { return }
        phase = .waitingForLink
        span = connection.tracer.startSpan("ble.transfer", parent: trace ?? connection.traceContext, kind: .producer, attributes: [
            "ble.transfer.mode": .string(configuration.mode.description),
            "ble.transfer.bytes": .int(Int64(payload.count)),
            "ble.transfer.id": .int(Int64(transferId)),
        ])
        observer = connection.addObserver(ConnectionObserver(
            stateChanged: { [weak self] state in self?.linkChanged(state) },
            valueReceived: { [weak self] uuid, bytes in self?.received(uuid, bytes) },
            readyToWrite: { [weak self] in self?.writeRoomAvailable() }))
        switch connection.state {
        case .ready: beginSession()
        case .idle:
            let state = connection.state.name
            scheduler.execute(label: "transfer refused") { [weak self] in self?.finish(.failure(.notConnected(state: state))) }
        default: armLinkWait()
        }
    }

    /// Abandons the transfer: the peer is told (ABORT) and the completion gets `.cancelled`.
    public func cancel() {
        guard phase != .finished else { return }
        finish(.failure(.cancelled))
    }

    // MARK: Sessions (one per link-up)

    private func beginSession() {
        session += 1
        cancelTimers()
        let maxWrite = connection.maximumWriteLength(.withoutResponse)
        if chunkSize == 0 || chunkSize + TransferPacket.dataOverhead(width) > maxWrite {
            guard chooseChunking(maxWrite: maxWrite) else { return }
        }
        span?["ble.peer.id"] = connection.linkedPeer.map { .string($0.rawValue) }
        span?["ble.mtu"] = .int(Int64(maxWrite + 3))
        span?["ble.transfer.chunk_size"] = .int(Int64(chunkSize))
        phase = .starting
        controlAttempts = 0
        flights.removeAll(keepingCapacity: true)
        suspects.removeAll()
        clearRetransmitQueue()
        stopAndWaitOutstanding = nil
        lastHeard = scheduler.now
        if started == nil { started = scheduler.now }
        sendStart()
    }

    private func chooseChunking(maxWrite: Int) -> Bool {
        let total = UInt64(payload.count)
        func chunks(_ size: Int) -> UInt64 { size <= 0 ? 0 : (total + UInt64(size) - 1) / UInt64(size) }
        var size = configuration.chunkSize ?? (maxWrite - TransferPacket.dataOverhead(.two))
        var chosenWidth = SequenceWidth.forChunkCount(chunks(size))
        if configuration.chunkSize == nil && chosenWidth == .four { size = maxWrite - TransferPacket.dataOverhead(.four) }
        chosenWidth = SequenceWidth.forChunkCount(chunks(size))
        guard size >= 1, size <= Int(UInt16.max), size + TransferPacket.dataOverhead(chosenWidth) <= maxWrite else {
            finish(.failure(.invalidParameters("chunk of \(size) bytes does not fit a \(maxWrite)-byte write")))
            return false
        }
        guard chunks(size) <= UInt64(UInt32.max) else {
            finish(.failure(.invalidParameters("\(payload.count) bytes need more than 2^32 chunks of \(size)")))
            return false
        }
        chunkSize = size
        width = chosenWidth
        chunkCount = chunks(size)
        base = 0
        nextNew = 0
        sentHighWater = 0
        return true
    }

    private func sendStart() {
        controlAttempts += 1
        guard controlAttempts <= configuration.maxControlAttempts else {
            return finish(.failure(.peerSilent(phase: "start", afterMs: Double(scheduler.now.nanoseconds(since: lastHeard)) / 1e6)))
        }
        let requested = configuration.mode == .stopAndWait ? 1 : configuration.requestedWindow
        let start = TransferStart(mode: configuration.mode, transferId: transferId, totalBytes: UInt64(payload.count),
                                  chunkSize: UInt16(chunkSize), window: UInt16(requested), sha256: digest)
        let current = session
        connection.write(TransferPacket.start(start).encoded(), to: characteristic) { [weak self] result in
            guard let self, self.session == current, self.phase == .starting else { return }
            if case .failure = result, self.connection.state.isReady {
                self.armControlTimer { $0.sendStart() }
            }
        }
        armControlTimer { $0.sendStart() }
    }

    // MARK: Streaming

    private func pump() {
        guard phase == .streaming else { return }
        switch configuration.mode {
        case .window:
            while connection.canSendWriteWithoutResponse {
                if let sequence = popRetransmission() {
                    guard send(sequence, retransmission: true) else { return }
                } else if nextNew < chunkCount && nextNew < base + window {
                    guard send(nextNew, retransmission: false) else { return }
                    nextNew += 1
                } else {
                    break
                }
            }
        case .stopAndWait:
            guard stopAndWaitOutstanding == nil, base < chunkCount else { break }
            clearRetransmitQueue()
            stopAndWaitOutstanding = base
            guard send(base, retransmission: flights[base] != nil) else { return }
            nextNew = max(nextNew, base + 1)
        }
        armRetransmissionTimer()
    }

    /// Sends chunk `sequence`; false when the transfer ended or the write was refused.
    private func send(_ sequence: UInt64, retransmission: Bool) -> Bool {
        let previous = flights[sequence]
        if let previous, previous.transmissions >= configuration.maxTransmissionsPerChunk {
            finish(.failure(.tooManyRetransmissions(sequence: sequence, attempts: previous.transmissions)))
            return false
        }
        let offset = Int(sequence) * chunkSize
        let end = min(offset + chunkSize, payload.count)
        let bytes = TransferPacket.encodeData(sequence: UInt32(truncatingIfNeeded: sequence), width: width, payload: payload[offset..<end])
        switch configuration.mode {
        case .window:
            do {
                try connection.writeWithoutResponse(bytes, to: characteristic)
            } catch {
                return false
            }
        case .stopAndWait:
            let current = session
            connection.write(bytes, to: characteristic) { [weak self] result in
                guard let self, self.session == current, self.phase == .streaming, case .failure = result,
                      self.connection.state.isReady, self.stopAndWaitOutstanding == sequence else { return }
                // The peer's ATT layer refused the write: send it again at once.
                self.stopAndWaitOutstanding = nil
                self.pump()
            }
        }
        transmissionCounter += 1
        let now = scheduler.now
        if var flight = previous {
            if retransmission && flight.resendCause == .timeout { timeoutRetransmissions += 1 }
            flight.resendCause = .fast
            flight.transmissions += 1
            flight.lastTransmission = transmissionCounter
            flight.lastSent = now
            flights[sequence] = flight
        } else {
            flights[sequence] = Flight(firstTransmission: transmissionCounter, lastTransmission: transmissionCounter,
                                       lastSent: now, transmissions: 1)
        }
        if retransmission {
            retransmissions += 1
            connection.recordRetransmissions(1)
        }
        sentHighWater = max(sentHighWater, sequence + 1)
        return true
    }

    private func popRetransmission() -> UInt64? {
        while retransmitHead < retransmitQueue.count {
            let sequence = retransmitQueue[retransmitHead]
            retransmitHead += 1
            guard var flight = flights[sequence], flight.queued else { continue }
            flight.queued = false
            flights[sequence] = flight
            if !flight.acknowledged && sequence >= base { return sequence }
        }
        clearRetransmitQueue()
        return nil
    }

    private func queueRetransmission(_ sequence: UInt64, cause: ResendCause) {
        guard var flight = flights[sequence], !flight.acknowledged, !flight.queued else { return }
        flight.queued = true
        flight.resendCause = cause
        flights[sequence] = flight
        retransmitQueue.append(sequence)
    }

    private func clearRetransmitQueue() {
        retransmitQueue.removeAll(keepingCapacity: true)
        retransmitHead = 0
    }

    // MARK: Peer packets

    private func received(_ uuid: BLEUUID, _ bytes: [UInt8]) {
        guard uuid == characteristic, phase != .finished, phase != .created else { return }
        let packet: TransferPacket
        do {
            packet = try TransferPacket.decode(bytes, sequenceWidth: width)
        } catch {
            malformed += 1
            return
        }
        switch packet {
        case .startAck(let ack): handleStartAck(ack)
        case .ack(let ack): handleAck(ack)
        case .done(let done): handleDone(done)
        case .abort(let abort):
            guard abort.transferId == transferId else { return }
            finish(.failure(.peerAborted(abort.reason)))
        case .start, .data, .query:
            malformed += 1
        }
    }

    private func handleStartAck(_ ack: TransferStartAck) {
        guard phase == .starting, ack.transferId == transferId else { return }
        lastHeard = scheduler.now
        guard ack.status == .accepted else { return finish(.failure(.peerRejected(ack.status))) }
        guard ack.window > 0 else { return violation(.zeroWindow) }
        let resume = UInt64(ack.resumeFrom)
        guard resume <= chunkCount else { return violation(.resumeBeyondEnd(resumeFrom: resume, chunkCount: chunkCount)) }
        controlTimer?.cancel()
        controlTimer = nil
        window = configuration.mode == .stopAndWait ? 1 : min(UInt64(configuration.requestedWindow), UInt64(ack.window))
        span?["ble.transfer.window"] = .int(Int64(window))
        base = resume
        nextNew = resume
        sentHighWater = max(sentHighWater, resume)
        flights.removeAll(keepingCapacity: true)
        suspects.removeAll()
        clearRetransmitQueue()
        stopAndWaitOutstanding = nil
        if base == chunkCount {
            enterFinishing()
        } else {
            phase = .streaming
            pump()
        }
    }

    private func handleAck(_ ack: TransferAck) {
        guard phase == .streaming || phase == .finishing else { return }
        let cumulative = UInt64(ack.cumulative)
        let highestSent: UInt64? = sentHighWater == 0 ? nil : sentHighWater - 1
        guard cumulative <= sentHighWater, cumulative <= chunkCount else {
            return violation(.ackForUnsentChunk(sequence: cumulative - 1, highestSent: highestSent))
        }
        let held = ack.heldBeyondCumulative
        if let unsent = held.first(where: { UInt64($0) >= sentHighWater || UInt64($0) >= chunkCount }) {
            return violation(.ackForUnsentChunk(sequence: UInt64(unsent), highestSent: highestSent))
        }
        let now = scheduler.now
        lastHeard = now
        oldestNewlyAcknowledged = nil
        var progressed = false
        if cumulative > base {
            for sequence in base..<min(cumulative, max(nextNew, base)) {
                if let flight = flights.removeValue(forKey: sequence), !flight.acknowledged {
                    acknowledged(flight)
                }
            }
            base = cumulative
            nextNew = max(nextNew, base)
            progressed = true
        }
        for sequence in held.lazy.map(UInt64.init) where sequence >= base {
            if var flight = flights[sequence], !flight.acknowledged {
                flight.acknowledged = true
                flights[sequence] = flight
                acknowledged(flight)
                progressed = true
            }
        }
        if let sent = oldestNewlyAcknowledged {
            // One sample per acknowledgement, its oldest chunk's: the chunks one acknowledgement
            // covers were sent moments apart, and their near-equal samples would otherwise shrink
            // the deviation (and the timeout) to almost nothing between two acknowledgements.
            roundTrip.add(sample: Double(now.nanoseconds(since: sent)))
        }
        switch configuration.mode {
        case .stopAndWait:
            if let outstanding = stopAndWaitOutstanding {
                if outstanding < base {
                    stopAndWaitOutstanding = nil
                } else if ack.isNack, let flight = flights[outstanding], now.nanoseconds(since: flight.lastSent) > 0 {
                    // The peer saw the chunk corrupted: send it again without waiting for the timeout.
                    stopAndWaitOutstanding = nil
                }
            }
        case .window:
            settleSuspects(progressed: progressed)
            detectLosses(nack: ack.isNack, now: now)
        }
        if base == chunkCount {
            if phase == .streaming { enterFinishing() }
        } else {
            pump()
        }
    }

    private func acknowledged(_ flight: Flight) {
        highestDeliveredTransmission = max(highestDeliveredTransmission, flight.firstTransmission)
        guard flight.transmissions == 1 else { return }  // Karn: a resent chunk's round trip is ambiguous
        oldestNewlyAcknowledged = min(oldestNewlyAcknowledged ?? flight.lastSent, flight.lastSent)
    }

    /// The acknowledgements after a timeout decide about the other chunks that expired with it
    /// (much as F-RTO, RFC 5682, does): when one covers any of them, sends from before the
    /// timeout are still arriving — the timeout was spurious, the late acknowledgement of a peer
    /// that stalled — and none is resent (a really lost one is found by selective repeat once a
    /// later chunk is acknowledged). When an acknowledgement covers none of them they are resent,
    /// except that the first one may have left the peer before they arrived: if it made progress,
    /// the second decides. `progressed`: the acknowledgement covered chunks not covered before.
    private func settleSuspects(progressed: Bool) {
        guard !suspects.isEmpty else { return }
        if suspects.contains(where: { sequence in sequence < base || flights[sequence]?.acknowledged == true }) {
            spuriousTimeouts += 1
        } else if progressed && !suspectsHadOneAck {
            suspectsHadOneAck = true
            return
        } else {
            for sequence in suspects { queueRetransmission(sequence, cause: .timeout) }
        }
        suspects.removeAll()
        suspectsHadOneAck = false
    }

    /// Selective repeat: a chunk whose last send precedes the first send of a chunk the peer
    /// now holds was lost (or reordered); a NACK also names the first missing chunk.
    private func detectLosses(nack: Bool, now: MonotonicInstant) {
        guard nextNew > base else { return }
        for sequence in base..<nextNew {
            guard let flight = flights[sequence], !flight.acknowledged, !flight.queued else { continue }
            if flight.lastTransmission < highestDeliveredTransmission {
                queueRetransmission(sequence, cause: .fast)
            } else if nack && sequence == base,
                      Double(now.nanoseconds(since: flight.lastSent)) >= (roundTrip.smoothed ?? roundTrip.timeout) / 2 {
                queueRetransmission(sequence, cause: .fast)
            }
        }
    }

    private func handleDone(_ done: TransferDone) {
        let matches = done.transferId == transferId || (done.transferId == 0 && done.status == .noActiveTransfer)
        guard matches, phase == .starting || phase == .streaming || phase == .finishing else { return }
        lastHeard = scheduler.now
        switch done.status {
        case .verified:
            guard done.receivedBytes == UInt64(payload.count) else {
                return violation(.doneWithWrongSize(received: done.receivedBytes, expected: UInt64(payload.count)))
            }
            succeed()
        case .hashMismatch:
            finish(.failure(.hashMismatch))
        case .storageFailed:
            finish(.failure(.peerAborted(.storageFailed)))
        case .noActiveTransfer:
            // The peer lost the transfer (it reset without the link dropping): start over.
            guard phase != .starting else { return }
            resumes += 1
            guard resumes <= configuration.maxResumes else { return finish(.failure(.tooManyResumes(resumes))) }
            chunkSize = 0
            beginSession()
        }
    }

    private func enterFinishing() {
        phase = .finishing
        rtoTimer?.cancel()
        rtoTimer = nil
        controlAttempts = 0
        armControlTimer { $0.queryForDone() }
    }

    private func queryForDone() {
        controlAttempts += 1
        let silentFor = Double(scheduler.now.nanoseconds(since: lastHeard)) / 1e6
        guard controlAttempts <= configuration.maxControlAttempts, silentFor < configuration.peerSilenceTimeoutMs else {
            return finish(.failure(.peerSilent(phase: "finish", afterMs: silentFor)))
        }
        sendQuery()
        armControlTimer { $0.queryForDone() }
    }

    private func sendQuery() {
        guard connection.canSendWriteWithoutResponse else {
            queryPending = true
            return
        }
        queryPending = false
        try? connection.writeWithoutResponse(TransferPacket.query(transferId: transferId).encoded(), to: characteristic)
    }

    // MARK: Timers

    private func armRetransmissionTimer() {
        guard rtoTimer == nil, phase == .streaming else { return }
        var earliest: MonotonicInstant?
        if nextNew > base {
            for sequence in base..<nextNew {
                // Chunks already queued for a resend wait for buffer room, not for the timer.
                guard let flight = flights[sequence], !flight.acknowledged, !flight.queued else { continue }
                earliest = min(earliest ?? flight.lastSent, flight.lastSent)
            }
        }
        let from = earliest ?? scheduler.now
        let deadline = from.advanced(byNanoseconds: Int64(roundTrip.timeout))
        // Never due in the past: a timer that finds nothing to do must not spin at one instant.
        let earliestAllowed = scheduler.now.advanced(byMilliseconds: 1)
        rtoTimer = scheduler.schedule(at: max(deadline, earliestAllowed), label: "transfer retransmission timeout") { [weak self] in
            self?.retransmissionTimerFired()
        }
    }

    private func retransmissionTimerFired() {
        rtoTimer = nil
        guard phase == .streaming else { return }
        let now = scheduler.now
        let silentFor = Double(now.nanoseconds(since: lastHeard)) / 1e6
        guard silentFor < configuration.peerSilenceTimeoutMs else {
            return finish(.failure(.peerSilent(phase: "stream", afterMs: silentFor)))
        }
        var expired: [UInt64] = []
        if nextNew > base {
            for sequence in base..<nextNew {
                guard var flight = flights[sequence], !flight.acknowledged, !flight.queued,
                      Double(now.nanoseconds(since: flight.lastSent)) >= roundTrip.timeout else { continue }
                expired.append(sequence)
                if configuration.mode == .stopAndWait {
                    flight.resendCause = .timeout
                    flights[sequence] = flight
                }
            }
        }
        if configuration.mode == .window, let oldest = expired.first {
            if suspects.isEmpty {
                // Resend the oldest only; the next acknowledgement says whether the rest were lost.
                queueRetransmission(oldest, cause: .timeout)
                suspects = Array(expired.dropFirst())
                suspectsHadOneAck = false
            } else {
                // A second expiry before any acknowledgement: the link lost them; resend them all.
                for sequence in suspects + expired { queueRetransmission(sequence, cause: .timeout) }
                suspects.removeAll()
            }
        }
        if configuration.mode == .stopAndWait, !expired.isEmpty { stopAndWaitOutstanding = nil }
        if !expired.isEmpty { roundTrip.backOff() }
        pump()
        armRetransmissionTimer()
    }

    private func armControlTimer(_ action: @escaping (TransferSender) -> Void) {
        controlTimer?.cancel()
        let current = session
        controlTimer = scheduler.schedule(afterMilliseconds: configuration.controlTimeoutMs, label: "transfer control timeout") { [weak self] in
            guard let self, self.session == current else { return }
            self.controlTimer = nil
            action(self)
        }
    }

    private func armLinkWait() {
        controlTimer?.cancel()
        let current = session
        controlTimer = scheduler.schedule(afterMilliseconds: configuration.peerSilenceTimeoutMs * 3, label: "transfer link wait") { [weak self] in
            guard let self, self.session == current, self.phase == .waitingForLink else { return }
            self.controlTimer = nil
            self.finish(.failure(.disconnected(self.connection.lastError)))
        }
    }

    private func cancelTimers() {
        rtoTimer?.cancel()
        rtoTimer = nil
        controlTimer?.cancel()
        controlTimer = nil
    }

    // MARK: Link events

    private func linkChanged(_ state: ConnectionState) {
        switch phase {
        case .created, .finished: return
        default: break
        }
        switch state {
        case .ready:
            guard phase == .waitingForLink else { return }
            if session > 0 {
                resumes += 1
                guard resumes <= configuration.maxResumes else { return finish(.failure(.tooManyResumes(resumes))) }
            }
            beginSession()
        case .idle:
            finish(.failure(.disconnected(connection.lastError)))
        case .scanning, .connecting, .discovering, .reconnecting:
            guard phase != .waitingForLink else { return }
            // Pause: in-flight chunks are void; the peer says where to resume once the link is back.
            session += 1
            cancelTimers()
            flights.removeAll(keepingCapacity: true)
            suspects.removeAll()
            clearRetransmitQueue()
            stopAndWaitOutstanding = nil
            queryPending = false
            phase = .waitingForLink
            armLinkWait()
        }
    }

    private func writeRoomAvailable() {
        if queryPending && phase == .finishing { sendQuery() }
        if phase == .streaming { pump() }
    }

    // MARK: Ending

    private func violation(_ violation: TransferProtocolViolation) {
        finish(.failure(.protocolViolation(violation)))
    }

    private func succeed() {
        let now = scheduler.now
        let report = TransferReport(
            transferId: transferId, bytes: payload.count, chunkCount: Int(chunkCount), chunkSize: chunkSize,
            mode: configuration.mode, window: Int(window), retransmissions: retransmissions,
            timeoutRetransmissions: timeoutRetransmissions, fastRetransmissions: retransmissions - timeoutRetransmissions,
            spuriousTimeouts: spuriousTimeouts,
            smoothedRoundTripMs: roundTrip.smoothed.map { $0 / 1e6 }, retransmissionTimeoutMs: roundTrip.timeout / 1e6,
            resumes: resumes, malformedPackets: malformed, started: started ?? now, finished: now, verified: true)
        span?["ble.transfer.goodput_bps"] = .double(report.goodputBytesPerSecond)
        finish(.success(report))
    }

    private func finish(_ result: Result<TransferReport, TransferError>) {
        guard phase != .finished else { return }
        let wasActive = phase == .starting || phase == .streaming || phase == .finishing
        phase = .finished
        session += 1
        cancelTimers()
        if let observer { connection.removeObserver(observer) }
        observer = nil
        flights.removeAll()
        suspects.removeAll()
        clearRetransmitQueue()
        if case .failure(let error) = result, wasActive, connection.canSendWriteWithoutResponse {
            let reason: TransferAbort.Reason
            switch error {
            case .cancelled: reason = .cancelled
            case .protocolViolation: reason = .protocolViolation
            case .tooManyRetransmissions: reason = .tooManyRetransmissions
            case .peerSilent: reason = .peerSilent
            default: reason = .other
            }
            if error != .hashMismatch, !(error.isPeerAbort) {
                try? connection.writeWithoutResponse(TransferPacket.abort(TransferAbort(reason: reason, transferId: transferId)).encoded(),
                                                     to: characteristic)
            }
        }
        span?["ble.retries"] = .int(Int64(retransmissions))
        span?["ble.transfer.retransmissions"] = .int(Int64(retransmissions))
        span?["ble.transfer.resumes"] = .int(Int64(resumes))
        span?["ble.transfer.chunks"] = .int(Int64(chunkCount))
        span?.end(result)
        completion(result)
    }
}

extension TransferError {
    fileprivate var isPeerAbort: Bool {
        if case .peerAborted = self { return true }
        return false
    }
}
