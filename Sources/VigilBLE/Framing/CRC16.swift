/// The two CRC-16 variants the BLE layer speaks: CRC-16/CCITT-FALSE (the `0xAA55` frame's
/// strongest checksum) and CRC-16/MODBUS (the TLV terminal's packets).
///
/// Table-driven: one table lookup per byte. Check values over the ASCII digits "123456789":
/// CCITT-FALSE `0x29B1`, MODBUS `0x4B37`.
public enum CRC16 {
    private static let ccittTable: [UInt16] = (0..<256).map { index -> UInt16 in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }

    private static let modbusTable: [UInt16] = (0..<256).map { index -> UInt16 in
        var crc = UInt16(index)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        return crc
    }

    /// CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final XOR.
    public static func ccittFalse<Bytes: Sequence>(_ bytes: Bytes, initial: UInt16 = 0xFFFF) -> UInt16
    where Bytes.Element == UInt8 {
        var crc = initial
        for byte in bytes { crc = (crc << 8) ^ ccittTable[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)] }
        return crc
    }

    /// CRC-16/MODBUS: polynomial 0x8005 reflected (0xA001), initial 0xFFFF, no final XOR.
    public static func modbus<Bytes: Sequence>(_ bytes: Bytes, initial: UInt16 = 0xFFFF) -> UInt16
    where Bytes.Element == UInt8 {
        var crc = initial
        for byte in bytes { crc = (crc >> 8) ^ modbusTable[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] }
        return crc
    }
}
