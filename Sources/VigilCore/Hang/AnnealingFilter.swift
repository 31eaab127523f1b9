/// Keeps a main thread that is stuck in the same place from being reported over and over
/// (Matrix's "annealing"), with a Fibonacci backoff.
///
/// Rules, for each hang considered in time order with its hot stack as `key`:
/// - a hang without a key (no samples) is always reported and leaves the state alone;
/// - a key different from the previous report's is reported, and the backoff resets;
/// - the same key as the previous report is *annealed* (not reported) unless the main thread
///   recovered first: stayed hang-free from the end of the previous same-key hang for the
///   current backoff window. The window is 1 period after a report, then grows to 2, 3, 5 and 8
///   periods with each annealed repeat (and stays at 8); a recovery or a new key resets it to 1.
///
/// O(1) per call. Value type; the owner serialises access.
public struct AnnealingFilter<Key: Hashable & Sendable>: Sendable {
    /// The Fibonacci backoff, in periods.
    public static var backoffPeriods: [Int] { [1, 2, 3, 5, 8] }

    /// Length of one period, in milliseconds.
    public let periodMs: Double
    /// The key of the last reported hang, nil before the first keyed report.
    public private(set) var lastReportedKey: Key?
    /// Index into ``backoffPeriods`` of the window in force.
    public private(set) var backoffStep = 0
    /// End of the current recovery window: a same-key hang starting before it is annealed.
    public private(set) var windowEnd: MonotonicInstant?

    /// A filter with no history.
    public init(periodMs: Double) {
        self.periodMs = periodMs.isFinite && periodMs > 0 ? periodMs : 1000
    }

    /// Length of the current backoff window, in periods.
    public var currentBackoffPeriods: Int { Self.backoffPeriods[backoffStep] }

    /// Decides whether a hang with hot stack `key`, which began at `start` and ended at `end`,
    /// is reported, and updates the backoff.
    public mutating func consider(_ key: Key?, start: MonotonicInstant, end: MonotonicInstant) -> AnnealingDecision {
        guard let key else { return .report }
        if key == lastReportedKey, let windowEnd, start < windowEnd {
            backoffStep = min(backoffStep + 1, Self.backoffPeriods.count - 1)
            self.windowEnd = end.advanced(byMilliseconds: periodMs * Double(currentBackoffPeriods))
            return .annealed
        }
        lastReportedKey = key
        backoffStep = 0
        windowEnd = end.advanced(byMilliseconds: periodMs * Double(currentBackoffPeriods))
        return .report
    }

    /// Forgets the history (the next keyed hang is reported).
    public mutating func reset() {
        lastReportedKey = nil
        backoffStep = 0
        windowEnd = nil
    }
}
