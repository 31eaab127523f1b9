import CFuzzDriver
import FuzzSupport
import VigilBLE

/// Feeds the input to a ``FrameReassembler`` as a notification stream, split as the input's
/// first bytes say, in a format they choose (every checksum; a payload limit of 0 to 254 bytes, or 1,024):
/// never a trap; the outputs tile the stream in order (each frame re-encodes to exactly the
/// bytes it came from, each discarded run covers the bytes it claims); what is held is less than
/// one maximal frame; the statistics add up; and feeding the same stream in one piece yields the
/// same frames and discards the same number of bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameReassembler(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let checksum = FrameChecksum.allCases[Int(input.byte()) % FrameChecksum.allCases.count]
    let limitChoice = input.byte()
    let format = FrameFormat(checksum: checksum, maxPayloadLength: limitChoice == 0xFF ? 1024 : Int(limitChoice))
    let splitSeed = input.u32()
    let stream = input.rest()

    var reassembler = FrameReassembler(format: format)
    var consumed = 0
    var frames: [Frame] = []
    var discarded = 0
    var fed = 0
    var piece = 0
    var state = splitSeed | 1
    while fed < stream.count {
        // Pieces of 0 to 40 bytes, as BLE notifications arrive, from a xorshift of the seed.
        state ^= state << 13; state ^= state >> 17; state ^= state << 5
        let end = min(stream.count, fed + Int(state % 41))
        for output in reassembler.append(stream[fed..<end]) {
            switch output {
            case .frame(let frame):
                guard let bytes = try? frame.encoded(in: format) else { fatalError("a yielded frame does not encode: \(frame)") }
                fuzzCheck(consumed + bytes.count <= stream.count && Array(stream[consumed..<(consumed + bytes.count)]) == bytes,
                          "frame \(frame) is not the input at offset \(consumed)")
                consumed += bytes.count
                frames.append(frame)
            case .discarded(let count, let reason):
                fuzzCheck(count > 0, "an empty discarded run (\(reason))")
                if case .oversizedLength(let announced, let limit) = reason {
                    fuzzCheck(announced > limit && limit == format.maxPayloadLength, "oversized \(announced) > \(limit)")
                }
                consumed += count
                discarded += count
            }
        }
        fuzzCheck(consumed + reassembler.bufferedByteCount == end,
                  "\(consumed) bytes accounted for and \(reassembler.bufferedByteCount) held after \(end) fed")
        fuzzCheck(reassembler.bufferedByteCount < format.maxFrameLength,
                  "\(reassembler.bufferedByteCount) bytes held for frames of at most \(format.maxFrameLength)")
        fed = end
        piece += 1
    }
    let statistics = reassembler.statistics
    fuzzCheck(statistics.frames == frames.count && statistics.discardedBytes == discarded,
              "statistics \(statistics) for \(frames.count) frames and \(discarded) discarded bytes")

    var whole = FrameReassembler(format: format)
    var wholeFrames: [Frame] = []
    for output in whole.append(stream) { if case .frame(let frame) = output { wholeFrames.append(frame) } }
    fuzzCheck(wholeFrames == frames && whole.statistics == statistics && whole.bufferedByteCount == reassembler.bufferedByteCount,
              "splitting into \(piece) pieces changed the result")
    let held = reassembler.bufferedByteCount
    fuzzCheck(reassembler.reset() == held && reassembler.bufferedByteCount == 0, "reset did not drop what was held")
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzFrameReassembler_main")
public func fuzzFrameReassemblerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzFrameReassembler(data, size)
    }
}
