/// CRC-8 with polynomial 0x07, initial value 0, no reflection, no final XOR (the CRC-8/SMBUS
/// parameters; check value `0xF4` over the ASCII digits "123456789").
///
/// Table-driven: one table lookup per byte.
public enum CRC8 {
    private static let table: [UInt8] = (0..<256).map { index -> UInt8 in
        var crc = UInt8(index)
        for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        return crc
    }

    /// The CRC of `bytes`, continuing from `initial` (pass a previous result to checksum a
    /// message delivered in pieces).
    public static func checksum<Bytes: Sequence>(_ bytes: Bytes, initial: UInt8 = 0) -> UInt8
    where Bytes.Element == UInt8 {
        var crc = initial
        for byte in bytes { crc = table[Int(crc ^ byte)] }
        return crc
    }
}
