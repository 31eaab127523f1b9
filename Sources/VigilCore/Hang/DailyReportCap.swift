import Foundation

/// Allows at most `limit` reports per key per calendar day; Vigil keys hang reports on the top
/// frame of their hot stack so that one bad call site cannot flood the pipeline.
///
/// Days are counted on the wall clock in ``timeZone`` and start at its midnight. When the wall
/// clock moves back to an earlier day (the user changed the time), the counts are kept rather
/// than reset, so moving the clock cannot unlock more reports; the regression is counted.
/// At most ``maxKeys`` keys are tracked per day; reports for further keys are refused and
/// counted. O(1) per call, memory bounded by `maxKeys`.
public struct DailyReportCap<Key: Hashable & Sendable>: Sendable {
    /// Reports allowed per key per day (0 refuses everything).
    public let limit: Int
    /// Time zone whose days are counted.
    public let timeZone: TimeZone
    /// Distinct keys tracked per day.
    public let maxKeys: Int
    /// Reports refused because their key hit the limit.
    public private(set) var refusedOverLimit = 0
    /// Reports refused because ``maxKeys`` distinct keys were already tracked that day.
    public private(set) var refusedTooManyKeys = 0
    /// Times the wall clock was seen on an earlier day than the one being counted.
    public private(set) var wallClockRegressions = 0
    private var day: Int64?
    private var counts: [Key: Int] = [:]

    /// A cap with no history.
    public init(limit: Int, timeZone: TimeZone, maxKeys: Int = 1024) {
        self.limit = max(0, limit)
        self.timeZone = timeZone
        self.maxKeys = max(1, maxKeys)
    }

    /// The day number (days since 1970-01-01 in ``timeZone``) of `date`.
    public func dayNumber(of date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        guard seconds.isFinite else { return 0 }
        return Int64((seconds / 86_400).rounded(.down).clamped(to: -1e15...1e15))
    }

    /// Reports already admitted for `key` on the day being counted.
    public func count(for key: Key) -> Int { counts[key] ?? 0 }

    /// Whether a report for `key` at wall time `date` is within the cap; admitted reports
    /// are counted.
    public mutating func admit(_ key: Key, at date: Date) -> Bool {
        let today = dayNumber(of: date)
        if let day {
            if today > day {
                self.day = today
                counts.removeAll(keepingCapacity: true)
            } else if today < day {
                wallClockRegressions += 1
            }
        } else {
            day = today
        }
        let current = counts[key] ?? 0
        guard current < limit else {
            refusedOverLimit += 1
            return false
        }
        if current == 0 && counts.count >= maxKeys {
            refusedTooManyKeys += 1
            return false
        }
        counts[key] = current + 1
        return true
    }
}

extension Double {
    fileprivate func clamped(to range: ClosedRange<Double>) -> Double {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
