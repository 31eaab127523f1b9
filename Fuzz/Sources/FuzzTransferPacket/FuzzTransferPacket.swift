import CFuzzDriver
import FuzzSupport
import VigilBLE

/// Reads the input as a reliable-transfer packet with each sequence width (and none), both as
/// it is and with a correct CRC-32 appended so that mutations reach the fields: never a trap;
/// a decoded packet re-encodes to as many bytes as it came in, the encoding decodes to the same
/// packet, and a decoded START's derived chunk count is computable.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTransferPacket(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var sealed = bytes
    sealed.append(contentsOf: withUnsafeBytes(of: CRC32.checksum(bytes).littleEndian, Array.init))
    for candidate in [bytes, sealed] {
        for width in [nil, SequenceWidth.two, .four] {
            let packet: TransferPacket
            do { packet = try TransferPacket.decode(candidate, sequenceWidth: width) } catch {
                _ = error.description
                continue
            }
            let encoded = packet.encoded(sequenceWidth: width ?? .four)
            fuzzCheck(encoded.count == candidate.count, "\(packet) came in \(candidate.count) bytes and encodes to \(encoded.count)")
            let again = try? TransferPacket.decode(encoded, sequenceWidth: width)
            fuzzCheck(again == packet, "\(packet) decodes back as \(String(describing: again))")
            if case .start(let start) = packet {
                let count = start.chunkCount
                fuzzCheck(count == start.totalBytes / UInt64(start.chunkSize) + (start.totalBytes % UInt64(start.chunkSize) == 0 ? 0 : 1),
                          "\(start.totalBytes) bytes in chunks of \(start.chunkSize) make \(count) chunks")
            }
            if case .ack(let ack) = packet {
                fuzzCheck(ack.heldBeyondCumulative.allSatisfy { ack.holds($0) }, "ACK bitmap disagrees with holds(_:)")
            }
        }
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzTransferPacket_main")
public func fuzzTransferPacketMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzTransferPacket(data, size)
    }
}
