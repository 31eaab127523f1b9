import Foundation

/// A histogram over logarithmic buckets whose percentiles are within ±1% of the exact value:
/// bucket `i` holds values in `(γ^(i-1), γ^i]` with γ = 1.02, and reports the midpoint that
/// keeps the relative error at most (γ-1)/(γ+1).
///
/// Buckets add, so histograms roll up across events, servers and days by summing counts —
/// what the `rollup_histograms` table does with `count = count + excluded.count`.
public struct LogHistogram: Sendable, Hashable {
    /// Growth factor between bucket bounds.
    public static let gamma = 1.02
    /// The bucket for zero and negative values.
    public static let zeroBucket = -1_000_000
    private static let logGamma = log(gamma)

    /// Counts by bucket index.
    public private(set) var counts: [Int: Int64] = [:]

    /// An empty histogram.
    public init() {}

    /// The bucket index of `value`.
    public static func bucket(_ value: Double) -> Int {
        guard value.isFinite, value > 0 else { return zeroBucket }
        return Int((log(value) / logGamma).rounded(.up))
    }

    /// The representative value of bucket `index`.
    public static func value(ofBucket index: Int) -> Double {
        guard index != zeroBucket else { return 0 }
        return 2 * pow(gamma, Double(index)) / (gamma + 1)
    }

    /// Adds `count` observations of `value`.
    public mutating func add(_ value: Double, count: Int64 = 1) {
        counts[Self.bucket(value), default: 0] += count
    }

    /// Adds `count` observations to bucket `index`.
    public mutating func add(bucket index: Int, count: Int64) {
        counts[index, default: 0] += count
    }

    /// Adds every observation of `other`.
    public mutating func merge(_ other: LogHistogram) {
        for (bucket, count) in other.counts { counts[bucket, default: 0] += count }
    }

    /// Number of observations.
    public var total: Int64 { counts.values.reduce(0, +) }

    /// The `q` quantile (0…1): the smallest bucket value with at least `q` of the observations
    /// at or below it; nil when empty.
    public func quantile(_ q: Double) -> Double? {
        let total = self.total
        guard total > 0 else { return nil }
        let rank = max(1, Int64((q * Double(total)).rounded(.up)))
        var seen: Int64 = 0
        for bucket in counts.keys.sorted() {
            seen += counts[bucket] ?? 0
            if seen >= rank { return Self.value(ofBucket: bucket) }
        }
        return Self.value(ofBucket: counts.keys.max() ?? Self.zeroBucket)
    }
}
