import VigilCore

/// The receiving end of the reliable-transfer protocol, as a pure state machine: feed it each
/// packet the central wrote and the timer deadlines it asks for; it returns what to send, what
/// to store, and when the transfer completed. This is the peer firmware's reference
/// implementation (docs/ble-protocol.md), and the simulator's transfer peer.
///
/// - Accepts START when the size, chunk size and version are acceptable, grants a window no
///   larger than its own and than an ACK bitmap can describe, and resumes a known transfer id
///   from the first chunk it still needs.
/// - Verifies each chunk's CRC-32 and length, holds out-of-order chunks inside the window,
///   delivers bytes in order exactly once, and hashes them as they go.
/// - Acknowledges every `ackEvery` chunks or `ackDelayMs` after the first unacknowledged one
///   (every chunk in stop-and-wait), and at once with the NACK flag when a new gap or a
///   corrupted packet appears.
/// - Reports DONE only after comparing the SHA-256 of everything delivered with START's.
///
/// Memory: at most `receiveWindow` chunks. Never traps on any input. Not thread-safe.
public final class TransferReceiver {
    /// Limits and policy.
    public let configuration: TransferReceiverConfiguration

    private struct Active {
        let start: TransferStart
        let chunkCount: UInt64
        let width: SequenceWidth
        let window: UInt64
        var next: UInt64 = 0
        var highestSeen: UInt64?
        var held: [UInt64: [UInt8]] = [:]
        var hasher = SHA256Hasher()
        var unacknowledged = 0
        var ackDeadline: MonotonicInstant?
        var outcome: TransferDone.Status?

        func expectedLength(of sequence: UInt64) -> Int {
            let chunkSize = UInt64(start.chunkSize)
            return Int(min(chunkSize, start.totalBytes - sequence * chunkSize))
        }
    }

    private var active: Active?

    /// A receiver.
    public init(configuration: TransferReceiverConfiguration = TransferReceiverConfiguration()) {
        self.configuration = configuration
    }

    /// When ``handleTimer(at:)`` should next be called, if at all.
    public var nextDeadline: MonotonicInstant? { active?.ackDeadline }

    /// Chunks held out of order right now (bounded by the window).
    public var heldChunkCount: Int { active?.held.count ?? 0 }

    /// Bytes held out of order right now.
    public var heldByteCount: Int { active?.held.values.reduce(0) { $0 + $1.count } ?? 0 }

    /// The active transfer's id, total size and bytes delivered so far.
    public var progress: (transferId: UInt32, totalBytes: UInt64, deliveredBytes: UInt64)? {
        guard let active else { return nil }
        return (active.start.transferId, active.start.totalBytes,
                min(active.start.totalBytes, active.next * UInt64(active.start.chunkSize)))
    }

    /// Handles one packet the central wrote, at `now`.
    public func handle(_ bytes: [UInt8], at now: MonotonicInstant) -> [TransferReceiverAction] {
        var actions: [TransferReceiverAction] = []
        let packet: TransferPacket
        do {
            packet = try TransferPacket.decode(bytes, sequenceWidth: active?.width)
        } catch {
            actions.append(.rejected(.malformedPacket(error)))
            if case .checksumMismatch(.data, _, _) = error, active != nil, active?.outcome == nil {
                sendAck(nack: true, into: &actions)
            }
            if case .dataWithoutTransfer = error {
                actions.append(.send(TransferPacket.done(TransferDone(status: .noActiveTransfer, transferId: 0, receivedBytes: 0)).encoded()))
            }
            return actions
        }
        switch packet {
        case .start(let start): handleStart(start, into: &actions)
        case .data(let chunk): handleData(chunk, at: now, into: &actions)
        case .query(let transferId):
            guard let current = active, current.start.transferId == transferId else {
                actions.append(.send(TransferPacket.done(TransferDone(status: .noActiveTransfer, transferId: transferId, receivedBytes: 0)).encoded()))
                break
            }
            if current.outcome != nil { sendDone(into: &actions) } else { sendAck(nack: false, into: &actions) }
        case .abort(let abort):
            if let current = active, current.start.transferId == abort.transferId {
                active = nil
                actions.append(.abandoned(transferId: abort.transferId))
            }
        case .startAck, .ack, .done:
            actions.append(.rejected(.unexpectedPacket(packet.kind)))
        }
        return actions
    }

