import Foundation
import VigilCore

/// Apple's report timestamps: `2026-03-17 22:50:41.6409 -0700`, `2019-01-09 17:42:22 +0000`,
/// `2022-09-28 10:59:30` (no zone: read as UTC).
enum AppleDate {
    /// Parses an Apple report timestamp; nil for anything else.
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
              index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x54 else { return nil }
        index += 1
        guard let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A), let second = number(2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            var scale = 0.1
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, digits < 9 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
                digits += 1
            }
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        }
        var offsetSeconds = 0
        while index < bytes.count, bytes[index] == 0x20 { index += 1 }
        if index < bytes.count {
            if bytes[index] == 0x5A {
                index += 1
            } else if bytes[index] == 0x2B || bytes[index] == 0x2D {
                let sign = bytes[index] == 0x2D ? -1 : 1
                index += 1
                guard let hours = number(2) else { return nil }
                _ = expect(0x3A)
                guard let minutes = number(2), hours < 24, minutes < 60 else { return nil }
                offsetSeconds = sign * (hours * 3600 + minutes * 60)
            } else {
                return nil
            }
        }
        guard index == bytes.count else { return nil }
        let days = Int(CivilCalendar.days(year: Int64(year), month: Int64(month), day: Int64(day)))
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Formats `date` the way `.ips` files write `captureTime`, in UTC:
    /// `2026-03-17 22:50:41.6409 +0000`.
    static func format(_ date: Date) -> String {
        let total = date.timeIntervalSince1970
        guard total.isFinite else { return "1970-01-01 00:00:00.0000 +0000" }
        let clamped = min(max(total, -62_135_596_800), 253_402_300_799)
        var seconds = Int(clamped.rounded(.down))
        let fraction = Int(((clamped - Double(seconds)) * 10_000).rounded(.down))
        var days = seconds / 86_400
        seconds -= days * 86_400
        if seconds < 0 { seconds += 86_400; days -= 1 }
        let civil = CivilCalendar.date(days: Int64(days))
        let (year, month, day) = (Int(civil.year), Int(civil.month), Int(civil.day))
        // Digits written by hand: `String(format:)` costs more than the rest of a report's reading.
        var text = ""
        text.reserveCapacity(30)
        if year < 0 { text += "-" }
        appendPadded(abs(year), width: 4, to: &text)
        text += "-"
        appendPadded(month, width: 2, to: &text)
        text += "-"
        appendPadded(day, width: 2, to: &text)
        text += " "
        appendPadded(seconds / 3600, width: 2, to: &text)
        text += ":"
        appendPadded((seconds / 60) % 60, width: 2, to: &text)
        text += ":"
        appendPadded(seconds % 60, width: 2, to: &text)
        text += "."
        appendPadded(min(fraction, 9999), width: 4, to: &text)
        text += " +0000"
        return text
    }

    /// Appends non-negative `value` in decimal, zero-padded to `width` digits (like `%0Nd`).
    private static func appendPadded(_ value: Int, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
        text += digits
    }
}
