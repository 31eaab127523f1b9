import Testing
import VigilBLE

@Suite("Checksums and hashes")
struct ChecksumTests {
    private let digits = Array("123456789".utf8)

    @Test("CRC-8, CRC-16/CCITT-FALSE, CRC-16/MODBUS and CRC-32 match their catalogued check values")
    func checkValues() {
        #expect(CRC8.checksum(digits) == 0xF4)
        #expect(CRC16.ccittFalse(digits) == 0x29B1)
        #expect(CRC16.modbus(digits) == 0x4B37)
        #expect(CRC32.checksum(digits) == 0xCBF4_3926)
    }

    @Test("a CRC computed in pieces equals the one-shot CRC")
    func incremental() {
        for split in 0...digits.count {
            let head = Array(digits[..<split]), tail = Array(digits[split...])
            #expect(CRC8.checksum(tail, initial: CRC8.checksum(head)) == 0xF4)
            #expect(CRC16.ccittFalse(tail, initial: CRC16.ccittFalse(head)) == 0x29B1)
            #expect(CRC16.modbus(tail, initial: CRC16.modbus(head)) == 0x4B37)
            #expect(CRC32.checksum(tail, initial: CRC32.checksum(head)) == 0xCBF4_3926)
        }
    }

    @Test("frame checksums: XOR and sum are what they say, CRCs delegate, widths are 1 or 2 bytes")
    func frameChecksums() {
        #expect(FrameChecksum.xor8.compute([0x01, 0x02, 0x04]) == 0x07)
        #expect(FrameChecksum.sum8.compute([0xFF, 0x02]) == 0x01)
        #expect(FrameChecksum.crc8.compute(digits) == 0xF4)
        #expect(FrameChecksum.crc16CCITT.compute(digits) == 0x29B1)
        #expect(FrameChecksum.allCases.map(\.width) == [1, 1, 1, 2])
    }

    @Test("SHA-256 of the empty string, of \"abc\", and of a million bytes fed in pieces")
    func sha256() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(SHA256Hasher.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(SHA256Hasher.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let hasher = SHA256Hasher()
        let block = [UInt8](repeating: 0x61, count: 1000)
        for _ in 0..<1000 { hasher.update(block) }
        #expect(hex(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

import Foundation
