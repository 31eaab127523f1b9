import Testing
import VigilBLE
import VigilCore

@Suite("Transfer receiver (the peer's state machine)")
struct TransferReceiverTests {
    private let now = MonotonicInstant(nanoseconds: 1_000_000_000)

    private func start(_ payload: [UInt8], chunkSize: UInt16, window: UInt16 = 8, mode: TransferMode = .window, id: UInt32 = 5) -> [UInt8] {
        TransferPacket.start(TransferStart(mode: mode, transferId: id, totalBytes: UInt64(payload.count), chunkSize: chunkSize,
                                           window: window, sha256: SHA256Hasher.hash(payload))).encoded()
    }

    private func chunk(_ payload: [UInt8], _ sequence: Int, chunkSize: Int) -> [UInt8] {
        let from = sequence * chunkSize, to = min(from + chunkSize, payload.count)
        return TransferPacket.encodeData(sequence: UInt32(sequence), width: .two, payload: payload[from..<to])
    }

    private func sent(_ actions: [TransferReceiverAction]) -> [TransferPacket] {
        actions.compactMap { if case .send(let bytes) = $0 { return try? TransferPacket.decode(bytes, sequenceWidth: .two) } else { return nil } }
    }

    @Test("a START announcing 4 GiB is refused (tooLarge) with a typed error, and nothing is allocated")
    func fourGigabyteStart() {
        let receiver = TransferReceiver(configuration: TransferReceiverConfiguration(maxTransferBytes: 64 << 20))
        let packet = TransferPacket.start(TransferStart(mode: .window, transferId: 1, totalBytes: 1 << 32, chunkSize: 244, window: 64,
                                                        sha256: [UInt8](repeating: 1, count: 32))).encoded()
        let actions = receiver.handle(packet, at: now)
        #expect(actions.contains(.rejected(.announcedSizeTooLarge(announced: 1 << 32, limit: 64 << 20))))
        #expect(sent(actions) == [.startAck(TransferStartAck(status: .tooLarge, transferId: 1, window: 0, resumeFrom: 0))])
        #expect(receiver.progress == nil && receiver.heldByteCount == 0)
        // DATA after the refusal is refused too.
        #expect(receiver.handle(TransferPacket.encodeData(sequence: 0, width: .two, payload: [1][...]), at: now)
            .contains(.rejected(.malformedPacket(.dataWithoutTransfer))))
    }

    @Test("out-of-order chunks are held inside the window, delivered in order once, and the hash is checked before DONE")
    func outOfOrderDelivery() {
        let payload = (0..<100).map { UInt8($0) }
        let receiver = TransferReceiver(configuration: TransferReceiverConfiguration(receiveWindow: 8, ackEvery: 100))
        _ = receiver.handle(start(payload, chunkSize: 10), at: now)
        var delivered: [UInt8] = []
        var completed = false
        for sequence in [1, 3, 2, 0, 0, 4, 9, 5, 6, 7, 8] {
            for action in receiver.handle(chunk(payload, sequence, chunkSize: 10), at: now) {
                if case .deliver(let offset, let bytes) = action {
                    #expect(Int(offset) == delivered.count)
                    delivered += bytes
                }
                if case .completed(_, _, let verified) = action { completed = verified }
            }
            #expect(receiver.heldChunkCount <= 8)
        }
        #expect(delivered == payload && completed)
    }

    @Test("a new gap triggers an immediate NACK whose bitmap names the held chunks")
    func gapNack() {
        let payload = [UInt8](repeating: 3, count: 50)
        let receiver = TransferReceiver(configuration: TransferReceiverConfiguration(ackEvery: 100))
        _ = receiver.handle(start(payload, chunkSize: 10), at: now)
        _ = receiver.handle(chunk(payload, 0, chunkSize: 10), at: now)
        let packets = sent(receiver.handle(chunk(payload, 2, chunkSize: 10), at: now))
        #expect(packets == [.ack(TransferAck(isNack: true, cumulative: 1, bitmap: [0b1]))])
    }

    @Test("chunks outside the window, past the end, or of the wrong length are refused and answered with the current state")
    func refusedChunks() {
        let payload = [UInt8](repeating: 9, count: 1000)
        let receiver = TransferReceiver(configuration: TransferReceiverConfiguration(receiveWindow: 4))
        _ = receiver.handle(start(payload, chunkSize: 10, window: 4), at: now)
        #expect(receiver.handle(chunk(payload, 50, chunkSize: 10), at: now).contains(.rejected(.chunkOutsideWindow(sequence: 50, windowStart: 0, windowEnd: 4))))
        #expect(receiver.handle(TransferPacket.encodeData(sequence: 100, width: .two, payload: payload[0..<10]), at: now)
            .contains(.rejected(.chunkBeyondEnd(sequence: 100, chunkCount: 100))))
        #expect(receiver.handle(TransferPacket.encodeData(sequence: 1, width: .two, payload: payload[0..<3]), at: now)
            .contains(.rejected(.chunkLengthMismatch(sequence: 1, expected: 10, actual: 3))))
        #expect(receiver.heldByteCount == 0)
    }

    @Test("a payload whose bytes differ from START's hash ends with DONE hashMismatch, never verified")
    func hashMismatch() {
        let payload = [UInt8](repeating: 1, count: 20)
        let receiver = TransferReceiver()
        _ = receiver.handle(TransferPacket.start(TransferStart(mode: .stopAndWait, transferId: 3, totalBytes: 20, chunkSize: 10, window: 1,
                                                               sha256: SHA256Hasher.hash([UInt8](repeating: 2, count: 20)))).encoded(), at: now)
        _ = receiver.handle(chunk(payload, 0, chunkSize: 10), at: now)
        let actions = receiver.handle(chunk(payload, 1, chunkSize: 10), at: now)
        #expect(actions.contains(.completed(transferId: 3, totalBytes: 20, verified: false)))
        #expect(sent(actions).contains(.done(TransferDone(status: .hashMismatch, transferId: 3, receivedBytes: 20))))
    }

    @Test("the same START again resumes from the first missing chunk; a different one starts over")
    func resume() {
        let payload = [UInt8](repeating: 4, count: 100)
        let receiver = TransferReceiver()
        _ = receiver.handle(start(payload, chunkSize: 10), at: now)
        for sequence in 0..<4 { _ = receiver.handle(chunk(payload, sequence, chunkSize: 10), at: now) }
        #expect(sent(receiver.handle(start(payload, chunkSize: 10), at: now)).first
            == .startAck(TransferStartAck(status: .accepted, transferId: 5, window: 8, resumeFrom: 4)))
        let fresh = receiver.handle(start(payload, chunkSize: 10, id: 6), at: now)
        #expect(fresh.contains(.abandoned(transferId: 5)))
        #expect(sent(fresh).first == .startAck(TransferStartAck(status: .accepted, transferId: 6, window: 8, resumeFrom: 0)))
    }

    @Test("the granted window never exceeds what an ACK bitmap can describe in one notification")
    func windowBoundedByBitmap() {
        let receiver = TransferReceiver(configuration: TransferReceiverConfiguration(receiveWindow: 500, maxNotificationLength: 20))
        let packets = sent(receiver.handle(start([UInt8](repeating: 0, count: 10_000), chunkSize: 13, window: 500), at: now))
        #expect(packets.first == .startAck(TransferStartAck(status: .accepted, transferId: 5, window: 9 * 8 + 1, resumeFrom: 0)))
    }
}
