import Foundation

/// Reads an HTTP `Retry-After` value: a number of seconds, or an HTTP date in the IMF-fixdate
/// form servers must send (`Sun, 06 Nov 1994 08:49:37 GMT`).
public enum RetryAfter {
    /// Seconds to wait from `now`, never negative; `nil` when the value is absent or neither
    /// form. Cost: a scan of at most 64 characters, no allocation beyond the trimmed string.
    public static func seconds(_ value: String?, now: Date) -> Double? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty, text.utf8.count <= 64 else { return nil }
        if text.utf8.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") }) {
            guard let seconds = Double(text), seconds.isFinite else { return nil }
            return max(0, seconds)
        }
        guard let date = httpDate(text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// Parses `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 IMF-fixdate); `nil` for anything else.
    static func httpDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
              bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 0x20,
              String(decoding: bytes[26...], as: UTF8.self) == "GMT" else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let day = number(5..<7), let monthIndex = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)),
              let year = number(12..<16), let hour = number(17..<19), let minute = number(20..<22),
              let second = number(23..<25), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        // Days from 1970-01-01 to the civil date (Howard Hinnant's algorithm).
        let month = monthIndex + 1
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }
}
