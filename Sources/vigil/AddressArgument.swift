import VigilCommandLine

/// Parses addresses as `atos` and crash reports write them: hexadecimal, with or without `0x`.
enum AddressArgument {
    /// The value of `text` (`0x1000`, `1000`, `0X1F`), or `nil` when it is not a hex number
    /// that fits in 64 bits.
    static func parse(_ text: Substring) -> UInt64? {
        parse(bytes: Array(text.utf8)[...])
    }

    /// The same over bytes, for the batch reader (no string conversion).
    static func parse(bytes: ArraySlice<UInt8>) -> UInt64? {
        var slice = bytes
        while let first = slice.first, first == 32 || first == 9 || first == 13 { slice = slice.dropFirst() }
        while let last = slice.last, last == 32 || last == 9 || last == 13 { slice = slice.dropLast() }
        if slice.count >= 2, slice[slice.startIndex] == UInt8(ascii: "0"),
           slice[slice.startIndex + 1] | 0x20 == UInt8(ascii: "x") {
            slice = slice.dropFirst(2)
        }
        guard !slice.isEmpty, slice.count <= 16 else { return nil }
        var value: UInt64 = 0
        for byte in slice {
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
