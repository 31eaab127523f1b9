import CZlib

/// CRC-32 (IEEE 802.3, the zlib/PNG polynomial; check value `0xCBF43926` over "123456789"),
/// computed by zlib's `crc32`, which is vectorised on common CPUs.
public enum CRC32 {
    /// The CRC-32 of `bytes`, continuing from `initial`. Cost: one pass, no allocation.
    public static func checksum(_ bytes: ArraySlice<UInt8>, initial: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer -> UInt32 in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return initial }
            var crc = UInt(initial)
            var offset = 0
            // zlib takes a 32-bit length; feed very large inputs in pieces.
            while offset < buffer.count {
                let count = min(buffer.count - offset, Int(Int32.max))
                crc = UInt(crc32(uLong(crc), base + offset, uInt(count)))
                offset += count
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }

    /// The CRC-32 of `bytes`.
    public static func checksum(_ bytes: [UInt8], initial: UInt32 = 0) -> UInt32 {
        checksum(bytes[...], initial: initial)
    }
}
