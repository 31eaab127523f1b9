import Foundation

/// Small parsing helpers shared by the text and metadata readers.
enum TextScanning {
    /// A `0x`-prefixed or bare hex number; nil when malformed or wider than 64 bits.
    static func hex(_ text: Substring) -> UInt64? {
        var digits = text
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        guard !digits.isEmpty, digits.count <= 16 else {
            // Leading zeros can push a valid 64-bit value past 16 digits.
            let trimmed = digits.drop(while: { $0 == "0" })
            guard !digits.isEmpty, trimmed.count <= 16 else { return nil }
            return trimmed.isEmpty ? 0 : UInt64(trimmed, radix: 16)
        }
        return UInt64(digits, radix: 16)
    }

    /// A number written as `0x…` hex or decimal.
    static func integer(_ text: Substring) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") { return hex(Substring(trimmed)) }
        return UInt64(trimmed)
    }

    /// The hex address after the first ` at ` in `text`: `KERN_INVALID_ADDRESS at 0x10` → 0x10.
    static func address(after marker: String = " at ", in text: String) -> UInt64? {
        guard let range = text.range(of: marker) else { return nil }
        let rest = text[range.upperBound...].drop(while: { $0 == " " })
        let token = rest.prefix(while: { $0.isHexDigit || $0 == "x" || $0 == "X" })
        return hex(token)
    }

    /// Splits `text` on runs of spaces and tabs.
    static func words(_ text: Substring) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" })
    }

    /// `Name [123]` → (`Name`, 123).
    static func nameAndPID(_ text: String) -> (String, Int?) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasSuffix("]"), let open = trimmed.lastIndex(of: "[") else { return (trimmed, nil) }
        let number = Int(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        return (trimmed[..<open].trimmingCharacters(in: .whitespaces), number)
    }

    /// `iPhone OS 17.5.1 (21F90)` → (`iPhone OS`, `17.5.1`, `21F90`).
    static func osVersion(_ text: String) -> (name: String?, version: String?, build: String?) {
        var rest = text.trimmingCharacters(in: .whitespaces)
        var build: String?
        if rest.hasSuffix(")"), let open = rest.lastIndex(of: "(") {
            build = String(rest[rest.index(after: open)..<rest.index(before: rest.endIndex)])
            rest = rest[..<open].trimmingCharacters(in: .whitespaces)
        }
        let words = rest.split(separator: " ")
        guard let last = words.last, last.first?.isNumber == true else {
            return (rest.isEmpty ? nil : rest, nil, build)
        }
        let name = words.dropLast().joined(separator: " ")
        return (name.isEmpty ? nil : name, String(last), build)
    }

    /// `1.0 (42)` → (`1.0`, `42`); `4.21.1` → (`4.21.1`, nil).
    static func versionAndBuild(_ text: String) -> (String?, String?) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasSuffix(")"), let open = trimmed.lastIndex(of: "(") else {
            return (trimmed.isEmpty ? nil : trimmed, nil)
        }
        let inner = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        let outer = trimmed[..<open].trimmingCharacters(in: .whitespaces)
        return (outer.isEmpty ? nil : outer, inner.isEmpty ? nil : inner)
    }

    /// A duration such as `20 secs.`, `20 sec`, `4.5 s`, `20000 ms`, `1.2 min`, in milliseconds.
    static func durationMs(_ text: String) -> Double? {
        let (number, unit) = numberAndUnit(text)
        guard let number else { return nil }
        switch unit {
        case "ms", "msec", "msecs", "millisecond", "milliseconds": return number
        case "", "s", "sec", "secs", "second", "seconds": return number * 1000
        case "min", "mins", "minute", "minutes": return number * 60_000
        case "h", "hr", "hrs", "hour", "hours": return number * 3_600_000
        case "µs", "us", "usec", "microseconds": return number / 1000
        default: return nil
        }
    }

    /// A byte count such as `2,000 byte`, `1.5 MB`, `12 KiB`.
    static func bytes(_ text: String) -> Double? {
        let (number, unit) = numberAndUnit(text)
        guard let number else { return nil }
        switch unit {
        case "", "b", "byte", "bytes": return number
        case "kb", "kilobyte", "kilobytes": return number * 1000
        case "kib": return number * 1024
        case "mb", "megabyte", "megabytes": return number * 1_000_000
        case "mib": return number * 1_048_576
        case "gb", "gigabyte", "gigabytes": return number * 1_000_000_000
        case "gib": return number * 1_073_741_824
        default: return nil
        }
    }

    /// Leading number (commas allowed as thousands separators) and the unit word after it,
    /// lowercased with a trailing `.` removed.
    static func numberAndUnit(_ text: String) -> (Double?, String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let numberPart = trimmed.prefix(while: { $0.isNumber || $0 == "." || $0 == "," || $0 == "-" })
        let value = Double(numberPart.replacingOccurrences(of: ",", with: ""))
        var unit = trimmed.dropFirst(numberPart.count).trimmingCharacters(in: .whitespaces).lowercased()
        while unit.hasSuffix(".") { unit.removeLast() }
        guard let value, value.isFinite else { return (nil, unit) }
        return (value, unit)
    }
}

extension Character {
    /// Whether the character is one of the ASCII digits 0–9.
    var isASCIIDigit: Bool {
        guard let ascii = asciiValue else { return false }
        return ascii >= 0x30 && ascii <= 0x39
    }
}
