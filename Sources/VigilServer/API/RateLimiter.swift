import Foundation
import Synchronization
import VigilCore

/// A token bucket per key: `burst` requests at once, refilled at `perSecond`; a request that
/// finds the bucket empty learns how many whole seconds to wait (the `Retry-After`).
///
/// Pure apart from the injected clock, and bounded: past `maxKeys` keys the least recently
/// used are forgotten (a forgotten key starts with a full bucket). Threading: safe to share.
public final class RateLimiter: Sendable {
    /// Requests allowed per second, sustained.
    public let perSecond: Double
    /// Requests allowed at once.
    public let burst: Double
    private let maxKeys: Int
    private let clock: any VigilClock
    private let buckets = Mutex<[String: Bucket]>([:])

    private struct Bucket {
        var tokens: Double
        var updated: MonotonicInstant
    }

    /// A limiter; `perSecond <= 0` disables limiting.
    public init(perSecond: Double, burst: Double? = nil, maxKeys: Int = 10_000, clock: any VigilClock = SystemClock()) {
        self.perSecond = perSecond
        self.burst = max(1, burst ?? perSecond * 2)
        self.maxKeys = maxKeys
        self.clock = clock
    }

    /// Takes one token for `key`: nil when allowed, otherwise the seconds to wait (at least 1).
    public func take(_ key: String) -> Int? {
        guard perSecond > 0 else { return nil }
        let now = clock.monotonicNow()
        return buckets.withLock { buckets -> Int? in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = max(0, now.milliseconds(since: bucket.updated) / 1000)
            bucket.tokens = min(burst, bucket.tokens + elapsed * perSecond)
            bucket.updated = now
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                buckets[key] = bucket
                if buckets.count > maxKeys { Self.evict(&buckets, keeping: maxKeys / 2) }
                return nil
            }
            buckets[key] = bucket
            return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
        }
    }

    private static func evict(_ buckets: inout [String: Bucket], keeping count: Int) {
        let keep = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(count)
        buckets = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
