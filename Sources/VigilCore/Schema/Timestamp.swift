import Foundation

/// Formats and parses the event schema's wall-clock timestamps: RFC 3339 in UTC with
/// millisecond precision, `2026-11-29T20:48:43.123Z`.
///
/// Hand-written rather than `ISO8601DateFormatter` because it runs for every event on the SDK's
/// background queue and on the server's ingest path; it allocates only the result string.
public enum Timestamp {
    /// Formats `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC), rounded to the nearest millisecond.
    /// Dates before year 0 or after 9999 are clamped to that range.
    public static func format(_ date: Date) -> String {
        let raw = (date.timeIntervalSince1970 * 1000).rounded()
        var millis = raw.isFinite ? Int64(max(min(raw, 1e15), -1e15)) : 0
        millis = min(max(millis, minMillis), maxMillis)
        var days = millis / 86_400_000
        var msOfDay = millis % 86_400_000
        if msOfDay < 0 { msOfDay += 86_400_000; days -= 1 }
        let (year, month, day) = CivilCalendar.date(days: days)
        let hour = msOfDay / 3_600_000
        let minute = (msOfDay / 60_000) % 60
        let second = (msOfDay / 1000) % 60
        let ms = msOfDay % 1000
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        append(&bytes, Int(year), width: 4); bytes.append(0x2D)
        append(&bytes, Int(month), width: 2); bytes.append(0x2D)
        append(&bytes, Int(day), width: 2); bytes.append(0x54)
        append(&bytes, Int(hour), width: 2); bytes.append(0x3A)
        append(&bytes, Int(minute), width: 2); bytes.append(0x3A)
        append(&bytes, Int(second), width: 2); bytes.append(0x2E)
        append(&bytes, Int(ms), width: 3); bytes.append(0x5A)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses an RFC 3339 timestamp: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of any length
    /// (kept to the microsecond), and `Z` or a `±HH:MM` offset. Returns nil for anything else.
    public static func parse(_ text: some StringProtocol) -> Date? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 20, utf8.count <= 40 else { return nil }
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= utf8.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let c = utf8[index]
                guard c >= 0x30, c <= 0x39 else { return nil }
                value = value * 10 + Int(c - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < utf8.count, utf8[index] == byte || (byte == 0x54 && utf8[index] == 0x74) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D),
              let day = digits(2), expect(0x54), let hour = digits(2), expect(0x3A),
              let minute = digits(2), expect(0x3A), let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 61 else { return nil }
        var micros = 0
        if index < utf8.count, utf8[index] == 0x2E {
            index += 1
            var scale = 100_000
            var count = 0
            while index < utf8.count, utf8[index] >= 0x30, utf8[index] <= 0x39 {
                if scale > 0 { micros += Int(utf8[index] - 0x30) * scale; scale /= 10 }
                index += 1
                count += 1
            }
            guard count > 0 else { return nil }
        }
        var offsetSeconds = 0
        guard index < utf8.count else { return nil }
        switch utf8[index] {
        case 0x5A, 0x7A:
            index += 1
        case 0x2B, 0x2D:
            let sign = utf8[index] == 0x2D ? -1 : 1
            index += 1
            guard let oh = digits(2), expect(0x3A), let om = digits(2), oh < 24, om < 60 else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        default:
            return nil
        }
        guard index == utf8.count else { return nil }
        let days = CivilCalendar.days(year: Int64(year), month: Int64(month), day: Int64(day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        // One division of two exact integers gives the double nearest to the written value, so
        // a formatted date parses back to the same `Date` it was made from when that date was
        // itself the nearest double to a whole millisecond.
        return Date(timeIntervalSince1970: Double(seconds * 1_000_000 + Int64(micros)) / 1_000_000)
    }

    /// `date` as the event schema keeps it: on the millisecond ``format(_:)`` writes, so that
    /// `parse(format(d)) == d` holds for the result. Nil outside the years `format` can write
    /// (0000 to 9999 UTC), where it would clamp. Readers of events apply it to every parsed
    /// timestamp, so that a decoded event encodes back to itself. Cost: a few float operations.
    public static func schemaDate(_ date: Date) -> Date? {
        let raw = (date.timeIntervalSince1970 * 1000).rounded()
        guard raw.isFinite, raw >= Double(minMillis), raw <= Double(maxMillis) else { return nil }
        // The value `parse` builds from the formatted text: whole microseconds over 10⁶.
        return Date(timeIntervalSince1970: Double(Int64(raw) * 1000) / 1_000_000)
    }

    private static let minMillis: Int64 = -62_167_219_200_000  // 0000-01-01T00:00:00Z
    private static let maxMillis: Int64 = 253_402_300_799_999  // 9999-12-31T23:59:59.999Z

    private static func append(_ bytes: inout [UInt8], _ value: Int, width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(0x30 + (rest / divisor) % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    private static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
