/// Turns the TLV family's notification stream, split and joined arbitrarily, into complete
/// ``TLVPacket``s: finds the start byte, checks the announced length against the limit, waits
/// for the whole packet, verifies the CRC-16 and the TLV structure. On any failure only the
/// start byte is dropped and the search resumes after it.
///
/// Memory is bounded by about two maximal packets; never traps. A value type; confine it.
public struct TLVPacketReassembler: Sendable {
    /// What one call produced, in stream order.
    public enum Output: Sendable, Hashable {
        /// A valid packet.
        case packet(TLVPacket)
        /// Bytes dropped, and why.
        case discarded(count: Int, reason: TLVDiscardReason)
    }

    /// The longest body accepted.
    public let maxBodyLength: Int
    /// Bytes discarded since creation.
    public private(set) var discardedBytes = 0

    private var buffer: [UInt8] = []
    private var start = 0

    /// A reassembler.
    public init(maxBodyLength: Int = TLVPacket.maxBodyLength) {
        self.maxBodyLength = min(max(0, maxBodyLength), Int(UInt16.max))
    }

    /// Bytes held waiting for the rest of a packet.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Feeds the next piece of the stream.
    public mutating func append<Bytes: Collection>(_ chunk: Bytes) -> [Output] where Bytes.Element == UInt8 {
        var outputs: [Output] = []
        let step = max(maxBodyLength + 5, 256)
        var index = chunk.startIndex
        while index != chunk.endIndex {
            let end = chunk.index(index, offsetBy: step, limitedBy: chunk.endIndex) ?? chunk.endIndex
            buffer.append(contentsOf: chunk[index..<end])
            index = end
            drain(into: &outputs)
        }
        return outputs
    }

    /// Drops pending bytes.
    public mutating func reset() {
        discardedBytes += bufferedByteCount
        buffer.removeAll(keepingCapacity: true)
        start = 0
    }

    private mutating func drain(into outputs: inout [Output]) {
        while start < buffer.count {
            if buffer[start] != TLVPacket.start {
                var next = start + 1
                while next < buffer.count && buffer[next] != TLVPacket.start { next += 1 }
                discard(next - start, .noStart, into: &outputs)
                continue
            }
            guard buffer.count - start >= 3 else { break }
            let length = Int(buffer[start + 1]) | Int(buffer[start + 2]) << 8
            guard length <= maxBodyLength else {
                discard(1, .oversizedLength(announced: length, limit: maxBodyLength), into: &outputs)
                continue
            }
            let total = 3 + length + 2
            guard buffer.count - start >= total else { break }
            let crcOffset = start + 3 + length
            let computed = CRC16.modbus(buffer[(start + 1)..<crcOffset])
            let received = UInt16(buffer[crcOffset]) | UInt16(buffer[crcOffset + 1]) << 8
            guard computed == received else {
                discard(1, .checksumMismatch(expected: computed, actual: received), into: &outputs)
                continue
            }
            do {
                let elements = try TLVPacket.decodeElements(buffer[(start + 3)..<crcOffset])
                outputs.append(.packet(TLVPacket(elements)))
                start += total
            } catch {
                discard(1, .malformedBody(error), into: &outputs)
            }
        }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }

    private mutating func discard(_ count: Int, _ reason: TLVDiscardReason, into outputs: inout [Output]) {
        start += count
        discardedBytes += count
        if reason == .noStart, case .discarded(let previous, .noStart)? = outputs.last {
            outputs[outputs.count - 1] = .discarded(count: previous + count, reason: .noStart)
        } else {
            outputs.append(.discarded(count: count, reason: reason))
        }
    }
}

/// Why the TLV reassembler dropped bytes.
public enum TLVDiscardReason: Sendable, Hashable {
    /// Bytes before a start byte.
    case noStart
    /// A header announcing a body over the limit.
    case oversizedLength(announced: Int, limit: Int)
    /// A complete candidate with a wrong CRC-16.
    case checksumMismatch(expected: UInt16, actual: UInt16)
    /// A candidate whose CRC matched but whose TLV structure is broken.
    case malformedBody(TLVPacketError)
}