    /// Handles the ACK-delay deadline.
    public func handleTimer(at now: MonotonicInstant) -> [TransferReceiverAction] {
        guard let deadline = active?.ackDeadline, deadline <= now else { return [] }
        var actions: [TransferReceiverAction] = []
        sendAck(nack: false, into: &actions)
        return actions
    }

    private func handleStart(_ start: TransferStart, into actions: inout [TransferReceiverAction]) {
        func refuse(_ status: TransferStartAck.Status, _ error: TransferReceiverError) {
            actions.append(.rejected(error))
            actions.append(.send(TransferPacket.startAck(TransferStartAck(status: status, transferId: start.transferId, window: 0, resumeFrom: 0)).encoded()))
        }
        guard start.version == TransferStart.currentVersion else {
            return refuse(.unsupportedVersion, .unsupportedVersion(start.version))
        }
        guard start.totalBytes <= configuration.maxTransferBytes else {
            return refuse(.tooLarge, .announcedSizeTooLarge(announced: start.totalBytes, limit: configuration.maxTransferBytes))
        }
        guard Int(start.chunkSize) <= configuration.maxChunkSize else {
            return refuse(.invalidParameters, .invalidStart(field: "chunkSize", value: UInt64(start.chunkSize)))
        }
        let chunkCount = start.chunkCount
        guard chunkCount <= UInt64(UInt32.max) else {
            return refuse(.invalidParameters, .invalidStart(field: "chunkCount", value: chunkCount))
        }
        if let current = active, current.start == start {
            // The same transfer again: the central reconnected (or lost our START-ACK). Resume.
            let window = UInt16(clamping: current.window)
            actions.append(.began(transferId: start.transferId, totalBytes: start.totalBytes,
                                  resumeOffset: min(start.totalBytes, current.next * UInt64(start.chunkSize))))
            actions.append(.send(TransferPacket.startAck(TransferStartAck(status: .accepted, transferId: start.transferId, window: window,
                                                                          resumeFrom: UInt32(current.next))).encoded()))
            if current.outcome != nil { sendDone(into: &actions) }
            return
        }
        if let previous = active { actions.append(.abandoned(transferId: previous.start.transferId)) }
        let bitmapLimit = UInt64(configuration.maxBitmapBytes * 8 + 1)
        let window = start.mode == .stopAndWait ? 1 : max(1, min(UInt64(start.window), UInt64(configuration.receiveWindow), bitmapLimit))
        active = Active(start: start, chunkCount: chunkCount, width: .forChunkCount(chunkCount), window: window)
        actions.append(.began(transferId: start.transferId, totalBytes: start.totalBytes, resumeOffset: 0))
        actions.append(.send(TransferPacket.startAck(TransferStartAck(status: .accepted, transferId: start.transferId,
                                                                      window: UInt16(clamping: window), resumeFrom: 0)).encoded()))
        if chunkCount == 0 { finish(into: &actions) }
    }

