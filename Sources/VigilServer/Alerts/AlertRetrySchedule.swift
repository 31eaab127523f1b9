/// When a failed webhook delivery is tried again: exponential backoff from ``baseSeconds``,
/// doubling per attempt up to ``capSeconds``, and no more after ``maxAttempts`` attempts.
///
/// Pure; threading: a value.
public struct AlertRetrySchedule: Sendable, Hashable {
    /// Wait after the first failure, seconds.
    public var baseSeconds: Double
    /// Longest wait, seconds.
    public var capSeconds: Double
    /// Attempts in all, the first included.
    public var maxAttempts: Int

    /// Defaults: 10 s, doubling to at most an hour, 20 attempts (about 15 hours in all).
    public init(baseSeconds: Double = 10, capSeconds: Double = 3600, maxAttempts: Int = 20) {
        self.baseSeconds = max(0, baseSeconds)
        self.capSeconds = max(self.baseSeconds, capSeconds)
        self.maxAttempts = max(1, maxAttempts)
    }

    /// Seconds to wait after attempt `attempt` (1-based) failed; nil when it was the last.
    public func delay(afterAttempt attempt: Int) -> Double? {
        guard attempt < maxAttempts else { return nil }
        let exponent = min(max(0, attempt - 1), 60)
        return min(capSeconds, baseSeconds * Double(sign: .plus, exponent: exponent, significand: 1))
    }
}
