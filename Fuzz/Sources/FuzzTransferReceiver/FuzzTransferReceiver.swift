import CFuzzDriver
import FuzzSupport
import VigilBLE
import VigilCore

/// Drives a ``TransferReceiver`` (small limits the input chooses) with packets the input
/// describes: STARTs of payloads it sizes (with the right SHA-256 or a wrong one), the right
/// chunks, resends, corrupted chunks with valid CRCs, arbitrary bytes with or without a valid
/// CRC, QUERY, ABORT, and time passing. A host model stores what the receiver delivers and
/// checks, after every packet: never a trap; memory stays within the window; bytes are
/// delivered in order, exactly once, and resumption continues where delivery stopped; a
/// transfer completes only with every byte, and is verified exactly when the SHA-256 of what was
/// delivered matches START's; ACKs describe what was delivered; and everything the receiver
/// sends is a well-formed peer packet that fits a notification.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTransferReceiver(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let configuration = TransferReceiverConfiguration(
        maxTransferBytes: 4096, maxChunkSize: 64, receiveWindow: input.int(in: 1...16),
        maxNotificationLength: input.int(in: 8...60), ackEvery: input.int(in: 1...8), ackDelayMs: 5)
    var host = Host(receiver: TransferReceiver(configuration: configuration))

    // The transfer the central is sending.
    var payload: [UInt8] = []
    var start = TransferStart(mode: .window, transferId: 0, totalBytes: 0, chunkSize: 1, window: 1, sha256: [])
    var steps = 0
    while !input.isAtEnd && steps < 512 {
        steps += 1
        switch input.byte() % 9 {
        case 0:  // START of a new payload.
            let total = input.int(in: 0...700)
            let seed = input.byte()
            payload = (0..<total).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
            let hasher = SHA256Hasher()
            hasher.update(payload)
            var digest = hasher.finalize()
            if input.byte() % 4 == 0 { digest[Int(seed) % digest.count] ^= 1 }
            let versionChoice = input.byte()
            start = TransferStart(version: versionChoice == 0xFF ? 2 : TransferStart.currentVersion,
                                  mode: input.bool() ? .window : .stopAndWait,
                                  transferId: UInt32(input.byte() % 4), totalBytes: UInt64(total),
                                  chunkSize: UInt16(input.int(in: 1...80)), window: UInt16(input.int(in: 1...300)), sha256: digest)
            host.send(TransferPacket.start(start).encoded())
        case 1:  // The same START again, as after a reconnection.
            host.send(TransferPacket.start(start).encoded())
        case 2, 3:  // The right chunk, possibly one past the end.
            let sequence = UInt32(input.int(in: 0...Int(min(start.chunkCount, 200))))
            host.send(chunk(sequence, of: payload, start: start, corrupt: false))
        case 4:  // A run of chunks in order, the way a sender fills its window.
            let first = input.int(in: 0...Int(min(start.chunkCount, 200)))
            for sequence in first..<min(first + input.int(in: 1...24), Int(start.chunkCount)) {
                host.send(chunk(UInt32(sequence), of: payload, start: start, corrupt: false))
            }
        case 5:  // A chunk whose bytes are wrong but whose CRC-32 is right.
            let sequence = UInt32(input.int(in: 0...Int(min(start.chunkCount, 200))))
            host.send(chunk(sequence, of: payload, start: start, corrupt: true))
        case 6:  // Arbitrary bytes, sealed with a valid CRC-32 or not.
            var bytes = input.bytes(input.int(in: 0...80))
            if input.bool() { bytes += withUnsafeBytes(of: CRC32.checksum(bytes).littleEndian, Array.init) }
            host.send(bytes)
        case 7:  // QUERY or ABORT, for this transfer or another.
            let transferId = input.bool() ? start.transferId : UInt32(input.byte() % 4)
            host.send(input.bool() ? TransferPacket.query(transferId: transferId).encoded()
                                   : TransferPacket.abort(TransferAbort(reason: .cancelled, transferId: transferId)).encoded())
        default:  // Time passes.
            host.now = host.now.advanced(byMilliseconds: Double(input.int(in: 0...12)))
            host.timer()
        }
    }
    return 0
}

