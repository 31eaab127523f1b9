import Testing
import VigilBLE
import VigilCore

@Suite("TLV packets (the second terminal family's wire format)")
struct TLVPacketTests {
    static let packet = TLVPacket([TLVElement(tag: 0x01, value: [0xA1]), TLVElement(tag: 0x03, value: [7]),
                                   TLVElement(tag: 0x52, value: [UInt8](repeating: 0xEE, count: 200)),
                                   TLVElement(tag: 0x10, value: Array("SIM".utf8)), TLVElement(tag: 0x11, value: [])])

    @Test("short and long BER lengths round-trip")
    func roundTrip() throws {
        let bytes = try Self.packet.encoded()
        var reassembler = TLVPacketReassembler()
        #expect(reassembler.append(bytes) == [.packet(Self.packet)])
    }

    @Test("every split point with noise before and after yields exactly the packet", arguments: [[], [0x02], [0x00, 0x02, 0xFF, 0x7F], [0x02, 0x05, 0x00]] as [[UInt8]])
    func everySplit(noise: [UInt8]) throws {
        let bytes = try Self.packet.encoded()
        let stream = noise + bytes + noise + bytes
        for cut in 0...stream.count {
            var reassembler = TLVPacketReassembler()
            var packets: [TLVPacket] = []
            for output in reassembler.append(stream[..<cut]) + reassembler.append(stream[cut...]) {
                if case .packet(let packet) = output { packets.append(packet) }
            }
            #expect(packets == [Self.packet, Self.packet], "cut at \(cut)")
        }
    }

    @Test("malformed bodies with a valid CRC are typed errors and are skipped")
    func malformedBody() {
        #expect(throws: TLVPacketError.truncatedValue(tag: 1, offset: 2, needed: 5, available: 1)) {
            try TLVPacket.decodeElements([0x01, 0x05, 0x00][...])
        }
        #expect(throws: TLVPacketError.badLengthEncoding(tag: 1, offset: 1, byte: 0x83)) {
            try TLVPacket.decodeElements([0x01, 0x83, 0, 0, 0][...])
        }
        var body: [UInt8] = [0x01, 0x05, 0x00]
        var bytes: [UInt8] = [0x02, UInt8(body.count), 0]
        bytes += body
        body = Array(bytes[1...])
        let crc = CRC16.modbus(body)
        bytes += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        var reassembler = TLVPacketReassembler()
        let outputs = reassembler.append(bytes)
        #expect(outputs.contains { if case .discarded(_, .malformedBody) = $0 { return true } else { return false } })
        #expect(!outputs.contains { if case .packet = $0 { return true } else { return false } })
    }

    @Test("an announced body over the limit is discarded at once; random input never traps and stays bounded")
    func boundedMemory() {
        var reassembler = TLVPacketReassembler(maxBodyLength: 64)
        #expect(reassembler.append([0x02, 0xFF, 0xFF]) == [.discarded(count: 1, reason: .oversizedLength(announced: 0xFFFF, limit: 64)),
                                                           .discarded(count: 2, reason: .noStart)])
        var generator = SeededGenerator(seed: 3)
        for _ in 0..<2000 {
            let chunk = (0..<Int(generator.next() % 100)).map { _ -> UInt8 in generator.next() % 3 == 0 ? 0x02 : UInt8(truncatingIfNeeded: generator.next()) }
            _ = reassembler.append(chunk)
            #expect(reassembler.bufferedByteCount < 64 + 5)
        }
    }
}
