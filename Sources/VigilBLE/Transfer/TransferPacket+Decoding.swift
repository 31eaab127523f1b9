extension TransferPacket {
    /// Parses one packet. DATA needs the active transfer's sequence width (`nil` when no
    /// transfer is active, which makes DATA an error). Never traps: every malformed input
    /// throws a ``TransferPacketError`` naming the packet type and field. Cost: one CRC pass.
    public static func decode(_ bytes: [UInt8], sequenceWidth: SequenceWidth?) throws(TransferPacketError) -> TransferPacket {
        guard let typeByte = bytes.first else { throw .empty }
        guard let kind = Kind(rawValue: typeByte) else { throw .unknownType(typeByte) }
        guard bytes.count >= 1 + trailerLength else {
            throw .truncated(kind, TruncatedInput(field: "crc32", offset: 1, needed: trailerLength, available: bytes.count - 1))
        }
        let bodyEnd = bytes.count - trailerLength
        let computed = CRC32.checksum(bytes[..<bodyEnd])
        let received = UInt32(bytes[bodyEnd]) | UInt32(bytes[bodyEnd + 1]) << 8
            | UInt32(bytes[bodyEnd + 2]) << 16 | UInt32(bytes[bodyEnd + 3]) << 24
        guard computed == received else { throw .checksumMismatch(kind, computed: computed, received: received) }
        var reader = ByteReader(bytes[1..<bodyEnd])
        let packet: TransferPacket
        do {
            switch kind {
            case .start:
                let version = try reader.u8("version")
                let modeByte = try reader.u8("mode")
                guard let mode = TransferMode(rawValue: modeByte) else {
                    throw TransferPacketError.invalidField(kind, field: "mode", value: UInt64(modeByte))
                }
                let flags = try reader.u8("flags")
                let transferId = try reader.u32le("transferId")
                let totalBytes = try reader.u64le("totalBytes")
                let chunkSize = try reader.u16le("chunkSize")
                guard chunkSize > 0 else { throw TransferPacketError.invalidField(kind, field: "chunkSize", value: 0) }
                let window = try reader.u16le("window")
                guard window > 0 else { throw TransferPacketError.invalidField(kind, field: "window", value: 0) }
                let digest = try reader.bytes("sha256", count: SHA256Hasher.digestLength)
                packet = .start(TransferStart(version: version, mode: mode, flags: flags, transferId: transferId,
                                              totalBytes: totalBytes, chunkSize: chunkSize, window: window, sha256: digest))
            case .startAck:
                let statusByte = try reader.u8("status")
                guard let status = TransferStartAck.Status(rawValue: statusByte) else {
                    throw TransferPacketError.invalidField(kind, field: "status", value: UInt64(statusByte))
                }
                let transferId = try reader.u32le("transferId")
                let window = try reader.u16le("window")
                let resumeFrom = try reader.u32le("resumeFrom")
                packet = .startAck(TransferStartAck(status: status, transferId: transferId, window: window, resumeFrom: resumeFrom))
            case .data:
                guard let sequenceWidth else { throw TransferPacketError.dataWithoutTransfer }
                let sequence = sequenceWidth == .two ? UInt32(try reader.u16le("sequence")) : try reader.u32le("sequence")
                packet = .data(TransferChunk(sequence: sequence, payload: reader.rest()))
            case .ack:
                let flags = try reader.u8("flags")
                let cumulative = try reader.u32le("cumulative")
                let length = Int(try reader.u8("bitmapLength"))
                guard length <= maxBitmapLength else {
                    throw TransferPacketError.invalidField(kind, field: "bitmapLength", value: UInt64(length))
                }
                let bitmap = try reader.bytes("bitmap", count: length)
                packet = .ack(TransferAck(isNack: flags & 1 != 0, cumulative: cumulative, bitmap: bitmap))
            case .done:
                let statusByte = try reader.u8("status")
                guard let status = TransferDone.Status(rawValue: statusByte) else {
                    throw TransferPacketError.invalidField(kind, field: "status", value: UInt64(statusByte))
                }
                let transferId = try reader.u32le("transferId")
                let received = try reader.u64le("receivedBytes")
                packet = .done(TransferDone(status: status, transferId: transferId, receivedBytes: received))
            case .abort:
                let reasonByte = try reader.u8("reason")
                let reason = TransferAbort.Reason(rawValue: reasonByte) ?? .other
                let transferId = try reader.u32le("transferId")
                packet = .abort(TransferAbort(reason: reason, transferId: transferId))
            case .query:
                packet = .query(transferId: try reader.u32le("transferId"))
            }
        } catch let error as TruncatedInput {
            throw .truncated(kind, error)
        } catch let error as TransferPacketError {
            throw error
        } catch {
            throw .truncated(kind, TruncatedInput(field: "?", offset: 0, needed: 0, available: 0))
        }
        guard reader.remaining == 0 else { throw .trailingBytes(kind, count: reader.remaining) }
        return packet
    }
}

/// Why a transfer packet could not be parsed.
public enum TransferPacketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Zero bytes.
    case empty
    /// A type byte no packet has.
    case unknownType(UInt8)
    /// A field ran past the end.
    case truncated(TransferPacket.Kind, TruncatedInput)
    /// The CRC-32 trailer does not match the bytes before it.
    case checksumMismatch(TransferPacket.Kind, computed: UInt32, received: UInt32)
    /// A field holds a value the protocol does not define.
    case invalidField(TransferPacket.Kind, field: String, value: UInt64)
    /// Bytes left over after the last field.
    case trailingBytes(TransferPacket.Kind, count: Int)
    /// DATA arrived while no transfer is active (its sequence width is unknown).
    case dataWithoutTransfer

    public var description: String {
        switch self {
        case .empty: return "empty packet"
        case .unknownType(let type): return "unknown packet type 0x\(String(type, radix: 16))"
        case .truncated(let kind, let input): return "\(kind) packet truncated: \(input)"
        case .checksumMismatch(let kind, let computed, let received):
            return "\(kind) packet CRC-32 0x\(String(received, radix: 16)) where 0x\(String(computed, radix: 16)) was computed"
        case .invalidField(let kind, let field, let value): return "\(kind) packet field \(field) has invalid value \(value)"
        case .trailingBytes(let kind, let count): return "\(kind) packet has \(count) trailing bytes"
        case .dataWithoutTransfer: return "DATA packet while no transfer is active"
        }
    }
}