    private func handleData(_ chunk: TransferChunk, at now: MonotonicInstant, into actions: inout [TransferReceiverAction]) {
        guard var current = active else {
            actions.append(.rejected(.dataWithoutTransfer))
            return
        }
        if current.outcome != nil {
            // Complete already: the central missed DONE.
            sendDone(into: &actions)
            return
        }
        let sequence = UInt64(chunk.sequence)
        guard sequence < current.chunkCount else {
            actions.append(.rejected(.chunkBeyondEnd(sequence: chunk.sequence, chunkCount: current.chunkCount)))
            sendAck(nack: true, into: &actions)
            return
        }
        let expected = current.expectedLength(of: sequence)
        guard chunk.payload.count == expected else {
            actions.append(.rejected(.chunkLengthMismatch(sequence: chunk.sequence, expected: expected, actual: chunk.payload.count)))
            sendAck(nack: true, into: &actions)
            return
        }
        let isDuplicate = sequence < current.next || current.held[sequence] != nil
        if !isDuplicate && sequence >= current.next + current.window {
            actions.append(.rejected(.chunkOutsideWindow(sequence: chunk.sequence, windowStart: current.next,
                                                         windowEnd: current.next + current.window)))
            sendAck(nack: true, into: &actions)
            return
        }
        var newGap = false
        if !isDuplicate {
            let highest = current.highestSeen
            if sequence == current.next {
                deliver(&current, sequence: sequence, bytes: chunk.payload, into: &actions)
                while let next = current.held.removeValue(forKey: current.next) {
                    deliver(&current, sequence: current.next, bytes: next, into: &actions)
                }
            } else {
                current.held[sequence] = chunk.payload
                newGap = sequence > (highest.map { $0 + 1 } ?? current.next)
            }
            current.highestSeen = max(highest ?? sequence, sequence)
        }
        current.unacknowledged += 1
        active = current
        if current.next == current.chunkCount {
            finish(into: &actions)
            return
        }
        if newGap {
            sendAck(nack: true, into: &actions)
        } else if current.start.mode == .stopAndWait || current.unacknowledged >= configuration.ackEvery {
            sendAck(nack: false, into: &actions)
        } else if current.ackDeadline == nil {
            active?.ackDeadline = now.advanced(byMilliseconds: configuration.ackDelayMs)
        }
    }

    private func deliver(_ current: inout Active, sequence: UInt64, bytes: [UInt8], into actions: inout [TransferReceiverAction]) {
        current.hasher.update(bytes)
        actions.append(.deliver(offset: sequence * UInt64(current.start.chunkSize), bytes: bytes))
        current.next = sequence + 1
    }

    private func finish(into actions: inout [TransferReceiverAction]) {
        guard var current = active else { return }
        let digest = current.hasher.finalize()
        let verified = digest == current.start.sha256
        current.outcome = verified ? .verified : .hashMismatch
        current.held.removeAll()
        active = current
        sendAck(nack: false, into: &actions)
        if !verified { actions.append(.rejected(.hashMismatch(transferId: current.start.transferId))) }
        actions.append(.completed(transferId: current.start.transferId, totalBytes: current.start.totalBytes, verified: verified))
        sendDone(into: &actions)
    }

    private func sendAck(nack: Bool, into actions: inout [TransferReceiverAction]) {
        guard var current = active else { return }
        var bitmap: [UInt8] = []
        if let highest = current.highestSeen, highest > current.next, !current.held.isEmpty {
            let span = min(highest - current.next, UInt64(configuration.maxBitmapBytes * 8))
            bitmap = [UInt8](repeating: 0, count: Int((span + 7) / 8))
            for offset in 0..<span where current.held[current.next + 1 + offset] != nil {
                bitmap[Int(offset / 8)] |= 1 << UInt8(offset % 8)
            }
        }
        current.unacknowledged = 0
        current.ackDeadline = nil
        active = current
        let cumulative = UInt32(truncatingIfNeeded: min(current.next, UInt64(UInt32.max)))
        actions.append(.send(TransferPacket.ack(TransferAck(isNack: nack, cumulative: cumulative, bitmap: bitmap)).encoded()))
    }

    private func sendDone(into actions: inout [TransferReceiverAction]) {
        guard let current = active, let outcome = current.outcome else { return }
        let received = outcome == .verified ? current.start.totalBytes : current.next * UInt64(current.start.chunkSize)
        actions.append(.send(TransferPacket.done(TransferDone(status: outcome, transferId: current.start.transferId,
                                                              receivedBytes: min(received, current.start.totalBytes))).encoded()))
    }
}
