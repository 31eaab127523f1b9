import VigilBLE

/// Calls `body` with every element of `items`, naming the combination in failures — the
/// exhaustive-combination style of swift-collections' `withEvery`.
func withEvery<S: Sequence>(_ items: S, _ body: (S.Element) throws -> Void) rethrows {
    for item in items { try body(item) }
}

/// The obviously correct frame parser the streaming reassembler is checked against: it sees
/// the whole stream at once and applies the rules literally, one position at a time.
enum ReferenceFrameParser {
    static func frames(in stream: [UInt8], format: FrameFormat) -> [Frame] {
        var frames: [Frame] = []
        var index = 0
        let width = format.checksum.width
        while index < stream.count {
            guard index + 1 < stream.count, stream[index] == 0xAA, stream[index + 1] == 0x55 else {
                index += 1
                continue
            }
            guard index + 5 <= stream.count else { break }
            let length = Int(stream[index + 3]) << 8 | Int(stream[index + 4])
            guard length <= format.maxPayloadLength else {
                index += 1
                continue
            }
            let total = 5 + length + width
            guard index + total <= stream.count else { break }
            let end = index + 5 + length
            let computed = format.checksum.compute(stream[(index + 2)..<end])
            let received = width == 2 ? UInt16(stream[end]) << 8 | UInt16(stream[end + 1]) : UInt16(stream[end])
            guard computed == received else {
                index += 1
                continue
            }
            frames.append(Frame(command: stream[index + 2], payload: Array(stream[(index + 5)..<end])))
            index += total
        }
        return frames
    }
}

/// Feeds `stream` to a fresh reassembler in pieces cut at `cuts` (sorted offsets) and returns
/// the frames, checking the byte accounting on the way.
func reassemble(_ stream: [UInt8], cuts: [Int], format: FrameFormat) -> (frames: [Frame], buffered: Int, discarded: Int) {
    var reassembler = FrameReassembler(format: format)
    var frames: [Frame] = []
    var discarded = 0
    var start = 0
    for cut in cuts + [stream.count] {
        for output in reassembler.append(stream[start..<cut]) {
            switch output {
            case .frame(let frame): frames.append(frame)
            case .discarded(let count, _): discarded += count
            }
        }
        start = cut
    }
    return (frames, reassembler.bufferedByteCount, discarded)
}
