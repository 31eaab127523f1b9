import VigilCommandLine

/// Parses addresses as `atos` and crash reports write them: hexadecimal, with or without `0x`.
enum AddressArgument {
    /// The value of `text` (`0x1000`, `1000`, `0X1F`), or `nil` when it is not a hex number
    /// that fits in 64 bits.
    static func parse(_ text: Substring) -> UInt64? {
        Array(text.utf8).withUnsafeBufferPointer { parse(bytes: $0) }
    }

    /// The same over bytes, for the batch reader (no string conversion).
    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 32 || bytes[start] == 9 || bytes[start] == 13 { start += 1 }
        while end > start, bytes[end - 1] == 32 || bytes[end - 1] == 9 || bytes[end - 1] == 13 { end -= 1 }
        if end - start >= 2, bytes[start] == UInt8(ascii: "0"), bytes[start + 1] | 0x20 == UInt8(ascii: "x") { start += 2 }
        guard start < end, end - start <= 16 else { return nil }
        var value: UInt64 = 0
        for index in start..<end {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 48...57: digit = byte - 48
            case 97...102: digit = byte - 87
            case 65...70: digit = byte - 55
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// `text` as an address, or a usage error naming `what`.
    static func required(_ text: String, _ what: String) throws -> UInt64 {
        guard let value = parse(Substring(text)) else { throw UsageError("\(what): \"\(text)\" is not a hexadecimal address") }
        return value
    }
}
