import Foundation
import VigilCore

/// How many attempts one connection effort makes and how long it waits between them:
/// exponential backoff, capped, with seeded jitter so that a fleet of phones does not retry in
/// lock-step.
public struct ReconnectPolicy: Sendable, Hashable {
    /// Attempts per effort, the first included; `nil` retries until cancelled.
    public var maxAttempts: Int?
    /// Wait before the first reconnect after a lost link, and the base of the backoff (ms).
    public var initialDelayMs: Double
    /// The cap on any wait (ms).
    public var maxDelayMs: Double
    /// Growth factor per failed attempt.
    public var multiplier: Double
    /// Relative jitter: each wait is scaled by a uniform factor in 1 ± `jitter`.
    public var jitter: Double

    /// A policy; defaults: 5 attempts, 250 ms doubling up to 8 s, ±20 % jitter.
    public init(maxAttempts: Int? = 5, initialDelayMs: Double = 250, maxDelayMs: Double = 8_000,
                multiplier: Double = 2, jitter: Double = 0.2) {
        self.maxAttempts = maxAttempts
        self.initialDelayMs = initialDelayMs
        self.maxDelayMs = maxDelayMs
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// Whether attempt `attempt` (1-based) may run.
    public func allows(attempt: Int) -> Bool {
        guard let maxAttempts else { return true }
        return attempt <= maxAttempts
    }

    /// The wait before attempt `attempt` (≥ 1), in nanoseconds: `initial × multiplier^(attempt−1)`,
    /// jittered, never above `maxDelayMs`.
    public func delay<G: RandomNumberGenerator>(beforeAttempt attempt: Int, using generator: inout G) -> UInt64 {
        let exponent = Double(max(0, attempt - 1))
        let base = min(maxDelayMs, initialDelayMs * pow(multiplier, min(exponent, 60)))
        let spread = max(0, min(jitter, 1))
        let factor = spread == 0 ? 1 : Double.random(in: (1 - spread)...(1 + spread), using: &generator)
        return nanoseconds(milliseconds: min(maxDelayMs, base * factor))
    }
}
