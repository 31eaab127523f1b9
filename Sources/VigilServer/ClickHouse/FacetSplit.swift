/// A roll-up filter narrowed by exactly one of OS version, device model or page
/// (``EventNarrowing``), split into what the facet roll-ups on ClickHouse answer — the whole
/// UTC days of its range — and what only the events can — the partial days at its ends.
///
/// The figures are sums (counts, totals, histogram buckets), so the two parts add up to what
/// the events over the exact range give. A range that starts and ends at midnight (or is
/// open, as "all time" is) has no partial days: the facet roll-ups answer it alone.
struct FacetSplit: Sendable, Equatable {
    /// `os`, `device` or `page`: the `facet` column of the facet roll-ups.
    var facet: String
    /// The OS version, device model or page asked for.
    var value: String
    /// Whether any whole day falls within the range; false when the range lies within one or
    /// two partial days.
    var hasWholeDays: Bool
    /// The first whole day (days since 1970), nil: open.
    var sinceDay: Int64?
    /// The last whole day, nil: open.
    var untilDay: Int64?
    /// Ranges of milliseconds (start inclusive, end exclusive) to read from the events: the
    /// partial days at either end; at most two.
    var edges: [Range<Int64>]

    private static let dayMs: Int64 = 86_400_000

    private static func floorDay(_ ms: Int64) -> Int64 {
        ms >= 0 ? ms / dayMs : -((-ms + dayMs - 1) / dayMs)
    }

    /// The split of `filter`, or nil when it does not narrow by exactly one facet (none, or
    /// two or three at once: those read the events), or when its range is empty.
    init?(_ filter: RollupFilter) {
        guard let events = filter.events else { return nil }
        let named: [(String, String?)] = [("os", events.osVersion), ("device", events.deviceModel), ("page", events.page)]
        let facets = named.compactMap { pair in pair.1.map { (pair.0, $0) } }
        guard facets.count == 1 else { return nil }
        if let start = events.start, let end = events.end, start >= end { return nil }
        facet = facets[0].0
        value = facets[0].1
        let start = events.start, end = events.end
        let startCut = start.map { $0 - Self.floorDay($0) * Self.dayMs != 0 } ?? false
        let endCut = end.map { $0 - Self.floorDay($0) * Self.dayMs != 0 } ?? false
        // Whole days: from the first midnight at or after the start to the day before the last
        // midnight at or before the end.
        let firstWhole = start.map { Self.floorDay($0) + (startCut ? 1 : 0) }
        let lastWhole = end.map { Self.floorDay($0) - 1 }
        var edges: [Range<Int64>] = []
        if let start, let end, startCut, endCut, Self.floorDay(start) == Self.floorDay(end) {
            edges = [start..<end]
        } else {
            if let start, startCut { edges.append(start..<(Self.floorDay(start) + 1) * Self.dayMs) }
            if let end, endCut { edges.append(Self.floorDay(end) * Self.dayMs..<end) }
        }
        self.edges = edges
        sinceDay = [filter.sinceDay, firstWhole].compactMap { $0 }.max()
        untilDay = [filter.untilDay, lastWhole].compactMap { $0 }.min()
        if let since = sinceDay, let until = untilDay { hasWholeDays = since <= until } else { hasWholeDays = true }
    }
}
