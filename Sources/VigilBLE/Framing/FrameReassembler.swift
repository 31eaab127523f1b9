/// Turns a byte stream that arrives in arbitrary pieces (notifications split a frame, or carry
/// two frames at once, or noise) into the complete, checksum-valid ``Frame``s it contains.
///
/// Rules, identical for every way the stream may be split:
/// - a frame starts at `0xAA 0x55`; bytes that cannot start one are discarded (`noSync`);
/// - a header announcing more than `format.maxPayloadLength` is a false sync: its first byte is
///   discarded and the search resumes at the next byte;
/// - a complete candidate whose checksum fails loses only its first byte, so a valid frame that
///   starts inside it (after noise that looked like a header) is still found;
/// - an incomplete candidate waits for more bytes.
///
/// Memory is bounded: at most one pending candidate (≤ `format.maxFrameLength` bytes) plus one
/// slice of input is held, because large inputs are processed slice by slice. Never reads out
/// of bounds; never traps on any input. Not thread-safe (a value type; confine it).
public struct FrameReassembler: Sendable {
    /// What one call produced, in stream order.
    public enum Output: Sendable, Hashable {
        /// A complete frame whose checksum matched.
        case frame(Frame)
        /// `count` bytes dropped for `reason` (consecutive no-sync bytes are merged into one run).
        case discarded(count: Int, reason: FrameDiscardReason)
    }

    /// Running totals since creation, for the connection's debug snapshot.
    public struct Statistics: Sendable, Hashable {
        /// Frames produced.
        public var frames = 0
        /// Bytes discarded for any reason.
        public var discardedBytes = 0
        /// Candidates rejected for a checksum mismatch.
        public var checksumFailures = 0
        /// Headers rejected for an oversized length.
        public var oversizedLengths = 0
    }

    /// The frame format this reassembler accepts.
    public let format: FrameFormat
    /// Totals since creation.
    public private(set) var statistics = Statistics()

    private var buffer: [UInt8] = []
    private var start = 0

    /// A reassembler for `format`.
    public init(format: FrameFormat) {
        self.format = format
        buffer.reserveCapacity(format.maxFrameLength * 2)
    }

    /// Bytes held waiting for the rest of a frame (never more than about two maximal frames).
    public var bufferedByteCount: Int { buffer.count - start }

    /// Feeds the next piece of the stream and returns the frames it completed and the runs it
    /// discarded. Cost: linear in the input plus, per discarded candidate, one checksum pass.
    public mutating func append<Bytes: Collection>(_ chunk: Bytes) -> [Output] where Bytes.Element == UInt8 {
        var outputs: [Output] = []
        let step = max(format.maxFrameLength, 256)
        var index = chunk.startIndex
        while index != chunk.endIndex {
            let end = chunk.index(index, offsetBy: step, limitedBy: chunk.endIndex) ?? chunk.endIndex
            buffer.append(contentsOf: chunk[index..<end])
            index = end
            drain(into: &outputs)
        }
        return outputs
    }

    /// Drops whatever is pending (for example when the link drops) and returns how many bytes
    /// that was.
    @discardableResult
    public mutating func reset() -> Int {
        let dropped = bufferedByteCount
        statistics.discardedBytes += dropped
        buffer.removeAll(keepingCapacity: true)
        start = 0
        return dropped
    }

    private mutating func drain(into outputs: inout [Output]) {
        let width = format.checksum.width
        while start < buffer.count {
            let available = buffer.count - start
            if buffer[start] != FrameFormat.sync.0 {
                var next = start + 1
                while next < buffer.count && buffer[next] != FrameFormat.sync.0 { next += 1 }
                discard(next - start, .noSync, into: &outputs)
                continue
            }
            if available < 2 { break }
            if buffer[start + 1] != FrameFormat.sync.1 {
                discard(1, .noSync, into: &outputs)
                continue
            }
            if available < FrameFormat.headerLength { break }
            let length = Int(buffer[start + 3]) << 8 | Int(buffer[start + 4])
            if length > format.maxPayloadLength {
                statistics.oversizedLengths += 1
                discard(1, .oversizedLength(announced: length, limit: format.maxPayloadLength), into: &outputs)
                continue
            }
            let frameLength = format.frameLength(payloadLength: length)
            if available < frameLength { break }
            let payloadEnd = start + FrameFormat.headerLength + length
            let computed = format.checksum.compute(buffer[(start + 2)..<payloadEnd])
            let received = width == 2
                ? UInt16(buffer[payloadEnd]) << 8 | UInt16(buffer[payloadEnd + 1])
                : UInt16(buffer[payloadEnd])
            if computed != received {
                statistics.checksumFailures += 1
                discard(1, .checksumMismatch(expected: computed, actual: received), into: &outputs)
                continue
            }
            let payload = Array(buffer[(start + FrameFormat.headerLength)..<payloadEnd])
            outputs.append(.frame(Frame(command: buffer[start + 2], payload: payload)))
            statistics.frames += 1
            start += frameLength
        }
        compact()
    }

    private mutating func discard(_ count: Int, _ reason: FrameDiscardReason, into outputs: inout [Output]) {
        start += count
        statistics.discardedBytes += count
        if reason == .noSync, case .discarded(let previous, .noSync)? = outputs.last {
            outputs[outputs.count - 1] = .discarded(count: previous + count, reason: .noSync)
        } else {
            outputs.append(.discarded(count: count, reason: reason))
        }
    }

    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }
}
