/// One packet of the reliable-transfer protocol (layouts in docs/ble-protocol.md).
///
/// Every packet starts with a type byte and ends with the CRC-32 of all bytes before it,
/// little-endian; multi-byte fields are little-endian. Central → peer: START `0x01`, DATA
/// `0x02`, ABORT `0x03`, QUERY `0x04`. Peer → central: START-ACK `0x81`, ACK `0x82`, DONE
/// `0x84`, ABORT `0x03`.
public enum TransferPacket: Sendable, Hashable {
    /// Announces (or resumes) a transfer.
    case start(TransferStart)
    /// The peer's answer to START.
    case startAck(TransferStartAck)
    /// One chunk of the payload.
    case data(TransferChunk)
    /// Cumulative acknowledgement plus a bitmap of chunks held beyond it (a NACK when flagged).
    case ack(TransferAck)
    /// The peer verified (or failed to verify) the whole-transfer hash.
    case done(TransferDone)
    /// Either side gives up on the transfer.
    case abort(TransferAbort)
    /// The central asks the peer to repeat its state (an ACK, or DONE when complete).
    case query(transferId: UInt32)

    /// Type bytes.
    public enum Kind: UInt8, Sendable, CaseIterable {
        case start = 0x01, data = 0x02, abort = 0x03, query = 0x04
        case startAck = 0x81, ack = 0x82, done = 0x84
    }

    /// Bytes of the CRC-32 trailer.
    public static let trailerLength = 4
    /// Bytes a DATA packet adds around its payload: type, sequence number, CRC-32.
    public static func dataOverhead(_ width: SequenceWidth) -> Int { 1 + width.rawValue + trailerLength }
    /// The longest ACK bitmap, in bytes (256 chunks past the cumulative index).
    public static let maxBitmapLength = 32

    /// The packet's type.
    public var kind: Kind {
        switch self {
        case .start: return .start
        case .startAck: return .startAck
        case .data: return .data
        case .ack: return .ack
        case .done: return .done
        case .abort: return .abort
        case .query: return .query
        }
    }

    /// The packet's bytes. DATA needs the transfer's sequence width; other kinds ignore it.
    public func encoded(sequenceWidth: SequenceWidth = .four) -> [UInt8] {
        var bytes: [UInt8] = [kind.rawValue]
        switch self {
        case .start(let start):
            bytes.reserveCapacity(56)
            bytes.append(start.version)
            bytes.append(start.mode.rawValue)
            bytes.append(start.flags)
            bytes.appendLittleEndian(start.transferId)
            bytes.appendLittleEndian(start.totalBytes)
            bytes.appendLittleEndian(start.chunkSize)
            bytes.appendLittleEndian(start.window)
            var digest = Array(start.sha256.prefix(SHA256Hasher.digestLength))
            digest += [UInt8](repeating: 0, count: SHA256Hasher.digestLength - digest.count)
            bytes.append(contentsOf: digest)
        case .startAck(let ack):
            bytes.append(ack.status.rawValue)
            bytes.appendLittleEndian(ack.transferId)
            bytes.appendLittleEndian(ack.window)
            bytes.appendLittleEndian(ack.resumeFrom)
        case .data(let chunk):
            return TransferPacket.encodeData(sequence: chunk.sequence, width: sequenceWidth, payload: chunk.payload[...])
        case .ack(let ack):
            let bitmap = ack.bitmap.prefix(TransferPacket.maxBitmapLength)
            bytes.append(ack.isNack ? 1 : 0)
            bytes.appendLittleEndian(ack.cumulative)
            bytes.append(UInt8(bitmap.count))
            bytes.append(contentsOf: bitmap)
        case .done(let done):
            bytes.append(done.status.rawValue)
            bytes.appendLittleEndian(done.transferId)
            bytes.appendLittleEndian(done.receivedBytes)
        case .abort(let abort):
            bytes.append(abort.reason.rawValue)
            bytes.appendLittleEndian(abort.transferId)
        case .query(let transferId):
            bytes.appendLittleEndian(transferId)
        }
        bytes.appendLittleEndian(CRC32.checksum(bytes))
        return bytes
    }

    /// A DATA packet built straight from a slice of the payload (no intermediate copy).
    public static func encodeData(sequence: UInt32, width: SequenceWidth, payload: ArraySlice<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + dataOverhead(width))
        bytes.append(Kind.data.rawValue)
        if width == .two { bytes.appendLittleEndian(UInt16(truncatingIfNeeded: sequence)) } else { bytes.appendLittleEndian(sequence) }
        bytes.append(contentsOf: payload)
        bytes.appendLittleEndian(CRC32.checksum(bytes))
        return bytes
    }
}

/// START: `0x01 | version u8 | mode u8 | flags u8 | transferId u32 | totalBytes u64 |
/// chunkSize u16 | window u16 | sha256[32] | crc32` — 56 bytes.
public struct TransferStart: Sendable, Hashable {
    /// The protocol version this implementation speaks.
    public static let currentVersion: UInt8 = 1
    /// Protocol version (1).
    public var version: UInt8
    /// Stop-and-wait or window.
    public var mode: TransferMode
    /// Reserved, zero.
    public var flags: UInt8
    /// Identifies the transfer across reconnects (chosen at random by the sender).
    public var transferId: UInt32
    /// Payload length in bytes.
    public var totalBytes: UInt64
    /// Payload bytes per DATA packet (the last one may be shorter).
    public var chunkSize: UInt16
    /// Chunks the sender would like in flight (the peer grants at most this many).
    public var window: UInt16
    /// SHA-256 of the whole payload.
    public var sha256: [UInt8]

