import Testing
import VigilBLE
import VigilCore

@Suite("Framing: 0xAA55 frames and the streaming reassembler")
struct FrameReassemblerTests {
    static let maxPayload = 24
    /// Noise placed before, between and after frames: nothing, plain bytes, a lone sync byte,
    /// a bare sync, a header announcing an oversized length, a plausible header whose short
    /// length swallows the start of the next frame, and seeded random bytes.
    static let garbage: [[UInt8]] = [
        [],
        [0x00, 0x13, 0x37],
        [0xAA],
        [0xAA, 0x55],
        [0xAA, 0x55, 0x01, 0xFF, 0xFF],
        [0xAA, 0x55, 0x10, 0x00, 0x02, 0x01],
        {
            var generator = SeededGenerator(seed: 42)
            return (0..<11).map { _ in UInt8(truncatingIfNeeded: generator.next() & 0x7F) }
        }(),
    ]

    static func payload(_ count: Int, seed: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ 0x5A) } }

    @Test("every frame size × every split point × garbage before/between/after agrees with the reference model",
          arguments: FrameChecksum.allCases, 0..<garbage.count)
    func exhaustiveSplits(checksum: FrameChecksum, garbageIndex: Int) throws {
        let format = FrameFormat(checksum: checksum, maxPayloadLength: Self.maxPayload)
        let noise = Self.garbage[garbageIndex]
        try withEvery(0...Self.maxPayload) { size in
            let first = Frame(command: UInt8(size), payload: Self.payload(size, seed: size))
            let second = Frame(command: 0x7F, payload: Self.payload((size * 7) % 5, seed: 3))
            let a = try first.encoded(in: format), b = try second.encoded(in: format)
            // Noise in every place, then in each place alone.
            let placements: [([UInt8], [UInt8], [UInt8])] = [(noise, noise, noise), (noise, [], []), ([], noise, []), ([], [], noise)]
            withEvery(placements) { before, between, after in
                let stream = before + a + between + b + after
                let reference = ReferenceFrameParser.frames(in: stream, format: format)
                #expect(reference == [first, second], "noise \(garbageIndex) hides a frame of size \(size)")
                withEvery(0...stream.count) { cut in
                    let result = reassemble(stream, cuts: [cut], format: format)
                    #expect(result.frames == reference, "size \(size), cut at \(cut)")
                    let frameBytes = a.count + b.count
                    #expect(result.discarded + result.buffered + frameBytes == stream.count, "byte accounting, cut at \(cut)")
                }
                let byteByByte = reassemble(stream, cuts: Array(stride(from: 1, to: stream.count, by: 1)), format: format)
                #expect(byteByByte.frames == reference, "size \(size), byte by byte")
            }
        }
    }

    @Test("every pair of split points (three pieces) for small frames with noise between", arguments: FrameChecksum.allCases)
    func everyPairOfSplits(checksum: FrameChecksum) throws {
        let format = FrameFormat(checksum: checksum, maxPayloadLength: Self.maxPayload)
        try withEvery(0...3) { size in
            let frame = Frame(command: 0x42, payload: Self.payload(size, seed: 9))
            let bytes = try frame.encoded(in: format)
            let stream = [0xAA] + bytes + [0xAA, 0x55, 0x10, 0x00, 0x02, 0x01] + bytes + [0x00]
            let reference = ReferenceFrameParser.frames(in: stream, format: format)
            #expect(reference == [frame, frame])
            for first in 0...stream.count {
                for second in first...stream.count {
                    #expect(reassemble(stream, cuts: [first, second], format: format).frames == reference, "cuts \(first), \(second)")
                }
            }
        }
    }

    @Test("a payload longer than the format allows is refused by the encoder with its length and limit")
    func encoderRefusesOversizedPayload() {
        let format = FrameFormat(checksum: .crc8, maxPayloadLength: 8)
        #expect(throws: FramingError.payloadTooLong(length: 9, limit: 8)) {
            try Frame(command: 1, payload: [UInt8](repeating: 0, count: 9)).encoded(in: format)
        }
    }

    @Test("an oversized length, a bad checksum and plain noise are each reported as discarded with their reason")
    func discardReasons() throws {
        let format = FrameFormat(checksum: .crc16CCITT, maxPayloadLength: 16)
        var reassembler = FrameReassembler(format: format)
        var good = try Frame(command: 9, payload: [1, 2, 3]).encoded(in: format)
        let outputs1 = reassembler.append([0x01, 0x02] + [0xAA, 0x55, 0x01, 0x40, 0x00])
        #expect(outputs1.contains(.discarded(count: 2, reason: .noSync)))
        #expect(outputs1.contains(.discarded(count: 1, reason: .oversizedLength(announced: 0x4000, limit: 16))))
        good[good.count - 1] ^= 0x01
        let outputs2 = reassembler.append(good)
        #expect(outputs2.contains { if case .discarded(1, .checksumMismatch) = $0 { return true } else { return false } })
        #expect(!outputs2.contains { if case .frame = $0 { return true } else { return false } })
        #expect(reassembler.statistics.checksumFailures == 1)
        #expect(reassembler.statistics.oversizedLengths == 1)
    }

    @Test("a megabyte of random input in random pieces never traps, accounts for every byte, and keeps the buffer bounded")
    func randomInputBoundedMemory() {
        let format = FrameFormat(checksum: .crc16CCITT, maxPayloadLength: 64)
        var reassembler = FrameReassembler(format: format)
        var generator = SeededGenerator(seed: 7)
        let total = 1 << 20
        var remaining = total
        var peak = 0
        var frameBytes = 0
        while remaining > 0 {
            let count = min(remaining, Int(generator.next() % 600))
            // Biased toward the sync bytes so that false headers are frequent.
            let chunk = (0..<count).map { _ -> UInt8 in
                let value = generator.next()
                return value % 4 == 0 ? 0xAA : value % 4 == 1 ? 0x55 : UInt8(truncatingIfNeeded: value >> 8)
            }
            for case .frame(let frame) in reassembler.append(chunk) { frameBytes += format.frameLength(payloadLength: frame.payload.count) }
            peak = max(peak, reassembler.bufferedByteCount)
            remaining -= count
        }
        #expect(peak < format.maxFrameLength)
        #expect(reassembler.statistics.discardedBytes + reassembler.bufferedByteCount + frameBytes == total)
    }

    @Test("a single huge chunk is processed slice by slice, so memory stays near two frames")
    func hugeChunk() throws {
        let format = FrameFormat(checksum: .sum8, maxPayloadLength: 32)
        let frame = try Frame(command: 3, payload: [9, 9]).encoded(in: format)
        var stream = [UInt8](repeating: 0x11, count: 500_000)
        stream += frame
        var reassembler = FrameReassembler(format: format)
        let outputs = reassembler.append(stream)
        #expect(outputs.last == .frame(Frame(command: 3, payload: [9, 9])))
        #expect(reassembler.bufferedByteCount == 0)
    }
}
