import CFuzzDriver
import FuzzSupport
import VigilBLE

/// Feeds the input to a ``TLVPacketReassembler`` as a notification stream, split as the input's
/// first bytes say, with a body limit they choose (0 to 254 bytes, or the default 2,048), and
/// parses the rest as a bare TLV body: never a trap; every packet re-encodes (minimal lengths)
/// to no more bytes than it came in and parses back to itself; packets and discarded runs
/// account for every byte fed but the fewer-than-one-packet held; the byte counts add up; and
/// feeding the stream in one piece yields the same packets.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTLVPacketReassembler(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limitChoice = input.byte()
    let limit = limitChoice == 0xFF ? TLVPacket.maxBodyLength : Int(limitChoice)
    let splitSeed = input.u32()
    let stream = input.rest()

    if let elements = try? TLVPacket.decodeElements(stream[...]) {
        let packet = TLVPacket(elements)
        if let bytes = try? packet.encoded(maxBodyLength: Int(UInt16.max)) {
            fuzzCheck(bytes.count <= stream.count + 5, "\(stream.count) body bytes re-encode to \(bytes.count)")
            let again = try? TLVPacket.decodeElements(bytes[3..<(bytes.count - 2)])
            fuzzCheck(again == elements, "a bare body does not parse back from its encoding")
        }
    }

    var reassembler = TLVPacketReassembler(maxBodyLength: limit)
    var accounted = 0
    var discarded = 0
    var packets: [TLVPacket] = []
    var fed = 0
    var state = splitSeed | 1
    while fed < stream.count {
        state ^= state << 13; state ^= state >> 17; state ^= state << 5
        let end = min(stream.count, fed + Int(state % 41))
        for output in reassembler.append(stream[fed..<end]) {
            switch output {
            case .packet(let packet):
                guard let bytes = try? packet.encoded(maxBodyLength: limit) else {
                    fatalError("a yielded packet does not encode within its own limit \(limit)")
                }
                let original = stream[accounted...]
                fuzzCheck(original.first == TLVPacket.start, "a packet that did not start at a start byte")
                let announced = original.count >= 3 ? Int(original[accounted + 1]) | Int(original[accounted + 2]) << 8 : -1
                fuzzCheck(announced >= 0 && announced <= limit && bytes.count <= announced + 5,
                          "a packet of \(bytes.count) encoded bytes from a body of \(announced)")
                let again = try? TLVPacket.decodeElements(bytes[3..<(bytes.count - 2)])
                fuzzCheck(again == packet.elements, "a packet does not parse back from its encoding")
                accounted += announced + 5
                packets.append(packet)
            case .discarded(let count, let reason):
                fuzzCheck(count > 0, "an empty discarded run (\(reason))")
                accounted += count
                discarded += count
            }
        }
        fuzzCheck(accounted + reassembler.bufferedByteCount == end,
                  "\(accounted) bytes accounted for and \(reassembler.bufferedByteCount) held after \(end) fed")
        fuzzCheck(reassembler.bufferedByteCount < limit + 5, "\(reassembler.bufferedByteCount) bytes held with a limit of \(limit)")
        fed = end
    }
    fuzzCheck(reassembler.discardedBytes == discarded, "\(reassembler.discardedBytes) discarded bytes counted, \(discarded) reported")

    var whole = TLVPacketReassembler(maxBodyLength: limit)
    let wholePackets = whole.append(stream).compactMap { output -> TLVPacket? in
        if case .packet(let packet) = output { return packet }
        return nil
    }
    fuzzCheck(wholePackets == packets && whole.discardedBytes == discarded, "splitting the stream changed the result")
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzTLVPacketReassembler_main")
public func fuzzTLVPacketReassemblerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzTLVPacketReassembler(data, size)
    }
}
