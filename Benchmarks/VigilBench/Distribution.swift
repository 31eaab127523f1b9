/// The spread of one measurement over many runs, read by rank: every suite reports its medians
/// and percentiles through this one definition, so a median means the same in every result
/// file.
///
/// The value at fraction `f` is the sorted values' element at index `⌊count × f⌋` (the last one
/// for `f` = 1): the median of an even count is the upper of the two middle values. Sorting
/// happens once, at creation.
struct Distribution {
    /// The values, ascending.
    let sorted: [Double]

    /// The distribution of `values`.
    init(_ values: [Double]) { sorted = values.sorted() }

    /// The value at `fraction` (0…1) of the way from the smallest to the largest; nil when
    /// there are no values.
    func percentile(_ fraction: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        return sorted[min(sorted.count - 1, max(0, Int(Double(sorted.count) * fraction)))]
    }

    /// The middle value (the upper middle one of an even count); nil when there are no values.
    var median: Double? { percentile(0.5) }

    /// Median, p90, smallest, largest and count, for a result file (zeros when empty).
    var summary: [String: Any] {
        ["median": median ?? 0, "p90": percentile(0.9) ?? 0, "min": sorted.first ?? 0, "max": sorted.last ?? 0,
         "samples": sorted.count]
    }
}
