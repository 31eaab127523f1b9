import Foundation

/// Reads an HTTP `Retry-After` value: a number of seconds or an HTTP date.
public enum RetryAfter {
    /// Seconds to wait from `now`, never negative; `nil` when the value is absent or neither
    /// form.
    public static func seconds(_ value: String?, now: Date) -> Double? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty, text.count <= 64 else { return nil }
        if text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            guard let seconds = Double(text), seconds.isFinite else { return nil }
            return max(0, seconds)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }
}
