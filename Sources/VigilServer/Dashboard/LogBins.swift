import Foundation

/// A ``LogHistogram`` regrouped into bins a chart can show: each bin spans a factor of
/// 2^(1/`perDoubling`) (√2 by default), so equal widths on a log axis, from the smallest to the
/// largest value seen, empty bins in between kept (the gaps are part of the shape). Zero and
/// negative values get a bin of their own, `[0, 0]`, first.
///
/// A fine bucket (±1%) goes to the display bin holding its representative value, so a bin's
/// edges are exact to about 1%. Pure; cost: O(buckets + bins).
public struct LogBins: Sendable, Hashable, Codable {
    /// One bar of a distribution.
    public struct Bin: Sendable, Hashable, Codable {
        /// Lower edge (exclusive, except the zero bin), in the histogram's unit.
        public var lower: Double
        /// Upper edge (inclusive).
        public var upper: Double
        /// Observations in the bin.
        public var count: Int64
    }

    /// Bins from the smallest value to the largest.
    public private(set) var bins: [Bin] = []
    /// All observations.
    public let total: Int64
    /// Bins per doubling actually used (lowered when the range would need more than `maximumBins`).
    public private(set) var perDoubling: Int

    /// Regroups `histogram` with `perDoubling` bins per doubling, at most `maximumBins` bins
    /// (fewer per doubling when the values span a wide range).
    public init(_ histogram: LogHistogram, perDoubling: Int = 2, maximumBins: Int = 48) {
        precondition(perDoubling >= 1 && maximumBins >= 2, "at least one bin per doubling and two bins")
        total = histogram.total
        var zero: Int64 = 0
        var positive: [(Double, Int64)] = []
        for (bucket, count) in histogram.counts where count > 0 {
            if bucket == LogHistogram.zeroBucket { zero += count } else { positive.append((LogHistogram.value(ofBucket: bucket), count)) }
        }
        var perDoubling = perDoubling
        var byBin: [Int: Int64] = [:]
        var low = 0, high = 0
        var clampedLow = false
        if let smallest = positive.map(\.0).min(), let largest = positive.map(\.0).max() {
            while true {
                let scale = Double(perDoubling)
                low = Int((log2(smallest) * scale).rounded(.up))
                high = Int((log2(largest) * scale).rounded(.up))
                if high - low + 1 <= maximumBins - (zero > 0 ? 1 : 0) || perDoubling == 1 { break }
                perDoubling -= 1
            }
            // Even one bin per doubling can be too many (values from 1e-300 to 1e300): then the
            // first bin takes everything below the others, from 0.
            let room = maximumBins - (zero > 0 ? 1 : 0)
            if high - low + 1 > room { low = high - room + 1 }
            let scale = Double(perDoubling)
            for (value, count) in positive {
                byBin[max(low, Int((log2(value) * scale).rounded(.up))), default: 0] += count
            }
            clampedLow = low > Int((log2(smallest) * scale).rounded(.up))
        }
        self.perDoubling = perDoubling
        if zero > 0 { bins.append(Bin(lower: 0, upper: 0, count: zero)) }
        guard !positive.isEmpty else { return }
        let scale = Double(perDoubling)
        for index in low...high {
            let lower = index == low && clampedLow ? 0 : pow(2, Double(index - 1) / scale)
            bins.append(Bin(lower: lower, upper: pow(2, Double(index) / scale), count: byBin[index] ?? 0))
        }
    }
}