    /// A START packet's fields.
    public init(version: UInt8 = TransferStart.currentVersion, mode: TransferMode, flags: UInt8 = 0, transferId: UInt32,
                totalBytes: UInt64, chunkSize: UInt16, window: UInt16, sha256: [UInt8]) {
        self.version = version
        self.mode = mode
        self.flags = flags
        self.transferId = transferId
        self.totalBytes = totalBytes
        self.chunkSize = chunkSize
        self.window = window
        self.sha256 = sha256
    }

    /// Number of chunks: ⌈totalBytes / chunkSize⌉.
    public var chunkCount: UInt64 {
        guard chunkSize > 0 else { return 0 }
        // Divide first: `totalBytes` comes off the wire, and adding `chunkSize - 1` to it
        // overflows near `UInt64.max`.
        let size = UInt64(chunkSize)
        return totalBytes / size + (totalBytes % size == 0 ? 0 : 1)
    }
}

/// START-ACK: `0x81 | status u8 | transferId u32 | window u16 | resumeFrom u32 | crc32` — 16 bytes.
public struct TransferStartAck: Sendable, Hashable {
    /// Whether the peer accepts, and why not.
    public enum Status: UInt8, Sendable, Hashable, CaseIterable {
        case accepted = 0, tooLarge = 1, unsupportedVersion = 2, invalidParameters = 3, busy = 4
    }
    /// The peer's answer.
    public var status: Status
    /// Echo of START's transfer id.
    public var transferId: UInt32
    /// Granted window in chunks (≤ requested; 1 in stop-and-wait).
    public var window: UInt16
    /// The first chunk the peer still needs: every chunk before it is stored and hashed.
    public var resumeFrom: UInt32

    /// A START-ACK's fields.
    public init(status: Status, transferId: UInt32, window: UInt16, resumeFrom: UInt32) {
        self.status = status
        self.transferId = transferId
        self.window = window
        self.resumeFrom = resumeFrom
    }
}

/// DATA: `0x02 | sequence u16 or u32 | payload | crc32`.
public struct TransferChunk: Sendable, Hashable {
    /// Chunk index from 0.
    public var sequence: UInt32
    /// The chunk's bytes.
    public var payload: [UInt8]

    /// A chunk.
    public init(sequence: UInt32, payload: [UInt8]) {
        self.sequence = sequence
        self.payload = payload
    }
}

/// ACK: `0x82 | flags u8 (bit 0: NACK) | cumulative u32 | bitmapLength u8 | bitmap | crc32`.
///
/// `cumulative` is the first chunk not yet received (all before it are). Bit `j` of bitmap
/// byte `k` (least significant first) set means chunk `cumulative + 1 + 8k + j` is held.
public struct TransferAck: Sendable, Hashable {
    /// Sent because the peer saw a gap or a corrupted packet (the holes below the highest held
    /// chunk are missing), rather than on its periodic schedule.
    public var isNack: Bool
    /// First chunk not received.
    public var cumulative: UInt32
    /// Chunks held beyond `cumulative` (at most ``TransferPacket/maxBitmapLength`` bytes).
    public var bitmap: [UInt8]

    /// An ACK's fields.
    public init(isNack: Bool = false, cumulative: UInt32, bitmap: [UInt8] = []) {
        self.isNack = isNack
        self.cumulative = cumulative
        self.bitmap = bitmap
    }

    /// Whether the bitmap marks `sequence` as held (chunks below `cumulative` are held too).
    public func holds(_ sequence: UInt32) -> Bool {
        if sequence < cumulative { return true }
        if sequence == cumulative { return false }
        let offset = UInt64(sequence) - UInt64(cumulative) - 1
        guard offset < UInt64(bitmap.count) * 8 else { return false }
        return bitmap[Int(offset / 8)] & (1 << UInt8(offset % 8)) != 0
    }

    /// The chunks the bitmap marks as held, in increasing order.
    public var heldBeyondCumulative: [UInt32] {
        var held: [UInt32] = []
        for (byteIndex, byte) in bitmap.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << UInt8(bit)) != 0 {
                let sequence = UInt64(cumulative) + 1 + UInt64(byteIndex * 8 + bit)
                if sequence <= UInt64(UInt32.max) { held.append(UInt32(sequence)) }
            }
        }
        return held
    }
}

/// DONE: `0x84 | status u8 | transferId u32 | receivedBytes u64 | crc32` — 18 bytes.
public struct TransferDone: Sendable, Hashable {
    /// How the transfer ended on the peer.
    public enum Status: UInt8, Sendable, Hashable, CaseIterable {
        case verified = 0, hashMismatch = 1, noActiveTransfer = 2, storageFailed = 3
    }
    /// Outcome.
    public var status: Status
    /// The transfer it concerns.
    public var transferId: UInt32
    /// Payload bytes the peer holds.
    public var receivedBytes: UInt64

    /// A DONE's fields.
    public init(status: Status, transferId: UInt32, receivedBytes: UInt64) {
        self.status = status
        self.transferId = transferId
        self.receivedBytes = receivedBytes
    }
}

/// ABORT: `0x03 | reason u8 | transferId u32 | crc32` — 10 bytes, either direction.
public struct TransferAbort: Sendable, Hashable {
    /// Why.
    public enum Reason: UInt8, Sendable, Hashable, CaseIterable {
        case cancelled = 0, protocolViolation = 1, tooManyRetransmissions = 2, peerSilent = 3,
             sizeLimit = 4, storageFailed = 5, other = 255
    }
    /// Why the transfer was abandoned.
    public var reason: Reason
    /// The abandoned transfer.
    public var transferId: UInt32

    /// An ABORT's fields.
    public init(reason: Reason, transferId: UInt32) {
        self.reason = reason
        self.transferId = transferId
    }
}
