import Testing
import VigilBLE
import VigilCore

@Suite("Transfer packets")
struct TransferPacketTests {
    static let samples: [(TransferPacket, SequenceWidth)] = [
        (.start(TransferStart(mode: .window, transferId: 0xDEAD_BEEF, totalBytes: 1 << 33, chunkSize: 237, window: 64,
                              sha256: Array(0..<32))), .two),
        (.startAck(TransferStartAck(status: .accepted, transferId: 7, window: 64, resumeFrom: 1234)), .two),
        (.data(TransferChunk(sequence: 65_535, payload: Array(0..<237))), .two),
        (.data(TransferChunk(sequence: 70_000, payload: [1, 2, 3])), .four),
        (.ack(TransferAck(isNack: true, cumulative: 99, bitmap: [0b1010_0001, 0xFF])), .two),
        (.done(TransferDone(status: .verified, transferId: 7, receivedBytes: 4096)), .two),
        (.abort(TransferAbort(reason: .peerSilent, transferId: 7)), .two),
        (.query(transferId: 42), .two),
    ]

    @Test("every packet kind survives encoding and decoding unchanged")
    func roundTrip() throws {
        for (packet, width) in Self.samples {
            #expect(try TransferPacket.decode(packet.encoded(sequenceWidth: width), sequenceWidth: width) == packet)
        }
    }

    @Test("layouts: START is 56 bytes, START-ACK 16, DONE 18, ABORT 10, QUERY 9, DATA adds 7 bytes at u16 and 9 at u32")
    func sizes() {
        #expect(Self.samples[0].0.encoded().count == 56)
        #expect(Self.samples[1].0.encoded().count == 16)
        #expect(Self.samples[2].0.encoded(sequenceWidth: .two).count == 237 + 7)
        #expect(Self.samples[3].0.encoded(sequenceWidth: .four).count == 3 + 9)
        #expect(Self.samples[5].0.encoded().count == 18)
        #expect(Self.samples[6].0.encoded().count == 10)
        #expect(Self.samples[7].0.encoded().count == 9)
    }

    @Test("every truncation of every packet is a typed error, never a trap")
    func everyTruncation() {
        for (packet, width) in Self.samples {
            let bytes = packet.encoded(sequenceWidth: width)
            for length in 0..<bytes.count {
                let prefix = Array(bytes[..<length])
                #expect(throws: TransferPacketError.self) { try TransferPacket.decode(prefix, sequenceWidth: width) }
            }
        }
    }

    @Test("every single-bit flip is caught (CRC-32), with the packet type in the error when the type byte survived")
    func everyBitFlip() {
        for (packet, width) in Self.samples {
            let bytes = packet.encoded(sequenceWidth: width)
            for bit in 0..<(bytes.count * 8) {
                var flipped = bytes
                flipped[bit / 8] ^= 1 << UInt8(bit % 8)
                #expect(throws: TransferPacketError.self) { try TransferPacket.decode(flipped, sequenceWidth: width) }
            }
        }
    }

    @Test("invalid fields with a valid CRC: unknown type, zero chunk size, oversized bitmap, trailing bytes, DATA without a transfer")
    func invalidFields() {
        func sealed(_ body: [UInt8]) -> [UInt8] {
            var bytes = body
            let crc = CRC32.checksum(body)
            bytes += [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
            return bytes
        }
        #expect(throws: TransferPacketError.unknownType(0x7E)) { try TransferPacket.decode(sealed([0x7E]), sequenceWidth: nil) }
        var start = Array(TransferPacket.start(TransferStart(mode: .window, transferId: 1, totalBytes: 10, chunkSize: 5, window: 4,
                                                            sha256: [UInt8](repeating: 0, count: 32))).encoded().dropLast(4))
        start[16] = 0
        start[17] = 0
        #expect(throws: TransferPacketError.invalidField(.start, field: "chunkSize", value: 0)) {
            try TransferPacket.decode(sealed(start), sequenceWidth: nil)
        }
        let ack: [UInt8] = [0x82, 0, 1, 0, 0, 0, 33] + [UInt8](repeating: 0, count: 33)
        #expect(throws: TransferPacketError.invalidField(.ack, field: "bitmapLength", value: 33)) {
            try TransferPacket.decode(sealed(ack), sequenceWidth: nil)
        }
        #expect(throws: TransferPacketError.trailingBytes(.query, count: 1)) {
            try TransferPacket.decode(sealed([0x04, 1, 0, 0, 0, 9]), sequenceWidth: nil)
        }
        #expect(throws: TransferPacketError.dataWithoutTransfer) {
            try TransferPacket.decode(TransferPacket.encodeData(sequence: 0, width: .two, payload: [1][...]), sequenceWidth: nil)
        }
    }

    @Test("ten thousand random byte strings decode or fail with a typed error")
    func randomInput() {
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<10_000 {
            let count = Int(generator.next() % 80)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if !bytes.isEmpty { bytes[0] = [0x01, 0x02, 0x03, 0x04, 0x81, 0x82, 0x84][Int(generator.next() % 7)] }
            _ = try? TransferPacket.decode(bytes, sequenceWidth: generator.next() % 2 == 0 ? .two : .four)
        }
    }

    @Test("an ACK's bitmap marks the chunks held beyond the cumulative index, least significant bit first")
    func ackBitmap() {
        let ack = TransferAck(cumulative: 10, bitmap: [0b0000_0101, 0b1000_0000])
        #expect(ack.heldBeyondCumulative == [11, 13, 26])
        #expect(ack.holds(9) && !ack.holds(10) && ack.holds(11) && !ack.holds(12) && ack.holds(26) && !ack.holds(27))
    }
}