/// DATA for chunk `sequence` of `payload` (empty beyond the end), its first byte flipped when
/// `corrupt`, in the sequence width the receiver expects for `start`.
private func chunk(_ sequence: UInt32, of payload: [UInt8], start: TransferStart, corrupt: Bool) -> [UInt8] {
    let from = min(payload.count, Int(sequence) * Int(start.chunkSize))
    var bytes = Array(payload[from..<min(payload.count, from + Int(start.chunkSize))])
    if corrupt, !bytes.isEmpty { bytes[0] ^= 0x5A }
    return TransferPacket.encodeData(sequence: sequence, width: .forChunkCount(start.chunkCount), payload: bytes[...])
}

/// The peer's host: feeds the receiver, stores what it delivers, and checks every action.
private struct Host {
    let receiver: TransferReceiver
    var now = MonotonicInstant(nanoseconds: 1_000_000_000)
    /// What the receiver delivered for the active transfer, in order.
    var delivered: [UInt8] = []
    /// The START the receiver accepted last (when it is still active).
    var accepted: TransferStart?

    init(receiver: TransferReceiver) { self.receiver = receiver }

    mutating func send(_ bytes: [UInt8]) {
        let offered = try? TransferPacket.decode(bytes, sequenceWidth: nil)
        check(receiver.handle(bytes, at: now), offered: offered)
    }

    mutating func timer() {
        let due = receiver.nextDeadline.map { $0 <= now } ?? false
        let actions = receiver.handleTimer(at: now)
        fuzzCheck(!due || !actions.isEmpty, "a due acknowledgement timer did nothing")
        check(actions, offered: nil)
    }

    private mutating func check(_ actions: [TransferReceiverAction], offered: TransferPacket?) {
        let configuration = receiver.configuration
        for action in actions {
            switch action {
            case .began(let transferId, let totalBytes, let resumeOffset):
                guard case .start(let start)? = offered, start.transferId == transferId, start.totalBytes == totalBytes else {
                    fatalError("began \(transferId) without a matching START")
                }
                fuzzCheck(totalBytes <= configuration.maxTransferBytes, "began a transfer of \(totalBytes) bytes")
                if resumeOffset > 0 {
                    fuzzCheck(accepted == start && resumeOffset == UInt64(delivered.count),
                              "resumed at \(resumeOffset) with \(delivered.count) bytes delivered")
                } else {
                    delivered = []
                }
                accepted = start
            case .deliver(let offset, let bytes):
                guard let start = accepted else { fatalError("delivered bytes without a transfer") }
                fuzzCheck(offset == UInt64(delivered.count), "delivered at \(offset) after \(delivered.count) bytes")
                delivered += bytes
                fuzzCheck(UInt64(delivered.count) <= start.totalBytes, "delivered \(delivered.count) of \(start.totalBytes) bytes")
            case .completed(let transferId, let totalBytes, let verified):
                guard let start = accepted, start.transferId == transferId else { fatalError("completed an unknown transfer") }
                fuzzCheck(UInt64(delivered.count) == totalBytes, "completed with \(delivered.count) of \(totalBytes) bytes")
                let hasher = SHA256Hasher()
                hasher.update(delivered)
                fuzzCheck(verified == (hasher.finalize() == start.sha256), "verified \(verified) disagrees with the SHA-256")
            case .abandoned(let transferId):
                fuzzCheck(accepted?.transferId == transferId, "abandoned \(transferId), not the active transfer")
                accepted = nil
                delivered = []
            case .send(let bytes):
                guard let packet = try? TransferPacket.decode(bytes, sequenceWidth: nil) else {
                    fatalError("the receiver sent bytes that do not decode: \(bytes)")
                }
                switch packet {
                case .ack(let ack):
                    fuzzCheck(bytes.count <= 11 + configuration.maxBitmapBytes, "an ACK of \(bytes.count) bytes")
                    if let start = accepted {
                        let covered = min(start.totalBytes, UInt64(ack.cumulative) * UInt64(start.chunkSize))
                        fuzzCheck(covered == UInt64(delivered.count), "ACK up to \(ack.cumulative) with \(delivered.count) bytes delivered")
                    }
                case .startAck, .done, .abort:
                    break
                case .start, .data, .query:
                    fatalError("the receiver sent a central's packet: \(packet.kind)")
                }
            case .rejected:
                break
            }
        }
        fuzzCheck(receiver.heldChunkCount <= configuration.receiveWindow,
                  "\(receiver.heldChunkCount) chunks held with a window of \(configuration.receiveWindow)")
        fuzzCheck(receiver.heldByteCount <= configuration.receiveWindow * configuration.maxChunkSize,
                  "\(receiver.heldByteCount) bytes held")
    }
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzTransferReceiver_main")
public func fuzzTransferReceiverMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzTransferReceiver(data, size)
    }
}
