/// Limits and acknowledgement policy of a ``TransferReceiver``.
public struct TransferReceiverConfiguration: Sendable, Hashable {
    /// The largest transfer accepted; a START announcing more is refused (`tooLarge`) before
    /// anything is allocated.
    public var maxTransferBytes: UInt64
    /// The largest chunk accepted, in bytes.
    public var maxChunkSize: Int
    /// Chunks held out of order at most: the granted window. Memory is bounded by
    /// `receiveWindow × maxChunkSize`.
    public var receiveWindow: Int
    /// The longest notification the link carries (ATT MTU − 3); bounds the ACK bitmap.
    public var maxNotificationLength: Int
    /// In window mode, acknowledge after this many chunks…
    public var ackEvery: Int
    /// …or this long after the first unacknowledged one (ms), whichever comes first.
    public var ackDelayMs: Double

    /// A configuration; defaults: 64 MiB, 512-byte chunks, window 64, ACK every 8 chunks or 5 ms.
    public init(maxTransferBytes: UInt64 = 64 << 20, maxChunkSize: Int = 512, receiveWindow: Int = 64,
                maxNotificationLength: Int = 244, ackEvery: Int = 8, ackDelayMs: Double = 5) {
        self.maxTransferBytes = maxTransferBytes
        self.maxChunkSize = maxChunkSize
        self.receiveWindow = max(1, receiveWindow)
        self.maxNotificationLength = maxNotificationLength
        self.ackEvery = max(1, ackEvery)
        self.ackDelayMs = ackDelayMs
    }

    /// Bitmap bytes an ACK may carry: what fits a notification after the 11 fixed bytes, at
    /// most 32.
    public var maxBitmapBytes: Int {
        max(0, min(TransferPacket.maxBitmapLength, maxNotificationLength - 11))
    }
}

/// What a ``TransferReceiver`` asks its host to do, in order.
public enum TransferReceiverAction: Sendable, Hashable {
    /// Send these bytes to the central (a notification).
    case send([UInt8])
    /// A transfer began (or resumed at `resumeOffset` bytes, where the host's storage must
    /// continue).
    case began(transferId: UInt32, totalBytes: UInt64, resumeOffset: UInt64)
    /// Store these payload bytes at `offset` (always in order, never twice).
    case deliver(offset: UInt64, bytes: [UInt8])
    /// The transfer ended: every byte arrived and the SHA-256 matched (`verified`) or not.
    case completed(transferId: UInt32, totalBytes: UInt64, verified: Bool)
    /// The transfer was abandoned (by the central's ABORT or by a new START); stored bytes are void.
    case abandoned(transferId: UInt32)
    /// Bad input was refused; the receiver carries on. For the peer's log.
    case rejected(TransferReceiverError)
}

/// Bad input a ``TransferReceiver`` refused.
public enum TransferReceiverError: Error, Sendable, Hashable, CustomStringConvertible {
    /// START announced more bytes than the receiver accepts.
    case announcedSizeTooLarge(announced: UInt64, limit: UInt64)
    /// START spoke another protocol version.
    case unsupportedVersion(UInt8)
    /// START's chunk size or chunk count is unusable.
    case invalidStart(field: String, value: UInt64)
    /// A packet failed to parse.
    case malformedPacket(TransferPacketError)
    /// A chunk beyond the granted window.
    case chunkOutsideWindow(sequence: UInt32, windowStart: UInt64, windowEnd: UInt64)
    /// A chunk past the last one.
    case chunkBeyondEnd(sequence: UInt32, chunkCount: UInt64)
    /// A chunk whose length is not the announced chunk size.
    case chunkLengthMismatch(sequence: UInt32, expected: Int, actual: Int)
    /// DATA while no transfer is active.
    case dataWithoutTransfer
    /// Every chunk arrived but the SHA-256 differs from START's.
    case hashMismatch(transferId: UInt32)
    /// A packet only the peer sends (START-ACK, ACK, DONE) came from the central.
    case unexpectedPacket(TransferPacket.Kind)

    public var description: String {
        switch self {
        case .announcedSizeTooLarge(let announced, let limit): return "START announces \(announced) bytes, limit \(limit)"
        case .unsupportedVersion(let version): return "unsupported protocol version \(version)"
        case .invalidStart(let field, let value): return "START field \(field) = \(value) is unusable"
        case .malformedPacket(let error): return "malformed packet: \(error)"
        case .chunkOutsideWindow(let sequence, let start, let end): return "chunk \(sequence) outside window \(start)..<\(end)"
        case .chunkBeyondEnd(let sequence, let count): return "chunk \(sequence) beyond the last (\(count) chunks)"
        case .chunkLengthMismatch(let sequence, let expected, let actual):
            return "chunk \(sequence) has \(actual) bytes, expected \(expected)"
        case .dataWithoutTransfer: return "DATA while no transfer is active"
        case .hashMismatch(let id): return "transfer \(id): SHA-256 mismatch"
        case .unexpectedPacket(let kind): return "unexpected \(kind) packet from the central"
        }
    }
}
