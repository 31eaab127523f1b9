import CZlib

/// CRC-32 (ISO-HDLC, the zlib and gzip polynomial) over byte ranges, computed by zlib.
enum CRC32 {
    /// The CRC of `bytes`, continuing from `crc` (0 to start).
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        var value = UInt(crc)
        var pointer = base.assumingMemoryBound(to: Bytef.self)
        var remaining = bytes.count
        // zlib takes a uInt length; chunk so that a large range never truncates it.
        while remaining > 0 {
            let chunk = min(remaining, 1 << 30)
            value = CZlib.crc32(value, pointer, uInt(chunk))
            pointer += chunk
            remaining -= chunk
        }
        return UInt32(truncatingIfNeeded: value)
    }

    /// The CRC of a byte array.
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { update(0, $0) }
    }
}
